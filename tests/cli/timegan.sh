#!/usr/bin/env bash
# timegan.sh — the CLI's TimeGAN path (docs/timegan.md): generate/fit/sample on one long
# series and on panel data (--entity/--time), the output layout (id column, time values
# from the real grid, seq-len rows per sequence, raw units inside the real range), the same
# seed giving the same bytes (on one thread and on two), the model-file round trip, evaluate --sequences, and bad input
# (too few rows for --seq-len, a missing entity column, a non-numeric time column, sequence
# flags without --method timegan, a model file from before the reset-after GRU cell): one
# "genesis: error:" line naming the file, non-zero exit.
#
#   bash tests/cli/timegan.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

FAST=(-q --threads 1 --method timegan --iterations 5 --hidden-dim 6 --num-layers 2 --batch-size 16)
cd "$W" || exit 1

# a long series (3 columns, one categorical with 3 levels) and a panel of 12 entities of
# uneven length (time steps 10, 20, ...); written with awk so the test needs no python
awk 'BEGIN { print "price,volume,regime";
             for (i = 0; i < 120; i++) printf "%.3f,%d,%s\n", 50 + 10 * sin(i / 7), 1000 + 37 * (i % 11), (i % 30 < 10 ? "low" : i % 30 < 20 ? "mid" : "high") }' >series.csv
awk 'BEGIN { print "store,day,sales,visits";
             for (e = 1; e <= 12; e++) for (t = 0; t < 20 + e; t++) printf "S%02d,%d,%.2f,%d\n", e, 10 * t, 100 + e * 5 + 20 * sin(t / 3 + e), 30 + (t * e) % 17 }' >panel.csv

section "one long series"
run series "$G" generate "${FAST[@]}" -i series.csv --seq-len 8 -n 7 -o "$OUT/s.csv" --seed 3 --save "$OUT/s.gen"
if expect_ok; then
    lines=$(wc -l <"$OUT/s.csv")
    [ "$lines" = 57 ] && pass "[series] 7 sequences x 8 rows + header" || fail "[series] $lines lines, expected 57"
    head -1 "$OUT/s.csv" | grep -qx 'sequence,price,volume,regime' && pass "[series] header: sequence id, then the columns" \
        || fail "[series] header is '$(head -1 "$OUT/s.csv")'"
    bad=$(awk -F, 'NR > 1 && ($2 < 40 - 1e-6 || $2 > 60 + 1e-6 || $3 != int($3) || ($4 != "low" && $4 != "mid" && $4 != "high")) { n++ } END { print n + 0 }' "$OUT/s.csv")
    [ "$bad" = 0 ] && pass "[series] raw units inside the real range, integers stay integers, categories are real levels" \
        || fail "[series] $bad rows out of range or with unknown levels"
    ids=$(awk -F, 'NR > 1 { print $1 }' "$OUT/s.csv" | uniq -c | awk '$1 != 8 { n++ } END { print n + 0 }')
    [ "$ids" = 0 ] && pass "[series] each sequence id covers 8 consecutive rows" || fail "[series] ragged sequence ids"
fi
run series_again "$G" generate "${FAST[@]}" -i series.csv --seq-len 8 -n 7 -o "$OUT/s2.csv" --seed 3
expect_ok && { cmp -s "$OUT/s.csv" "$OUT/s2.csv" && pass "[series] same seed, same bytes" || fail "[series] same seed gave different output"; }
# the same seed on one thread and on two: the same model bytes (the paper's network widths,
# batch 64, so that the GRU's row groups are split between the threads; docs/timegan.md §9)
WIDE=(-q --method timegan --iterations 3 --hidden-dim 24 --num-layers 3 --batch-size 64 -i series.csv --seq-len 24 -n 4 --seed 5)
run threads1 "$G" generate --threads 1 "${WIDE[@]}" -o "$OUT/t1.csv" --save "$OUT/t1.gen"
run threads2 "$G" generate --threads 2 "${WIDE[@]}" -o "$OUT/t2.csv" --save "$OUT/t2.gen"
expect_ok && { cmp -s "$OUT/t1.gen" "$OUT/t2.gen" && cmp -s "$OUT/t1.csv" "$OUT/t2.csv" \
    && pass "[series] same seed on 1 and 2 threads: same model and output bytes" \
    || fail "[series] the model or output differs between 1 and 2 threads"; }
run series_sample "$G" sample -q -m "$OUT/s.gen" -n 7 -o "$OUT/s3.csv" --seed 3
expect_ok && { cmp -s "$OUT/s.csv" "$OUT/s3.csv" && pass "[series] sample from the saved model = generate's output" \
    || fail "[series] the saved model samples differently"; }
run series_fit "$G" fit "${FAST[@]}" -i series.csv --seq-len 8 -m "$OUT/f.gen"
expect_ok && pass "[series] fit writes a model"

section "panel data (--entity, --time)"
run panel "$G" generate "${FAST[@]}" -i panel.csv --entity store --time day --seq-len 6 -n 5 -o "$OUT/p.csv"
if expect_ok; then
    head -1 "$OUT/p.csv" | grep -qx 'store,day,sales,visits' && pass "[panel] header: entity, time, features" \
        || fail "[panel] header is '$(head -1 "$OUT/p.csv")'"
    bad=$(awk -F, 'NR > 1 && ($2 % 10 != 0 || $2 < 0 || $2 > 310) { n++ } END { print n + 0 }' "$OUT/p.csv")
    [ "$bad" = 0 ] && pass "[panel] time values come from the real grid" || fail "[panel] $bad time values off the grid"
    mono=$(awk -F, 'NR > 1 { if ($1 == id && $2 <= prev) n++; id = $1; prev = $2 } END { print n + 0 }' "$OUT/p.csv")
    [ "$mono" = 0 ] && pass "[panel] time increases within each sequence" || fail "[panel] time goes back $mono times"
fi

section "missing values keep the token they were read as"
# a series whose numeric and categorical columns miss values written as NA: the output writes
# the missing values as NA too (not as empty fields), through the saved model as well
awk 'BEGIN { print "level,flow,state";
             for (i = 0; i < 120; i++) printf "%s,%d,%s\n", (i % 4 == 1 ? "NA" : sprintf("%.2f", 10 + 3 * sin(i / 5))), 200 + (i % 9), (i % 5 == 2 ? "NA" : i % 2 ? "on" : "off") }' >na_series.csv
run na_series "$G" generate "${FAST[@]}" -i na_series.csv --seq-len 8 -n 30 -o "$OUT/na.csv" --seed 1 --save "$OUT/na.gen"
if expect_ok; then
    empty=$(awk -F, 'NR > 1 && ($2 == "" || $4 == "") { n++ } END { print n + 0 }' "$OUT/na.csv")
    nas=$(awk -F, 'NR > 1 && ($2 == "NA" || $4 == "NA") { n++ } END { print n + 0 }' "$OUT/na.csv")
    [ "$empty" = 0 ] && [ "$nas" -gt 0 ] && pass "[na] missing values written as NA ($nas rows), no empty field" \
        || fail "[na] $empty rows with an empty field, $nas with NA"
    run na_sample "$G" sample -q -m "$OUT/na.gen" -n 30 -o "$OUT/na2.csv" --seed 1
    expect_ok && { cmp -s "$OUT/na.csv" "$OUT/na2.csv" && pass "[na] the saved model keeps the token (same bytes)" \
        || fail "[na] the saved model writes missing values differently"; }
fi

section "evaluate --sequences"
run eval_seq "$G" evaluate --sequences --real panel.csv --synthetic "$OUT/p.csv" --entity store --time day --seq-len 6 \
    --repeats 1 --disc-iterations 5 --pred-iterations 5 --json
if expect_ok; then
    grep -q '"discriminative"' "$W/eval_seq.out" && grep -q '"predictive"' "$W/eval_seq.out" \
        && pass "[eval_seq] both scores reported" || fail "[eval_seq] $(cat "$W/eval_seq.out")"
fi
rm -f "$OUT"/*

section "calendar columns follow the time"
# hourly readings with the calendar split into columns (as many public series are): with
# --time the hour, day and month columns are written from the real windows the time values
# come from, so the hour advances by one each step as it does in the data; with
# --calendar none they are modelled as free features
awk 'BEGIN { print "No,year,month,day,hour,pm,wind";
             for (i = 0; i < 300; i++) { h = i % 24; d = 1 + int(i / 24);
               printf "%d,2010,1,%d,%d,%.1f,%s\n", i + 1, d, h, 80 + 30 * sin(i / 6) + (h > 7 && h < 20 ? 10 : 0), (i % 7 < 3 ? "NW" : "SE") } }' >hourly.csv
run calendar "$G" generate "${FAST[@]:1}" -i hourly.csv --time No --seq-len 12 -n 20 -o "$OUT/cal.csv" --seed 2 --save "$OUT/cal.gen"
if expect_ok; then
    head -1 "$OUT/cal.csv" | grep -qx 'sequence,No,year,month,day,hour,pm,wind' && pass "[calendar] the input's column order kept" \
        || fail "[calendar] header is '$(head -1 "$OUT/cal.csv")'"
    # within a sequence, each step's hour is the previous one + 1 (mod 24), as in the real rows
    bad=$(awk -F, 'NR > 1 { if ($1 == id && ($6 + 0) != (prev + 1) % 24) n++; id = $1; prev = $6 } END { print n + 0 }' "$OUT/cal.csv")
    [ "$bad" = 0 ] && pass "[calendar] the hour advances by one every step" || fail "[calendar] $bad steps where the hour does not advance by one"
    grep -q 'calendar column' "$W/calendar.err" && pass "[calendar] the decision is reported" || fail "[calendar] no note: $(head -3 "$W/calendar.err")"
    run calendar_sample "$G" sample -q -m "$OUT/cal.gen" -n 20 -o "$OUT/cal2.csv" --seed 2
    expect_ok && { cmp -s "$OUT/cal.csv" "$OUT/cal2.csv" && pass "[calendar] the saved model writes the same rows" \
        || fail "[calendar] the saved model writes different rows"; }
fi
run calendar_none "$G" generate "${FAST[@]}" -i hourly.csv --time No --seq-len 12 -n 20 -o "$OUT/caln.csv" --seed 2 --calendar none
if expect_ok; then
    bad=$(awk -F, 'NR > 1 { if ($1 == id && ($6 + 0) != (prev + 1) % 24) n++; id = $1; prev = $6 } END { print n + 0 }' "$OUT/caln.csv")
    [ "$bad" -gt 0 ] && pass "[calendar] --calendar none models the hour as a feature ($bad steps off by other than one)" \
        || fail "[calendar] --calendar none still wrote the real hours"
fi
rm -f "$OUT"/*
run calendar_bad "$G" generate "${FAST[@]}" -i hourly.csv --time No --seq-len 12 -n 2 -o "$OUT/o.csv" --calendar hour,minute
expect_error 2 "hourly.csv" "minute" "--calendar"
run calendar_method "$G" generate -q -i hourly.csv --calendar hour -o "$OUT/o.csv"
expect_error 2 "--calendar" "timegan"

section "bad input (clear error naming the file, non-zero exit, nothing written)"
run too_short "$G" generate "${FAST[@]}" -i series.csv --seq-len 500 -o "$OUT/o.csv"
expect_error 1 "series.csv" "seq-len 500"
run no_entity "$G" generate "${FAST[@]}" -i panel.csv --entity shop -o "$OUT/o.csv"
expect_error 2 "panel.csv" "shop" "--entity"
printf 'id,t,v\n1,a,3\n1,b,4\n1,c,5\n' >badtime.csv
run bad_time "$G" generate "${FAST[@]}" -i badtime.csv --entity id --time t --seq-len 2 -o "$OUT/o.csv"
expect_error 1 "badtime.csv" "'t'" "not numeric"
run entity_short "$G" generate "${FAST[@]}" -i panel.csv --entity store --time day --seq-len 40 -o "$OUT/o.csv"
expect_error 1 "panel.csv" "per entity"
run entity_no_method "$G" generate -q -i panel.csv --entity store -o "$OUT/o.csv"
expect_error 2 "--entity" "timegan"
run seqlen_no_method "$G" generate -q -i panel.csv --seq-len 5 -o "$OUT/o.csv"
expect_error 2 "--seq-len" "timegan"
run eval_flags "$G" evaluate --real panel.csv --synthetic panel.csv --seq-len 6
expect_error 2 "--sequences"
# a model written by genesis before the GRU became the reset-after cell (file format
# version 1; tests/data/timegan_v1.gen, a 2-unit TimeGAN fitted by that genesis)
run old_cell "$G" sample -q -m "$SRC/tests/data/timegan_v1.gen" -n 2 -o "$OUT/o.csv"
expect_error 1 "timegan_v1.gen" "older genesis" "GRU" "re-fit"

finish
