#!/bin/bash
# alternate gru_layer_bench builds N times at batch B; median and min ms of each pass
B=${1:-256}; N=${2:-15}; shift 2
for i in $(seq $N); do for b in "$@"; do echo "$b $(/tmp/$b $B 20 | tail -1)"; done; done > /tmp/glb_med.raw
for b in "$@"; do
  for col in 5 10 15; do grep "^$b " /tmp/glb_med.raw | awk -v c=$col '{print $c}' | sort -n | awk -v b=$b -v c=$col '{a[NR]=$1} END{n=c==5?"fwd":c==10?"bwd+wgrad":"bwd"; printf "%s %s median %.3f min %.3f; ", b, n, a[int((NR+1)/2)], a[1]}'; done; echo
done
