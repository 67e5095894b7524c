# Three sampling draws from each Adult DDPM model (fit seeds 0, 1) with all 1,000 reverse
# steps (--sample-steps 0); fit seed m's draw d uses sampling seed m + 1 + 100 d; each draw is
# scored with evaluation seeds 0, 1, 2.
# Usage: GENESIS_DATA=<folder> bash draws.sh MODEL_SEED0.gen MODEL_SEED1.gen
set -e
G=${GENESIS_BIN:-build/genesis}; D=${GENESIS_DATA:?set GENESIS_DATA}
models=("$1" "$2")
for m in 0 1; do
  for d in 0 1 2; do
    ss=$(( m + 1 + 100 * d ))
    /usr/bin/time -f %e -o m${m}d$d.sample_s "$G" sample -q -m "${models[$m]}" -n 32561 --seed $ss --sample-steps 0 -o m${m}d$d.csv --threads 1
    for es in 0 1 2; do
      "$G" evaluate --real "$D/adult.csv" --synthetic m${m}d$d.csv --holdout "$D/adult_test.csv" \
        --target income --seed $es --json -q --threads 1 > m${m}d${d}e$es.json
    done
    rm -f m${m}d$d.csv
  done
done
echo done > done.txt
