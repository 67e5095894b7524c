# common.bash — helpers shared by the CLI shell tests (tests/cli/*.sh source this file).
# Not a test itself: CMake registers only tests/cli/*.sh.
#
# Each test is run as:  bash tests/cli/NAME.sh <genesis-binary> <source-dir> <build-dir>
# It works in a private `mktemp -d` folder removed on exit, never writes into the source
# tree, records every failed check and keeps going, and exits 1 if any check failed
# (77 = skipped).

set -u

G=${1:-}
SRC=${2:-}
BLD=${3:-}
if [ -z "$G" ] || [ -z "$SRC" ]; then
    echo "usage: bash $0 <genesis-binary> <source-dir> [<build-dir>]" >&2
    exit 2
fi
case "$G" in /*) ;; *) G="$PWD/$G" ;; esac
case "$SRC" in /*) ;; *) SRC="$PWD/$SRC" ;; esac
if [ -n "$BLD" ]; then case "$BLD" in /*) ;; *) BLD="$PWD/$BLD" ;; esac; fi
if [ ! -x "$G" ]; then
    echo "FAIL: genesis binary '$G' is missing or not executable" >&2
    exit 1
fi
ADULT="$SRC/data/adult_sample.csv"
if [ ! -r "$ADULT" ]; then
    echo "FAIL: $ADULT is missing" >&2
    exit 1
fi

# One BLAS thread unless the caller chose (CTest sets it too); keeps runs fast and quiet on
# a shared machine.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}

W=$(mktemp -d "${TMPDIR:-/tmp}/genesis-cli-test.XXXXXX") || { echo "FAIL: mktemp -d" >&2; exit 1; }
trap 'rm -rf "$W"' EXIT
OUT="$W/out"          # the only folder commands write their outputs into
mkdir -p "$OUT"

PY=""
for p in /usr/bin/python3 python3; do
    if command -v "$p" >/dev/null 2>&1; then PY=$(command -v "$p"); break; fi
done

NFAIL=0
NPASS=0
FAILS=()

pass() { NPASS=$((NPASS + 1)); echo "  ok: $*"; }
fail() {
    NFAIL=$((NFAIL + 1))
    FAILS+=("$*")
    echo "  FAIL: $*"
}
section() { echo; echo "== $*"; }

# Is the binary built with AddressSanitizer? (slower, more memory)
IS_ASAN=0
if command -v ldd >/dev/null 2>&1 && ldd "$G" 2>/dev/null | grep -q 'libasan'; then IS_ASAN=1; fi
if [ "$IS_ASAN" = 0 ] && grep -aq '__asan_init' "$G" 2>/dev/null; then IS_ASAN=1; fi

# run LABEL cmd...  — runs a command, stdout to $W/LABEL.out, stderr to $W/LABEL.err; sets
# RC and LAST (the label); fails the test on a crash (signal, exit >= 128) or a sanitizer
# report whatever the exit code.
RC=0
LAST=""
run() {
    LAST=$1
    shift
    local t0=$SECONDS
    "$@" >"$W/$LAST.out" 2>"$W/$LAST.err" </dev/null
    RC=$?
    [ -n "${GENESIS_TEST_TIMING:-}" ] && echo "  [time] $LAST: $((SECONDS - t0)) s"
    check_no_crash
}
# run_in LABEL INPUTFILE cmd... — same with stdin from a file.
run_in() {
    LAST=$1
    local in=$2
    shift 2
    "$@" >"$W/$LAST.out" 2>"$W/$LAST.err" <"$in"
    RC=$?
    check_no_crash
}

check_no_crash() {
    if [ "$RC" -ge 128 ]; then
        fail "[$LAST] crashed: exit code $RC (signal $((RC - 128)))"
        sed 's/^/      | /' "$W/$LAST.err" | head -20
    fi
    if grep -Eq 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|ERROR: .*Sanitizer' "$W/$LAST.err"; then
        fail "[$LAST] sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error:' "$W/$LAST.err")"
        grep -E -A12 'Sanitizer|runtime error:' "$W/$LAST.err" | head -40 | sed 's/^/      | /'
    fi
}

show_err() { sed 's/^/      | /' "$W/$LAST.err" | head -8; }

# out_clean — the output folder must be empty (no output, no temporary file); then empties it.
out_clean() {
    local left
    left=$(ls -A "$OUT")
    if [ -n "$left" ]; then
        fail "[$LAST] left files in the output folder: $(echo $left)"
        rm -rf "${OUT:?}"/* "${OUT:?}"/.[!.]* 2>/dev/null
        return 1
    fi
    return 0
}

# expect_error CODE PATTERN... — the last command must have exited with CODE, written
# exactly one "genesis: error: " line on stderr containing every PATTERN (fixed strings),
# and left nothing in $OUT.
expect_error() {
    local code=$1 p ok=1
    shift
    if [ "$RC" != "$code" ]; then
        fail "[$LAST] exit code $RC, expected $code"
        show_err
        ok=0
    fi
    local n
    n=$(grep -c '^genesis: error: ' "$W/$LAST.err")
    if [ "$n" != 1 ]; then
        fail "[$LAST] expected exactly one 'genesis: error: ' line on stderr, got $n"
        show_err
        ok=0
    fi
    local line
    line=$(grep -m1 '^genesis: error: ' "$W/$LAST.err")
    # the library names settings and functions in backquotes; the CLI must print its flags
    if [[ "$line" == *'`'* ]]; then
        fail "[$LAST] error message names an API name the CLI did not translate into a flag: $line"
        ok=0
    fi
    for p in "$@"; do
        if [[ "$line" != *"$p"* ]]; then
            fail "[$LAST] error message does not mention '$p': $line"
            ok=0
        fi
    done
    out_clean || ok=0
    if [ "$ok" = 1 ]; then pass "[$LAST] exit $code: ${line#genesis: error: }"; fi
}

# expect_ok — the last command must have exited 0 (files in $OUT are left for the caller).
expect_ok() {
    if [ "$RC" != 0 ]; then
        fail "[$LAST] exit code $RC, expected 0"
        show_err
        return 1
    fi
    return 0
}

# no_tmp_left — no temporary files (".NAME.tmp.XXXXXX") in $OUT.
no_tmp_left() {
    local t
    t=$(cd "$OUT" && ls -A | grep -E '\.tmp\.|^\.' || true)
    if [ -n "$t" ]; then
        fail "[$LAST] temporary files left in the output folder: $(echo $t)"
        return 1
    fi
    return 0
}

# Long statistical checks (an attack's AUC after hundreds of epochs) run unless
# GENESIS_SLOW_TESTS=0, which `make sanitize` sets: under the sanitizers the short fits of the
# same test run the same code, and the long ones would only repeat it at 3-5x the cost.
slow_tests() { [ "${GENESIS_SLOW_TESTS:-1}" != 0 ]; }

finish() {
    echo
    if [ "$NFAIL" -gt 0 ]; then
        echo "$(basename "$0"): $NFAIL check(s) FAILED, $NPASS passed:"
        local f
        for f in "${FAILS[@]}"; do echo "  - $f"; done
        exit 1
    fi
    echo "$(basename "$0"): all $NPASS checks passed"
    exit 0
}

# csv DESC CMD ARGS... — a csvcheck.py assertion (see that file); passes or fails the check.
# Sets CSV_OUT to what it printed. Without python3 the check is reported as skipped.
CSV_OUT=""
CSVCHECK="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/csvcheck.py"
csv() {
    local desc=$1
    shift
    if [ -z "$PY" ]; then
        echo "  skip: $desc (no python3)"
        CSV_OUT=""
        return 0
    fi
    CSV_OUT=$("$PY" "$CSVCHECK" "$@" 2>&1)
    local rc=$?
    if [ $rc = 0 ]; then
        pass "$desc: $(echo "$CSV_OUT" | tail -1)"
        return 0
    fi
    fail "$desc: $CSV_OUT"
    return 1
}

# nrecords FILE — prints the number of data records (python csv when available, else lines-1).
nrecords() {
    if [ -n "$PY" ]; then
        "$PY" "$CSVCHECK" count "$1" 2>/dev/null | tail -1
    else
        echo $(( $(wc -l <"$1") - 1 ))
    fi
}
