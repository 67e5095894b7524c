G=/work/main/build/genesis
run() { /usr/bin/time -f "%U user %e wall" -o $1.fit.time nice -n 10 $G fit -i $2 -m $1.gen --seed 0 --threads 1 --target $3 -q > $1.fit.log 2>&1; }
run adult /work/tmp/papers2/train.csv income
run bank bank_train.csv y
run males males_train.csv union
run chile chile_train.csv vote
echo alldone > fits.done
