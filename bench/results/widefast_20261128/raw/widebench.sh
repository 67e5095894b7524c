#!/bin/bash
# both builds back to back: THREADS=1 bash bench/wide_tables.sh, 5,000 diabetic-like rows, 1,000 rows of the 200-column table
cd /tmp/wf
mkdir -p wt
[ -s wt/diabetic_5000.csv ] || head -n 5001 diab20k.csv > wt/diabetic_5000.csv
for b in base new5; do
  echo "== $b $(date -u +%H:%M)"
  LD_LIBRARY_PATH=/tmp/wf/$b THREADS=1 DDPM_SAMPLE_ROWS=500 nice -n 10 bash /work/wt-widefast/bench/wide_tables.sh /tmp/wf/$b/genesis /tmp/wf/wt.$b 5000 0 1000
done
