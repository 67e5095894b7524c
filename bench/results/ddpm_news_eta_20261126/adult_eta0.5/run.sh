# Adult DDPM (the Adult setting: all 32,561 rows, 10,000 iterations of 1,024 rows, target
# income, T = 1000, 100 strided steps), fits 0 and 1 (the models of record: fit 0's first
# draw scores what ../../ddpm_quantile_20261126/adult_eval0.json holds), then three draws of
# each sampled with DDIM noise 0.5 (seeds m + 1 + 100 d), each scored with evaluation seeds
# 0, 1, 2, by ../../ddpm_quantile_20261126/adult_three_draws/draws.sh.
# Usage: GENESIS_DATA=<folder> GENESIS_BIN=build/genesis bash run.sh
set -e
G=${GENESIS_BIN:-build/genesis}; D=${GENESIS_DATA:?set GENESIS_DATA}
for m in 0 1; do
  nice -n 10 "$G" fit -q --method ddpm -i "$D/adult.csv" -m adult_s$m.gen --iterations 10000 \
    --batch-size 1024 --seed $m --threads 1 --target income &
done
wait
DRAWS="0 1 2" SAMPLE_FLAGS="--ddim-eta 0.5" \
  bash "$(dirname "$0")/../../ddpm_quantile_20261126/adult_three_draws/draws.sh" adult_s0.gen adult_s1.gen
