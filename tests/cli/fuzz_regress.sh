#!/usr/bin/env bash
# fuzz_regress.sh — every model file of the fuzzing regression corpus (fuzz/regress/model/,
# inputs that once crashed or allocated gigabytes; fuzz/regress/README.md) through
# `genesis sample`: exit 1 with one error line naming the file, no crash, no sanitizer report,
# no output file. Outside ASan the address space is capped (ulimit -v, 2 GiB), so a file that
# makes the loader ask for gigabytes fails here with "out of memory" instead of a format error.
source "$(dirname "$0")/common.bash"

section "fuzz/regress/model through genesis sample"
n=0
for f in "$SRC"/fuzz/regress/model/*.gen; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    b=$(basename "$f")
    if [ "$IS_ASAN" = 1 ]; then
        run "$b" "$G" sample -q -m "$f" -n 10 -o "$OUT/o.csv"
    else
        run "$b" bash -c 'ulimit -v 2097152 && exec "$@"' _ "$G" sample -q -m "$f" -n 10 -o "$OUT/o.csv"
    fi
    expect_error 1 "$b"
    if grep -q "out of memory" "$W/$b.err"; then fail "[$b] ran out of memory: $(head -1 "$W/$b.err")"; fi
done
if [ "$n" = 0 ]; then fail "no model files in $SRC/fuzz/regress/model"; fi
finish
