#!/usr/bin/env bash
# idcol.sh — CLI test of identifier columns: `genesis generate` on a table with an integer
# customer id, a numbered order code and a patient id that repeats; the fit line naming the
# identifier columns and the note on the repeated one; every written id unique, in the
# input's shape and never a real one; fit + sample through a model file; --id giving the
# repeated column a fresh id per row; --not-id; --id on free text failing with
# file:line:column.
#
#   bash tests/cli/idcol.sh <genesis-binary> <source-dir> [<build-dir>]
#
# Works in a private temporary folder removed on exit.
. "$(dirname "$0")/common.bash"

section "a table with identifiers"
awk 'BEGIN { print "customer_id,order_no,amount,patient_id,comment,kind_id";
             for (i = 0; i < 120; i++)
                 printf "%d,ORD-%05d-X,%d.%d,%d,fine %d then %d,%d\n", 5000 + 7 * i, 11 + i, i % 37, i % 10, i % 40, i, i + 1, i % 6 }' >"$W/in.csv"
FAST=(--epochs 1 --batch-size 40 --seed 4)
run gen "$G" generate "${FAST[@]}" -i "$W/in.csv" -o "$OUT/syn.csv" -n 250
[ "$RC" = 0 ] && pass "[gen] exit 0" || { fail "[gen] exit $RC"; show_err; }
grep -q 'identifier columns, not modelled.*: customer_id, order_no ' "$W/gen.err" &&
    pass "[gen] the fit line names customer_id and order_no" || { fail "[gen] no identifier line"; show_err; }
grep -q 'note: .*"patient_id" looks like an identifier but its values repeat (40 distinct in 120 rows' "$W/gen.err" &&
    pass "[gen] the repeated patient_id is reported" || { fail "[gen] no note on patient_id"; show_err; }
grep -q '"kind_id"' "$W/gen.err" && { fail "[gen] a note on kind_id, a code with 6 levels"; show_err; } ||
    pass "[gen] no note on kind_id (6 levels: a category)"
# unique, shaped like the input, no real value
check_ids() { # LABEL FILE COLUMN REGEX
    local bad
    bad=$(awk -F, -v c="$3" -v re="$4" 'FNR == 1 { next }
        FILENAME == ARGV[1] { real[$c] = 1; next }
        $c !~ re { print "shape: " $c; exit }
        ($c in real) { print "real value copied: " $c; exit }
        ($c in seen) { print "written twice: " $c; exit }
        { seen[$c] = 1 }' "$W/in.csv" "$2")
    [ -z "$bad" ] && pass "[$1] column $3 unique, in shape, no real value" || fail "[$1] column $3: $bad"
}
check_ids gen "$OUT/syn.csv" 1 '^[0-9]+$'
check_ids gen "$OUT/syn.csv" 2 '^ORD-[0-9][0-9][0-9][0-9][0-9]+-X$'
n=$(awk 'END { print NR - 1 }' "$OUT/syn.csv")
[ "$n" = 250 ] && pass "[gen] 250 rows" || fail "[gen] $n rows"

section "evaluate leaves identifier columns out"
run ev "$G" evaluate --real "$W/in.csv" --synthetic "$OUT/syn.csv" --skip detection,privacy,usefulness --json
if [ "$RC" = 0 ] && grep -q 'identifier columns, not scored.*: customer_id, order_no$' "$W/ev.err" &&
   ! grep -q '"column":[[:space:]]*"customer_id"' "$W/ev.out" && grep -q '"column":[[:space:]]*"amount"' "$W/ev.out"; then
    pass "[ev] customer_id and order_no named and not scored; amount scored"
else
    fail "[ev] exit $RC"; show_err; head -c 600 "$W/ev.out"
fi
run ev2 "$G" evaluate --real "$W/in.csv" --synthetic "$OUT/syn.csv" --skip detection,privacy,usefulness --json --not-id customer_id
if [ "$RC" = 0 ] && grep -q '"column":[[:space:]]*"customer_id"' "$W/ev2.out"; then
    pass "[ev2] --not-id customer_id scores it"
else
    fail "[ev2] exit $RC"; show_err
fi

section "model file, overrides, errors"
run fit "$G" fit "${FAST[@]}" -i "$W/in.csv" -m "$W/m.gen" -q
run s1 "$G" sample -m "$W/m.gen" -n 30 -o "$OUT/s1.csv" -q
[ "$RC" = 0 ] && [ "$(sed -n 2p "$OUT/s1.csv" | cut -d, -f2)" = "ORD-00131-X" ] &&
    pass "[sample] a saved model writes ORD-00131-X first (after the real maximum 130)" ||
    { fail "[sample] first order_no: $(sed -n 2p "$OUT/s1.csv")"; show_err; }
run forced "$G" generate "${FAST[@]}" -i "$W/in.csv" -o "$OUT/f.csv" --id patient_id --not-id order_no -q
[ "$RC" = 0 ] && pass "[forced] exit 0" || { fail "[forced] exit $RC"; show_err; }
check_ids forced "$OUT/f.csv" 4 '^[0-9]+$'
grep -q '^[^,]*,ORD-000[1-9][0-9]-X,' "$OUT/f.csv" && pass "[forced] --not-id order_no: real codes modelled" ||
    fail "[forced] order_no not modelled as a category"
rm -f "$OUT"/*
run badid "$G" generate "${FAST[@]}" -i "$W/in.csv" -o "$OUT/b.csv" --id comment
expect_error 1 "in.csv:2:5:" "fine 0 then 1" "drop it from --id"

echo
if [ "$NFAIL" -gt 0 ]; then
    echo "idcol.sh: $NFAIL check(s) FAILED, $NPASS passed"
    exit 1
fi
echo "idcol.sh: all $NPASS checks passed"
