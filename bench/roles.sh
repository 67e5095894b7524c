#!/usr/bin/env bash
# roles.sh — column roles on real tables the tests never see: identifier columns on UCI
# Diabetes 130-US hospitals (101,766 encounters x 50 columns, CC BY 4.0; Strack et al. 2014,
# "Impact of HbA1c Measurement on Hospital Readmission Rates"), and a date plus a timestamp
# column on UCI Appliances energy prediction (19,735 rows at 10-minute steps from
# 2016-01-11 17:00:00; Candanedo et al. 2017).
#
#   bash bench/roles.sh [genesis-binary]      (default build/genesis)
#
# Inputs, both optional (a part whose input is missing says so and is skipped):
#   bench/data/diabetic_data.csv, or bench/data/dataset_diabetes.zip holding it (the
#     public repository PranavSharma008/Re-Admission-of-Diabetic-Patients-after-Discharge
#     ships that zip); bench/data/ is git-ignored.
#   $GENESIS_DATA/energy_data.csv (GENESIS_DATA defaults to ../shared/data, outside the
#     repository, as for the other benchmarks; ENERGY_CSV overrides the path): the energy
#     table without its date column, rows in time order; the script restores the documented
#     timestamps and adds a day column.
# Knobs: EPOCHS (default 10), ROWS (synthetic rows, default 20000), SEED (default 1),
#   METHODS (default "ctgan tvae").
# Checks (exit 1 when one fails): the id column comes out unique, in shape and never a real
# value, the fit line names it, the repeated patient number is reported; the date and the
# timestamp keep their text format. Prints a Markdown table of scores (genesis evaluate).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
G=${1:-$ROOT/build/genesis}
EPOCHS=${EPOCHS:-10}
ROWS=${ROWS:-20000}
SEED=${SEED:-1}
METHODS=${METHODS:-ctgan tvae}
GENESIS_DATA=${GENESIS_DATA:-$ROOT/../shared/data}
ENERGY_CSV=${ENERGY_CSV:-$GENESIS_DATA/energy_data.csv}
W=$(mktemp -d /tmp/genesis-roles.XXXXXX)
trap 'rm -rf "$W"' EXIT
FAILS=0
[ -x "$G" ] || { echo "roles.sh: no genesis binary at $G (make build first)" >&2; exit 1; }

fail() { echo "  FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { echo "  ok: $*"; }

# score FILE-REAL FILE-SYN -> "overall shapes pairs" and per-column shapes in $W/cols.txt
score() {
    "$G" evaluate --real "$1" --synthetic "$2" --skip detection,privacy,usefulness --json \
        2>"$W/ev.err" >"$W/ev.json" || { cat "$W/ev.err"; return 1; }
    python3 - "$W/ev.json" "$W/cols.txt" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
q = d["quality"]["all_pairs"]
print("%.3f %.3f %.3f" % (q["score"], q["column_shapes"], q["column_pair_trends"]))
with open(sys.argv[2], "w") as f:
    for c in d["quality"]["column_shapes"]:
        f.write("%s %s\n" % (c["column"], c["score"]))
EOF
}

echo "# column roles (genesis $("$G" --version 2>&1 | head -1 | awk '{print $2}'), $EPOCHS epochs, seed $SEED, $(nproc) cores)"

# ---- identifiers: UCI Diabetes ------------------------------------------------------------
DIAB=$ROOT/bench/data/diabetic_data.csv
if [ ! -f "$DIAB" ] && [ -f "$ROOT/bench/data/dataset_diabetes.zip" ]; then
    python3 -c "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); open(sys.argv[2],'wb').write(z.read('dataset_diabetes/diabetic_data.csv'))" \
        "$ROOT/bench/data/dataset_diabetes.zip" "$DIAB"
fi
if [ ! -f "$DIAB" ]; then
    echo "diabetes: skipped — no bench/data/diabetic_data.csv (or dataset_diabetes.zip)"
else
    echo "## UCI Diabetes: $(($(wc -l <"$DIAB") - 1)) rows"
    echo "| method | fit+sample s | encounter_id unique / copied | overall | shapes | pair trends |"
    echo "|---|---|---|---|---|---|"
    for m in $METHODS; do
        t0=$(date +%s.%N)
        "$G" generate -i "$DIAB" -o "$W/syn.csv" -n "$ROWS" --epochs "$EPOCHS" --seed "$SEED" \
            --method "$m" 2>"$W/gen.err" || { cat "$W/gen.err"; fail "$m: generate failed"; continue; }
        t1=$(date +%s.%N)
        grep -q 'identifier columns, not modelled.*: encounter_id ' "$W/gen.err" ||
            fail "$m: the fit line does not name encounter_id"
        grep -q '"patient_nbr" looks like an identifier but its values repeat' "$W/gen.err" ||
            fail "$m: no note on patient_nbr"
        ids=$(awk -F, 'FNR == 1 { next } FILENAME == ARGV[1] { real[$1] = 1; next }
            ($1 in real) { copied++ } ($1 in seen) { dup++ } { seen[$1] = 1 }
            END { printf "%d dup / %d copied", dup, copied }' "$DIAB" "$W/syn.csv")
        [ "$ids" = "0 dup / 0 copied" ] || fail "$m: encounter_id $ids"
        s=$(score "$DIAB" "$W/syn.csv") || { fail "$m: evaluate failed"; continue; }
        read -r ov sh pt <<<"$s"
        printf "| %s | %.0f | %s | %s | %s | %s |\n" "$m" "$(echo "$t1 - $t0" | bc)" "$ids" "$ov" "$sh" "$pt"
    done
fi

# ---- dates: the energy table with its timestamps -----------------------------------------
if [ ! -f "$ENERGY_CSV" ]; then
    echo "dates: skipped — no $ENERGY_CSV (set ENERGY_CSV)"
else
    python3 - "$ENERGY_CSV" "$W/dated.csv" <<'EOF'
import csv, datetime, sys
rows = list(csv.reader(open(sys.argv[1])))
t0 = datetime.datetime(2016, 1, 11, 17, 0, 0)
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["date", "day"] + rows[0])
    for i, r in enumerate(rows[1:]):
        t = t0 + datetime.timedelta(minutes=10 * i)
        w.writerow([t.strftime("%Y-%m-%d %H:%M:%S"), t.strftime("%Y-%m-%d")] + r)
EOF
    echo "## energy with a timestamp and a date column: $(($(wc -l <"$W/dated.csv") - 1)) rows"
    echo "| method | date KS | day KS | mean KS of the other columns | overall | pair trends |"
    echo "|---|---|---|---|---|---|"
    for m in $METHODS; do
        "$G" generate -i "$W/dated.csv" -o "$W/syn.csv" -n "$ROWS" --epochs "$EPOCHS" \
            --seed "$SEED" --method "$m" 2>"$W/gen.err" || { cat "$W/gen.err"; fail "$m: generate failed"; continue; }
        grep -q 'date columns.*date (%Y-%m-%d %H:%M:%S[^)]*), day (%Y-%m-%d)' "$W/gen.err" ||
            fail "$m: the fit line does not name the date columns"
        bad=$(awk -F, 'NR > 1 && ($1 !~ /^20[0-9][0-9]-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9]$/ ||
                                  $2 !~ /^20[0-9][0-9]-[01][0-9]-[0-3][0-9]$/) { print; exit }' "$W/syn.csv")
        [ -z "$bad" ] && ok "$m: date and timestamp keep their format" || fail "$m: format lost: $bad"
        s=$(score "$W/dated.csv" "$W/syn.csv") || { fail "$m: evaluate failed"; continue; }
        read -r ov sh pt <<<"$s"
        awk -v m="$m" -v ov="$ov" -v pt="$pt" '$1 == "date" { d = $2; next } $1 == "day" { y = $2; next }
            { s += $2; n++ } END { printf "| %s | %.3f | %.3f | %.3f | %s | %s |\n", m, d, y, s / n, ov, pt }' "$W/cols.txt"
    done
fi
[ "$FAILS" = 0 ] || { echo "roles.sh: $FAILS check(s) failed"; exit 1; }
