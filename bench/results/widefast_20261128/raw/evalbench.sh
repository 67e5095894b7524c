#!/bin/bash
# before/after evaluate: CPU time and peak RSS, base and new back to back, --threads 1
cd /tmp/wf
for t in diab adult; do
  if [ $t = diab ]; then R=diab20k.csv; S=diab20k.syn.csv; else R=${GENESIS_DATA:?the folder with Adult's adult.csv}/adult.csv; S=adult.syn.csv; fi
  for b in base new4; do
    LD_LIBRARY_PATH=/tmp/wf/$b nice -n 10 /usr/bin/time -v /tmp/wf/$b/genesis evaluate --real $R --synthetic $S --threads 1 --json > ev.$t.$b.json 2> ev.$t.$b.log
    echo "$t $b $(awk '/User time/ {u=$NF} /System time/ {s=$NF} /Maximum resident/ {m=$NF} /Elapsed/ {w=$NF} END {printf "user %s sys %s cpu %.1f wall %s rss_MB %.0f", u, s, u+s, w, m/1024}' ev.$t.$b.log)"
  done
done
