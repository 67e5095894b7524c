#!/usr/bin/env bash
# determinism.sh — same seed, same bytes (generate; fit then sample); different seeds,
# different output; --save then sample round trip; conditioned sampling; integer columns
# stay whole numbers inside the real range; categories come from the input; exact row
# counts around batch boundaries. Without --method these are the default's (DDPM; --epochs
# N is N passes over the rows); conditioned sampling is CTGAN's. CSV checks use python3's csv module (csvcheck.py).
#
#   bash tests/cli/determinism.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

FAST=(-q --threads 1 --epochs 1)
cd "$W" || exit 1

same() { # LABEL A B
    if cmp -s "$2" "$3"; then pass "$1: byte-identical"; else fail "$1: outputs differ ($(cmp "$2" "$3" 2>&1 | head -1))"; fi
}
differ() { # LABEL A B
    if cmp -s "$2" "$3"; then fail "$1: outputs are identical, expected them to differ"; else pass "$1: outputs differ"; fi
}
rows_are() { # LABEL FILE N
    local n
    n=$(nrecords "$2")
    if [ "$n" = "$3" ]; then pass "$1: $3 rows"; else fail "$1: expected $3 rows, got '$n'"; fi
}

# ---------------------------------------------------------------------------------------
section "generate: same seed -> same bytes, different seed -> different output"

run gen_s7a "$G" generate "${FAST[@]}" -i "$ADULT" -o "$OUT/s7a.csv" -n 300 --seed 7
expect_ok
run gen_s7b "$G" generate "${FAST[@]}" -i "$ADULT" -o "$OUT/s7b.csv" -n 300 --seed 7
expect_ok
run gen_s8 "$G" generate "${FAST[@]}" -i "$ADULT" -o "$OUT/s8.csv" -n 300 --seed 8
expect_ok
same "[generate seed 7 twice]" "$OUT/s7a.csv" "$OUT/s7b.csv"
differ "[generate seed 7 vs 8]" "$OUT/s7a.csv" "$OUT/s8.csv"
rows_are "[generate -n 300]" "$OUT/s7a.csv" 300
csv "[generate] header equals the input's" same-header "$ADULT" "$OUT/s7a.csv"

# default thread count (all cores): still reproducible run to run
run gen_mt_a "$G" generate -q --epochs 1 -i "$ADULT" -o "$OUT/mta.csv" -n 200 --seed 9
expect_ok
run gen_mt_b "$G" generate -q --epochs 1 -i "$ADULT" -o "$OUT/mtb.csv" -n 200 --seed 9
expect_ok
same "[generate, default threads, seed 9 twice]" "$OUT/mta.csv" "$OUT/mtb.csv"

# The thread count does not change the output: matrix products run over fixed tiles, each
# one single-threaded BLAS call, and every other parallel loop writes disjoint elements.
run thr_fit1 "$G" fit -q --epochs 1 --threads 1 -i "$ADULT" -m "$OUT/thr1.gen" --seed 5
expect_ok
run thr_fit2 "$G" fit -q --epochs 1 --threads 2 -i "$ADULT" -m "$OUT/thr2.gen" --seed 5
expect_ok
same "[fit seed 5, --threads 1 vs --threads 2: model files]" "$OUT/thr1.gen" "$OUT/thr2.gen"
run thr_s1 "$G" sample -q -m "$OUT/thr1.gen" -o "$OUT/thr1.csv" -n 300 --seed 1 --threads 1
expect_ok
run thr_s2 "$G" sample -q -m "$OUT/thr1.gen" -o "$OUT/thr2.csv" -n 300 --seed 1 --threads 2
expect_ok
same "[sample one model seed 1, --threads 1 vs --threads 2]" "$OUT/thr1.csv" "$OUT/thr2.csv"

# '-' = stdin / stdout gives the same bytes as files
run_in gen_stdio "$ADULT" "$G" generate "${FAST[@]}" -i - -o - -n 300 --seed 7
expect_ok && same "[generate -i - -o - vs files, seed 7]" "$W/gen_stdio.out" "$OUT/s7a.csv"
rm -f "$OUT"/*

# ---------------------------------------------------------------------------------------
section "fit then sample: same seed -> same model and same rows"

run fit_a "$G" fit "${FAST[@]}" -i "$ADULT" -m "$OUT/fa.gen" --seed 11
expect_ok
run fit_b "$G" fit "${FAST[@]}" -i "$ADULT" -m "$OUT/fb.gen" --seed 11
expect_ok
same "[fit seed 11 twice: model files]" "$OUT/fa.gen" "$OUT/fb.gen"
run sample_a "$G" sample -q -m "$OUT/fa.gen" -o "$OUT/sa.csv" -n 400 --seed 3
expect_ok
run sample_b "$G" sample -q -m "$OUT/fa.gen" -o "$OUT/sb.csv" -n 400 --seed 3
expect_ok
run sample_c "$G" sample -q -m "$OUT/fb.gen" -o "$OUT/sc.csv" -n 400 --seed 3
expect_ok
run sample_d "$G" sample -q -m "$OUT/fa.gen" -o "$OUT/sd.csv" -n 400 --seed 4
expect_ok
same "[sample seed 3 twice]" "$OUT/sa.csv" "$OUT/sb.csv"
same "[sample seed 3 from the second identical model]" "$OUT/sa.csv" "$OUT/sc.csv"
differ "[sample seed 3 vs 4]" "$OUT/sa.csv" "$OUT/sd.csv"
no_tmp_left
rm -f "$OUT"/*

# ---------------------------------------------------------------------------------------
section "generate --save, then sample -m (CTGAN: the conditioned sampling below needs it)"

run gen_save "$G" generate --threads 1 --method ctgan --epochs 2 -q -i "$ADULT" -o "$OUT/g.csv" -n 50 --save "$W/m.gen" --seed 5
if expect_ok && [ -s "$W/m.gen" ]; then
    pass "[generate --save] wrote the model ($(stat -c %s "$W/m.gen") bytes)"
    rows_are "[generate --save -n 50]" "$OUT/g.csv" 50
    run sample_saved "$G" sample -q -m "$W/m.gen" -o "$OUT/s.csv" -n 123
    if expect_ok; then
        csv "[sample -m saved] header equals the input's" same-header "$ADULT" "$OUT/s.csv"
        rows_are "[sample -m saved -n 123]" "$OUT/s.csv" 123
    fi
    HAVE_MODEL=1
else
    fail "[generate --save] no model written; skipping the checks that need it"
    HAVE_MODEL=0
fi
no_tmp_left
rm -f "$OUT"/*

if [ "$HAVE_MODEL" = 1 ]; then
    # -------------------------------------------------------------------------------------
    section "conditioned sampling"

    run cond_spaced "$G" sample -q -m "$W/m.gen" -o "$OUT/c1.csv" -n 400 --seed 2 --condition "sex= Female"
    expect_ok && csv "[--condition 'sex= Female'] only ' Female'" only "$OUT/c1.csv" sex " Female"
    run cond_trimmed "$G" sample -q -m "$W/m.gen" -o "$OUT/c2.csv" -n 400 --seed 2 --condition "sex=Female"
    expect_ok && csv "[--condition 'sex=Female'] only ' Female'" only "$OUT/c2.csv" sex " Female"
    same "[--condition 'sex= Female' vs 'sex=Female', same seed]" "$OUT/c1.csv" "$OUT/c2.csv"
    rows_are "[conditioned -n 400]" "$OUT/c1.csv" 400
    csv "[conditioned] other categories from the input" subset "$ADULT" "$OUT/c1.csv"
    run cond_income "$G" sample -q -m "$W/m.gen" -o "$OUT/c3.csv" -n 300 --condition "income=>50K"
    expect_ok && csv "[--condition 'income=>50K'] only ' >50K'" only "$OUT/c3.csv" income " >50K"
    # two conditions on different columns: both hold on every row
    run cond_two "$G" sample -q -m "$W/m.gen" -o "$OUT/c4.csv" -n 300 --condition "sex=Male" --condition "race=White"
    if expect_ok && [ -n "$PY" ]; then
        r=$("$PY" - "$OUT/c4.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = [i for i, r in enumerate(rows) if r["sex"] != " Male" or r["race"] != " White"]
print(len(bad))
EOF
)
        [ "$r" = 0 ] && pass "[two conditions] every row has sex=Male and race=White" || fail "[two conditions] $r rows miss a condition"
    fi
    # two values of one column: they alternate row by row
    run cond_alt "$G" sample -q -m "$W/m.gen" -o "$OUT/c6.csv" -n 300 --condition "race=White" --condition "race=Black"
    if expect_ok && [ -n "$PY" ]; then
        r=$("$PY" - "$OUT/c6.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
want = [" White", " Black"]
print(sum(1 for i, r in enumerate(rows) if r["race"] != want[i % 2]))
EOF
)
        [ "$r" = 0 ] && pass "[one column, two values] rows alternate White/Black" || fail "[one column, two values] $r rows out of turn"
    fi
    run cond_generate "$G" generate "${FAST[@]}" --method ctgan -i "$ADULT" -o "$OUT/c5.csv" -n 200 --condition "sex=Female"
    expect_ok && csv "[generate --condition 'sex=Female'] only ' Female'" only "$OUT/c5.csv" sex " Female"
    no_tmp_left
    rm -f "$OUT"/*

    # -------------------------------------------------------------------------------------
    section "row counts around the batch size (500)"

    for n in 1 499 500 501 1234; do
        run "rows_$n" "$G" sample -q -m "$W/m.gen" -o "$OUT/n$n.csv" -n "$n" --seed "$n"
        if expect_ok; then
            rows_are "[sample -n $n]" "$OUT/n$n.csv" "$n"
            lines=$(wc -l <"$OUT/n$n.csv")
            [ "$lines" = $((n + 1)) ] && pass "[sample -n $n] $((n + 1)) lines (header + rows, newline-terminated)" \
                || fail "[sample -n $n] expected $((n + 1)) lines, got $lines"
        fi
    done
    no_tmp_left

    # -------------------------------------------------------------------------------------
    section "values: integers stay whole and in range, categories come from the input"

    csv "[age] whole numbers inside the real [min, max]" integers "$ADULT" "$OUT/n1234.csv" age
    csv "[every integer-valued column] whole numbers inside the real [min, max]" integers "$ADULT" "$OUT/n1234.csv"
    csv "[every categorical column] only categories seen in the input" subset "$ADULT" "$OUT/n1234.csv"
    run gen_values "$G" generate "${FAST[@]}" -i "$ADULT" -o "$OUT/v.csv" -n 1000 --seed 21
    if expect_ok; then
        csv "[generate] integer columns whole and in range" integers "$ADULT" "$OUT/v.csv"
        csv "[generate] categories from the input" subset "$ADULT" "$OUT/v.csv"
    fi
    rm -f "$OUT"/*
fi

# ---------------------------------------------------------------------------------------
MODELS=$("$G" info 2>/dev/null | sed -n 's/^models: //p')
if [[ ",$(echo "$MODELS" | tr -d ' ')," == *",tvae,"* ]]; then
    section "--method tvae (listed by genesis info: $MODELS)"
    run tvae_a "$G" generate "${FAST[@]}" --method tvae -i "$ADULT" -o "$OUT/ta.csv" -n 300 --seed 7 --save "$W/t.gen"
    expect_ok
    run tvae_b "$G" generate "${FAST[@]}" --method tvae -i "$ADULT" -o "$OUT/tb.csv" -n 300 --seed 7
    expect_ok
    run tvae_c "$G" generate "${FAST[@]}" --method tvae -i "$ADULT" -o "$OUT/tc.csv" -n 300 --seed 8
    expect_ok
    same "[tvae generate seed 7 twice]" "$OUT/ta.csv" "$OUT/tb.csv"
    differ "[tvae generate seed 7 vs 8]" "$OUT/ta.csv" "$OUT/tc.csv"
    rows_are "[tvae -n 300]" "$OUT/ta.csv" 300
    csv "[tvae] integer columns whole and in range" integers "$ADULT" "$OUT/ta.csv"
    csv "[tvae] categories from the input" subset "$ADULT" "$OUT/ta.csv"
    run tvae_sample "$G" sample -q -m "$W/t.gen" -o "$OUT/ts.csv" -n 501
    if expect_ok; then
        csv "[tvae sample -m saved] header equals the input's" same-header "$ADULT" "$OUT/ts.csv"
        rows_are "[tvae sample -m saved -n 501]" "$OUT/ts.csv" 501
    fi
    no_tmp_left
    rm -f "$OUT"/*
    # TVAE has no conditional vector: --condition is refused clearly
    run tvae_condition "$G" sample -q -m "$W/t.gen" -o "$OUT/tcond.csv" -n 10 --condition "sex=Female"
    expect_error 1 "condition" "tvae"
fi

finish
