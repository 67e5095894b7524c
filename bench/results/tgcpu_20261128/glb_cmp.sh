#!/bin/bash
# alternate two gru_layer_bench builds N times at batch B; min ms of each pass
B=${1:-256}; N=${2:-5}; shift 2
for i in $(seq $N); do for b in "$@"; do echo "$b $(./$b $B 20 | tail -1)"; done; done | awk '{k=$1; f=$5; w=$10; bi=$15; if(!(k in F)||f<F[k])F[k]=f; if(!(k in W)||w<W[k])W[k]=w; if(!(k in I)||bi<I[k])I[k]=bi} END{for(k in F) print k, "min ms: fwd", F[k], "bwd+wgrad", W[k], "bwd", I[k]}'
