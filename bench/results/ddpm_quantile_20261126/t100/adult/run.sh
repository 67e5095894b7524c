# Adult DDPM with T = 100 diffusion steps (TabDDPM's tuned Adult setting), sampled with all
# 100; otherwise the Adult DDPM setting: 10,000 iterations of 1,024 rows, target income.
# Three sampling draws (seeds m + 1 + 100 d), each scored with evaluation seeds 0, 1, 2.
# Usage: GENESIS_DATA=<folder> GENESIS_BIN=build/genesis bash run.sh FIT_SEED   (0 and 1)
set -e
G=${GENESIS_BIN:-build/genesis}; D=${GENESIS_DATA:?set GENESIS_DATA}; m=$1
nice -n 10 "$G" fit -q --method ddpm -i $D/adult.csv -m t100_s$m.gen --iterations 10000 --batch-size 1024 --seed $m --threads 1 --target income --diffusion-steps 100
for d in 0 1 2; do
  ss=$(( m + 1 + 100 * d ))
  "$G" sample -q -m t100_s$m.gen -n 32561 --seed $ss --sample-steps 0 -o m${m}d$d.csv --threads 1
  for es in 0 1 2; do
    "$G" evaluate --real "$D/adult.csv" --synthetic m${m}d$d.csv --holdout "$D/adult_test.csv" \
      --target income --seed $es --json -q --threads 1 > m${m}d${d}e$es.json
  done
  rm -f m${m}d$d.csv
done
echo done > done$m.txt
