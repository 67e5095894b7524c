#!/usr/bin/env bash
# evaluate.sh — CLI test of `genesis evaluate`: exit codes (0 ok, 1 error, 2 usage), one
# "genesis: error:" line naming the problem for bad inputs (missing / extra column, type
# mismatch, empty synthetic file, unknown target, missing file), --json that parses,
# --report that writes a self-contained HTML file with inline SVG, and the human summary.
#
#   bash tests/cli/evaluate.sh <genesis-binary> <source-dir> [<build-dir>]
#
# Small data only (data/adult_sample.csv, 2000 rows, and cuts of it). Self-contained: works
# in a private temporary folder removed on exit.
set -u
G=${1:?usage: evaluate.sh <genesis-binary> <source-dir> [<build-dir>]}
SRC=${2:?usage: evaluate.sh <genesis-binary> <source-dir> [<build-dir>]}
case "$G" in /*) ;; *) G="$PWD/$G" ;; esac
ADULT="$SRC/data/adult_sample.csv"
[ -x "$G" ] || { echo "FAIL: $G is not executable"; exit 1; }
[ -r "$ADULT" ] || { echo "FAIL: $ADULT is missing"; exit 1; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
W=$(mktemp -d "${TMPDIR:-/tmp}/genesis-evaluate-test.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
PY=$(command -v python3 || true)

NFAIL=0
NPASS=0
pass() { NPASS=$((NPASS + 1)); echo "  ok: $*"; }
fail() { NFAIL=$((NFAIL + 1)); echo "  FAIL: $*"; }

# run LABEL cmd... : stdout/stderr to $W/LABEL.{out,err}, exit code in RC
run() {
    LAST=$1
    shift
    "$@" >"$W/$LAST.out" 2>"$W/$LAST.err" </dev/null
    RC=$?
    if [ "$RC" -ge 128 ]; then fail "[$LAST] crashed with exit code $RC"; fi
    if grep -Eq 'Sanitizer|runtime error:' "$W/$LAST.err"; then
        fail "[$LAST] sanitizer report"
        grep -E -A8 'Sanitizer|runtime error:' "$W/$LAST.err" | head -20 | sed 's/^/      | /'
    fi
}

# expect CODE PATTERN... : exit code CODE and one error line containing every PATTERN
expect() {
    local code=$1 p ok=1 line
    shift
    [ "$RC" = "$code" ] || { fail "[$LAST] exit code $RC, expected $code"; sed 's/^/      | /' "$W/$LAST.err" | head -5; ok=0; }
    if [ "$code" != 0 ]; then
        local n
        n=$(grep -c '^genesis: error: ' "$W/$LAST.err")
        [ "$n" = 1 ] || { fail "[$LAST] expected one 'genesis: error:' line, got $n"; ok=0; }
        line=$(grep -m1 '^genesis: error: ' "$W/$LAST.err")
        for p in "$@"; do
            [[ "$line" == *"$p"* ]] || { fail "[$LAST] message lacks '$p': $line"; ok=0; }
        done
        [ "$ok" = 1 ] && pass "[$LAST] exit $code: ${line#genesis: error: }"
    elif [ "$ok" = 1 ]; then
        pass "[$LAST] exit 0"
    fi
}

echo "== inputs"
head -1001 "$ADULT" >"$W/real.csv"
{ head -1 "$ADULT"; sed -n '1002,2001p' "$ADULT"; } >"$W/syn.csv"
cut -d, -f1-14 "$W/syn.csv" >"$W/syn_missing_income.csv"
sed '1s/$/,extra/; 2,$s/$/,0/' "$W/syn.csv" >"$W/syn_extra.csv"
sed '5s/^[0-9]*,/forty,/' "$W/syn.csv" >"$W/syn_text_age.csv"
head -1 "$ADULT" >"$W/syn_empty.csv"
: >"$W/syn_zero.csv"
printf '{"columns":[{"name":"education-num","type":"categorical"}]}\n' >"$W/meta.json"

echo "== usage errors (exit 2)"
run noargs "$G" evaluate
expect 2 "--real"
run nosyn "$G" evaluate --real "$W/real.csv"
expect 2 "--synthetic"
run badopt "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn.csv" --bogus
expect 2 "bogus"
run targetnohold "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn.csv" --target income
expect 2 "--holdout"
run badskip "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn.csv" --skip colour
expect 2 "colour"
run badrows "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn.csv" --dcr-rows -3
expect 2 "--dcr-rows"
run unknowntarget "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn.csv" --holdout "$W/syn.csv" --target salary
expect 2 "salary" "not a column"
run help "$G" evaluate --help
expect 0
if grep -q -- "--synthetic" "$W/help.out"; then pass "[help] lists --synthetic"; else fail "[help] no --synthetic in the help"; fi

echo "== data errors (exit 1)"
run nofile "$G" evaluate --real "$W/real.csv" --synthetic "$W/nope.csv"
expect 1 "nope.csv"
run missingcol "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn_missing_income.csv"
expect 1 '"income"' "missing"
run extracol "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn_extra.csv"
expect 1 '"extra"'
run mismatch "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn_text_age.csv"
expect 1 '"age"' "forty" "not a number"
run empty "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn_empty.csv"
expect 1 "syn_empty.csv" "no data rows"
run zero "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn_zero.csv"
expect 1 "syn_zero.csv" "empty"
run badmeta "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn.csv" --metadata "$W/nope.json"
expect 1 "nope.json"

echo "== outputs"
run summary "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn.csv" --holdout "$W/syn.csv" --target income -q
expect 0
for w in "Quality" "strong pairs" "Detection" "Validity" "NewRowSynthesis" "DCR overfitting" "logistic regression"; do
    if grep -q "$w" "$W/summary.out"; then pass "[summary] mentions '$w'"; else fail "[summary] lacks '$w'"; fi
done
run json "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn.csv" --metadata "$W/meta.json" --json --skip detection -q
expect 0
if [ -n "$PY" ]; then
    if "$PY" -m json.tool "$W/json.out" >/dev/null 2>&1; then pass "[json] parses with python3 -m json.tool"; else fail "[json] does not parse"; fi
    q=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["scores"]; print(0 <= s["quality"] <= 1 and 0 <= s["quality_threshold"] <= 1 and s["detection"] is None and [c["type"] for c in d["quality"]["column_shapes"] if c["column"]=="education-num"][0]=="categorical")' "$W/json.out")
    if [ "$q" = True ]; then pass "[json] scores in [0,1], skipped part null, metadata type applied"; else fail "[json] unexpected content: $q"; fi
else
    echo "  skip: python3 not found"
fi
run report "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn.csv" --report "$W/report.html" --skip detection -q
expect 0
if [ -s "$W/report.html" ] && grep -q "<svg" "$W/report.html"; then pass "[report] written with inline <svg>"; else fail "[report] missing or has no <svg>"; fi
if grep -Eq '<script|src="http|href="http' "$W/report.html"; then fail "[report] has a script or a network reference"; else pass "[report] no script, no network"; fi
left=$(find "$W" -maxdepth 1 -name '*.tmp.*' | head -1)
if [ -n "$left" ]; then fail "[report] temporary file left: $left"; else pass "[report] no temporary file left"; fi
run threads1 "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn.csv" --holdout "$W/syn.csv" --target income --json --threads 1 -q
expect 0
run threads2 "$G" evaluate --real "$W/real.csv" --synthetic "$W/syn.csv" --holdout "$W/syn.csv" --target income --json --threads 2 -q
expect 0
if [ -n "$PY" ]; then
    q=$("$PY" -c 'import json,sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b): d.pop("time_s")
print(a == b)' "$W/threads1.out" "$W/threads2.out")
    if [ "$q" = True ]; then pass "[threads] same results with 1 and 2 threads"; else fail "[threads] results depend on the thread count"; fi
fi
if [ -n "$PY" ]; then
    # the papers' scores: alpha / beta / DCR share always; XGBoost detection a number, or
    # null with the note saying how to get it in a build without XGBoost
    q=$("$PY" -c 'import json,sys
d = json.load(open(sys.argv[1])); s = d["scores"]; f = d["fidelity"]
ok = all(0 <= s[k] <= 1 for k in ("alpha_precision", "beta_recall", "dcr_share"))
x = f["detection_xgboost"]
ok = ok and (0 <= s["detection_xgboost"] <= 1 if x["available"] else
             s["detection_xgboost"] is None and "install libxgboost-dev" in x["note"])
ok = ok and f["dcr_share"]["ideal"] == 0.5 and "saturated" in f
m = f["tstr_xgboost"]
ok = ok and (0 <= s["tstr_xgboost_auc"] <= 1 and 0 <= s["trtr_xgboost_auc"] <= 1
             and m["trained_on_synthetic"]["best"]["n_estimators"] in (10, 50, 100)
             if m["available"] else s["tstr_xgboost_auc"] is None and "install" in m["note"])
print(ok)' "$W/threads1.out")
    if [ "$q" = True ]; then pass "[papers] alpha/beta, DCR share, XGBoost detection and TSTR AUC (or the note) in the JSON"; else fail "[papers] unexpected: $q"; fi
fi
if grep -q "The papers' scores" "$W/summary.out" && grep -q "DCR share" "$W/summary.out"; then
    pass "[summary] lists the papers' scores"
else
    fail "[summary] lacks the papers' scores"
fi
run identical "$G" evaluate --real "$W/real.csv" --synthetic "$W/real.csv" --json --skip detection,privacy -q
expect 0
if [ -n "$PY" ]; then
    q=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(abs(d["scores"]["quality"]-1) < 1e-12)' "$W/identical.out")
    if [ "$q" = True ]; then pass "[identical] quality 1.0 for a table against itself"; else fail "[identical] quality is not 1: $q"; fi
fi

echo
if [ "$NFAIL" -gt 0 ]; then
    echo "evaluate.sh: $NFAIL check(s) FAILED, $NPASS passed"
    exit 1
fi
echo "evaluate.sh: all $NPASS checks passed"
