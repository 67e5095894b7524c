#!/usr/bin/env bash
# datetime.sh — CLI test of date columns: `genesis generate` on a table with an ISO date, a
# timestamp with fraction and zone, and a day/month/year column given with --datetime; the
# fit line naming the date columns; every generated value in the input's own format; fit +
# sample through a model file giving the same text; --not-datetime keeping a column as
# text; a bad date with --datetime failing with file:line:column; TimeGAN with an ISO date
# time column and a timestamp feature (written back in format through a model file) and
# refusing --id; `genesis evaluate` scoring the date columns as numbers (KS).
#
#   bash tests/cli/datetime.sh <genesis-binary> <source-dir> [<build-dir>]
#
# Works in a private temporary folder removed on exit.
. "$(dirname "$0")/common.bash"

section "a table with dates"
{
    echo "day,stamp,dmy,amount,kind"
    for i in $(seq 0 149); do
        printf '2023-%02d-%02d,2023-%02d-%02dT%02d:%02d:%02d.%02d+05:30,%02d/%02d/2022,%d.%d,%s\n' \
            $((i % 12 + 1)) $((i % 28 + 1)) $((i * 7 % 12 + 1)) $((i * 3 % 28 + 1)) $((i % 24)) \
            $((i * 13 % 60)) $((i * 29 % 60)) $((i * 37 % 100)) $((i % 28 + 1)) $((i % 12 + 1)) \
            $((i * 11 % 97)) $((i % 10)) "$( [ $((i % 3)) = 0 ] && echo a || echo b )"
    done
} >"$W/in.csv"

FAST=(--epochs 2 --batch-size 50 --seed 3)
run gen "$G" generate "${FAST[@]}" -i "$W/in.csv" -o "$OUT/syn.csv" --datetime 'dmy:%d/%m/%Y'
if [ "$RC" = 0 ]; then pass "[gen] exit 0"; else fail "[gen] exit $RC"; show_err; fi
if grep -q 'date columns.*day (%Y-%m-%d), stamp (%Y-%m-%dT%H:%M:%S.%f%z), dmy (%d/%m/%Y)' "$W/gen.err"; then
    pass "[gen] the fit line names the date columns and their formats"
else
    fail "[gen] no line naming the date columns"; show_err
fi
bad=$(awk -F, 'NR > 1 && $1 != "" && $1 !~ /^2023-[01][0-9]-[0-3][0-9]$/ { print; exit }' "$OUT/syn.csv")
[ -z "$bad" ] && pass "[gen] day written as YYYY-MM-DD" || fail "[gen] day not as read: $bad"
bad=$(awk -F, 'NR > 1 && $2 != "" && $2 !~ /^2023-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9][0-9]\+05:30$/ { print; exit }' "$OUT/syn.csv")
[ -z "$bad" ] && pass "[gen] stamp keeps 'T', two fraction digits and +05:30" || fail "[gen] stamp not as read: $bad"
bad=$(awk -F, 'NR > 1 && $3 != "" && $3 !~ /^[0-3][0-9]\/[01][0-9]\/2022$/ { print; exit }' "$OUT/syn.csv")
[ -z "$bad" ] && pass "[gen] dmy written as DD/MM/YYYY" || fail "[gen] dmy not as read: $bad"
n=$(awk 'END { print NR - 1 }' "$OUT/syn.csv")
[ "$n" = 150 ] && pass "[gen] 150 rows" || fail "[gen] $n rows"

section "fit, then sample from the model file"
run fit "$G" fit "${FAST[@]}" -i "$W/in.csv" -m "$W/m.gen" --datetime 'dmy:%d/%m/%Y'
[ "$RC" = 0 ] && pass "[fit] exit 0" || { fail "[fit] exit $RC"; show_err; }
run s1 "$G" sample -m "$W/m.gen" -n 40 --seed 9 -o "$OUT/s1.csv"
run s2 "$G" sample -m "$W/m.gen" -n 40 --seed 9 -o "$OUT/s2.csv"
if [ "$RC" = 0 ] && cmp -s "$OUT/s1.csv" "$OUT/s2.csv" && grep -q '+05:30' "$OUT/s1.csv"; then
    pass "[sample] the model file keeps the formats; the same seed gives the same bytes"
else
    fail "[sample] outputs differ or lost the format"; show_err
fi
rm -f "$OUT"/*

section "--not-datetime and bad dates"
run notdt "$G" generate "${FAST[@]}" -i "$W/in.csv" -o "$OUT/n.csv" --not-datetime day -q
bad=$(awk -F, 'NR > 1 && $1 != "" && $1 !~ /^2023-[01][0-9]-[0-3][0-9]$/ { print; exit }' "$OUT/n.csv")
if [ "$RC" = 0 ] && [ -z "$bad" ] && ! grep -q 'day (%Y' "$W/notdt.err"; then
    pass "[notdt] day kept as a category"
else
    fail "[notdt] exit $RC / $bad"; show_err
fi
rm -f "$OUT"/*
sed '5s/^[^,]*/2023-02-31/' "$W/in.csv" >"$W/bad.csv"
run baddate "$G" generate "${FAST[@]}" -i "$W/bad.csv" -o "$OUT/b.csv" --datetime day
expect_error 1 "bad.csv:5:1:" "2023-02-31" "does not exist"
run badfmt "$G" fit "${FAST[@]}" -i "$W/in.csv" -m "$W/x.gen" --datetime 'dmy:%Y/%q'
expect_error 2 "not supported"
rm -f "$OUT"/*

section "TimeGAN: an ISO date time column, a timestamp feature, through a model file"
awk 'BEGIN { print "store,day,stamp,amount"; for (e = 1; e <= 6; e++) for (t = 0; t < 20; t++)
    printf "S%d,2023-01-%02d,2023-03-%02dT%02d:%02d:00+05:30,%d\n", e, t + 1, (t * e) % 28 + 1, (t * 7) % 24, (t * 13) % 60, 10 * e + t }' >"$W/tg.csv"
TG=(-q --threads 1 --method timegan --iterations 5 --hidden-dim 6 --num-layers 2 --batch-size 8 --seq-len 5)
run tg_fit "$G" fit "${TG[@]}" -i "$W/tg.csv" --entity store --time day -m "$W/tg.gen"
run tg_sample "$G" sample -q -m "$W/tg.gen" -n 6 --seed 2 -o "$W/tg_out.csv"
if [ "$RC" = 0 ] && [ "$(head -1 "$W/tg_out.csv")" = store,day,stamp,amount ] && [ "$(wc -l <"$W/tg_out.csv")" = 31 ]; then
    bad=$(awk -F, 'NR > 1 && ($2 !~ /^2023-01-[0-2][0-9]$/ || $3 !~ /^2023-0[1-4]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\+05:30$/) { print; exit }' "$W/tg_out.csv")
    [ -z "$bad" ] && pass "[timegan] the time column and the timestamp are written in their formats" \
        || fail "[timegan] not as read: $bad"
else
    fail "[timegan] exit $RC or wrong layout"; show_err
fi
run tg_id "$G" fit "${TG[@]}" -i "$W/tg.csv" --entity store --id amount -m "$W/x.gen"
expect_error 2 "--id" "TimeGAN" "--entity"
rm -f "$OUT"/*

section "evaluate scores dates as numbers"
run gen2 "$G" generate "${FAST[@]}" -i "$W/in.csv" -o "$W/syn.csv" --datetime 'dmy:%d/%m/%Y' -q
run ev "$G" evaluate --real "$W/in.csv" --synthetic "$W/syn.csv" --datetime 'dmy:%d/%m/%Y' --json -q --skip detection
if [ "$RC" = 0 ] && [ -n "$PY" ]; then
    q=$("$PY" -c 'import json,sys
d = json.load(open(sys.argv[1]))
m = {c["column"]: c["metric"] for c in d["quality"]["column_shapes"]}
print(m["day"] == m["stamp"] == m["dmy"] == "KSComplement")' "$W/ev.out")
    [ "$q" = True ] && pass "[ev] date columns scored with KSComplement" || fail "[ev] $q"
elif [ "$RC" != 0 ]; then
    fail "[ev] exit $RC"; show_err
fi

echo
if [ "$NFAIL" -gt 0 ]; then
    echo "datetime.sh: $NFAIL check(s) FAILED, $NPASS passed"
    exit 1
fi
echo "datetime.sh: all $NPASS checks passed"
