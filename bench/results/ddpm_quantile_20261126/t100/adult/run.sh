# Adult DDPM with T = 100 diffusion steps (TabDDPM's tuned Adult setting), sampled with all
# 100; otherwise the Adult DDPM setting: 10,000 iterations of 1,024 rows, target income.
# Fits seeds 0 and 1 (two at once), then three sampling draws of each (seeds m + 1 + 100 d),
# each scored with evaluation seeds 0, 1, 2, by ../../adult_three_draws/draws.sh.
# Usage: GENESIS_DATA=<folder> GENESIS_BIN=build/genesis bash run.sh
set -e
G=${GENESIS_BIN:-build/genesis}; D=${GENESIS_DATA:?set GENESIS_DATA}
for m in 0 1; do
  nice -n 10 "$G" fit -q --method ddpm -i "$D/adult.csv" -m t100_s$m.gen --iterations 10000 \
    --batch-size 1024 --seed $m --threads 1 --target income --diffusion-steps 100 &
done
wait
DRAWS="0 1 2" SAMPLE_FLAGS="--sample-steps 0" \
  bash "$(dirname "$0")/../../adult_three_draws/draws.sh" t100_s0.gen t100_s1.gen
