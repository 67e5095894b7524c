# usage: measure.sh WORKER_TABLES... ; settings from SETTINGS env (label=flags;...)
G=/work/tmp/fewsteps/genesis_fs
cd /work/tmp/fewsteps
declare -A TR HO TG
TR[adult]=/work/tmp/papers2/train.csv; HO[adult]=/work/tmp/papers2/holdout.csv; TG[adult]=income
for t in bank males chile; do TR[$t]=${t}_train.csv; HO[$t]=${t}_hold.csv; done
TG[bank]=y; TG[males]=union; TG[chile]=vote
IFS=';' read -ra SETS <<< "$SETTINGS"
for set in "${SETS[@]}"; do
  label=${set%%=*}; flags=${set#*=}
  for seed in $SEEDS; do
    for t in "$@"; do
      out=runs/$t.$label.s$seed
      [ -f $out.json ] && continue
      n=$(( $(wc -l < ${TR[$t]}) - 1 ))
      /usr/bin/time -f "%U" -o $out.sample_cpu nice -n 10 $G sample -m $t.gen -n $n --seed $seed -o $out.csv --threads 1 -q $flags || { echo "FAIL sample $out"; continue; }
      nice -n 10 $G evaluate --real ${TR[$t]} --synthetic $out.csv --holdout ${HO[$t]} --target ${TG[$t]} --json -q --seed $seed --threads 1 > $out.json.tmp && mv $out.json.tmp $out.json || echo "FAIL eval $out"
      rm -f $out.csv
      echo "$(date +%T) $out $(cat $out.sample_cpu)"
    done
  done
done
