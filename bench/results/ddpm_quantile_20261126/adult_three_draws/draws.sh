# How the files here were made: two more sampling draws from each Adult DDPM model of the
# "Quantile normalisation" section (fit seed 0 sampled before with seed 1, fit seed 1 with
# seed 2; draw d uses seed + 100 d), each scored with evaluation seeds 0, 1, 2.
# Usage: GENESIS_DATA=<folder> bash draws.sh MODEL_SEED0.gen MODEL_SEED1.gen
# DRAWS (default "1 2": the draws d made here) and SAMPLE_FLAGS (more `genesis sample` flags)
# serve the other Adult runs: ../adult_all_steps, ../t100/adult.
set -e
G=${GENESIS_BIN:-build/genesis}; D=${GENESIS_DATA:?set GENESIS_DATA}
DRAWS=${DRAWS:-1 2}
models=("$1" "$2")
for m in 0 1; do
  for d in $DRAWS; do
    ss=$(( m + 1 + 100 * d ))
    # shellcheck disable=SC2086 # SAMPLE_FLAGS is a list of flags
    "$G" sample -q -m "${models[$m]}" -n 32561 --seed $ss $SAMPLE_FLAGS -o m${m}d$d.csv --threads 1
    for es in 0 1 2; do
      "$G" evaluate --real "$D/adult.csv" --synthetic m${m}d$d.csv --holdout "$D/adult_test.csv" \
        --target income --seed $es --json -q --threads 1 > m${m}d${d}e$es.json
    done
    rm -f m${m}d$d.csv
  done
done
