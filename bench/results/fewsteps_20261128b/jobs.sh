# usage: jobs.sh QUEUEFILE ; lines "table label seed flags..." ; mkdir locks so workers share a queue
G=/work/tmp/fewsteps/genesis_fs
cd /work/tmp/fewsteps
declare -A TR HO TG
TR[adult]=/work/tmp/papers2/train.csv; HO[adult]=/work/tmp/papers2/holdout.csv; TG[adult]=income
for t in bank males chile; do TR[$t]=${t}_train.csv; HO[$t]=${t}_hold.csv; done
TG[bank]=y; TG[males]=union; TG[chile]=vote
while true; do
  job=""
  while read -r t label seed flags; do
    [ -z "$t" ] && continue
    out=runs/$t.$label.s$seed
    [ -f $out.json ] && continue
    mkdir runs/$t.$label.s$seed.lock 2>/dev/null || continue
    job="$t $label $seed $flags"; break
  done < "$1"
  [ -z "$job" ] && break
  read -r t label seed flags <<< "$job"
  out=runs/$t.$label.s$seed
  n=$(( $(wc -l < ${TR[$t]}) - 1 ))
  /usr/bin/time -f "%U" -o $out.sample_cpu nice -n 10 $G sample -m $t.gen -n $n --seed $seed -o $out.csv --threads 1 -q $flags || { echo "FAIL sample $out"; continue; }
  nice -n 10 $G evaluate --real ${TR[$t]} --synthetic $out.csv --holdout ${HO[$t]} --target ${TG[$t]} --json -q --seed $seed --threads 1 > $out.json.tmp && mv $out.json.tmp $out.json || echo "FAIL eval $out"
  rm -f $out.csv
  echo "$(date +%T) $out $(cat $out.sample_cpu)"
done
