#!/usr/bin/env bash
# help_version.sh — `genesis --help` and every command's --help exit 0 and print usage on
# stdout (with --method NAME: that method's settings and defaults, from the parameter table;
# `genesis help COMMAND --method NAME` is the same); `genesis --version` prints the library
# version; `genesis info` exits 0 and says
# what it found about GPUs; no arguments is a usage error (2).
#
#   bash tests/cli/help_version.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

check_help() { # LABEL WORD args...
    local label=$1 word=$2
    shift 2
    run "$label" "$G" "$@"
    if [ "$RC" = 0 ] && grep -q "$word" "$W/$label.out" && [ ! -s "$W/$label.err" ]; then
        pass "[genesis $*] exit 0, usage on stdout"
    else
        fail "[genesis $*] exit $RC, stdout $(wc -c <"$W/$label.out") bytes (want '$word'), stderr: $(head -2 "$W/$label.err" | tr '\n' ' ')"
    fi
}

section "help"
check_help help Usage --help
check_help help_short Usage -h
check_help help_generate "genesis generate" generate --help
check_help help_sample "genesis sample" sample --help
check_help help_fit "genesis fit" fit --help
check_help help_info "genesis info" info --help
check_help help_inspect "genesis inspect" inspect --help
check_help help_generate_short "genesis generate" generate -h
# the training settings are listed (generated from the parameter table)
if grep -q -- '--epochs' "$W/help_generate.out" && grep -q -- '--batch-size' "$W/help_generate.out"; then
    pass "[generate --help] lists the model settings (--epochs, --batch-size)"
else
    fail "[generate --help] does not list --epochs / --batch-size"
fi
for flag in --input --output --rows --seed --condition --save; do
    grep -q -- "$flag" "$W/help_generate.out" || fail "[generate --help] does not mention $flag"
done
# one method's settings with its own defaults (the parameter table's, per kind)
check_help help_timegan "genesis generate" generate --method timegan --help
if grep -Eq -- '--batch-size +128 ' "$W/help_timegan.out" && grep -q -- '--seq-len' "$W/help_timegan.out" &&
    ! grep -q -- '--epochs' "$W/help_timegan.out" && ! grep -q -- '--condition' "$W/help_timegan.out"; then
    pass "[generate --method timegan --help] TimeGAN's settings and defaults only (batch 128, no --epochs)"
else
    fail "[generate --method timegan --help] expected --batch-size 128 and --seq-len, no --epochs or --condition"
fi
run help_form2 "$G" help generate --method timegan
cmp -s "$W/help_timegan.out" "$W/help_form2.out" && pass "[help generate --method timegan] = [generate --method timegan --help]" \
    || fail "[help generate --method timegan] differs from [generate --method timegan --help]"
check_help help_tvae "genesis fit" fit --help --method tvae
grep -Eq -- '--generator-dim +128 ' "$W/help_tvae.out" && pass "[fit --help --method tvae] TVAE's default width 128" \
    || fail "[fit --help --method tvae] no '--generator-dim 128'"

section "version"
HV=""
[ -r "$SRC/include/genesis/genesis.h" ] && HV=$(sed -n 's/^#define GENESIS_VERSION_STRING "\(.*\)"/\1/p' "$SRC/include/genesis/genesis.h")
run version "$G" --version
if [ "$RC" = 0 ] && grep -Eq '^genesis [0-9]+\.[0-9]+\.[0-9]+' "$W/version.out"; then
    pass "[--version] $(cat "$W/version.out")"
    if [ -n "$HV" ]; then
        grep -q "^genesis $HV\$" "$W/version.out" && pass "[--version] matches GENESIS_VERSION_STRING $HV" \
            || fail "[--version] prints '$(cat "$W/version.out")', the header says $HV"
    fi
else
    fail "[--version] exit $RC, printed '$(cat "$W/version.out")'"
fi
if [ -f "$SRC/CMakeLists.txt" ] && [ -n "$HV" ]; then
    PV=$(sed -n 's/^project(genesis VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
    [ -z "$PV" ] || [ "$PV" = "$HV" ] && pass "[version] CMake project version ${PV:-?} = header $HV" \
        || fail "[version] CMakeLists.txt says $PV, genesis.h says $HV"
fi

section "info"
run info "$G" info
if [ "$RC" = 0 ] && grep -q 'GPU' "$W/info.out"; then
    pass "[info] exit 0: $(grep 'GPU' "$W/info.out" | head -1)"
else
    fail "[info] exit $RC, output does not mention GPUs: $(head -5 "$W/info.out" | tr '\n' ' ')"
fi
grep -q "$("$G" --version)" "$W/info.out" && pass "[info] shows the version" || fail "[info] does not show '$("$G" --version)'"
grep -q "host memory" "$W/info.out" && pass "[info] shows the host's memory" || fail "[info] no host memory line"
# with no GPU the reason is a sentence a user can act on; with one, the versions are listed
if grep -q "^  cuda:" "$W/info.out"; then
    grep -q "cuBLAS" "$W/info.out" && pass "[info] GPU versions listed" || fail "[info] GPU listed without versions"
else
    grep -Eq "no CUDA backend|driver is not installed|no usable GPU" "$W/info.out" && pass "[info] says why there is no GPU: $(grep GPUs "$W/info.out")" || fail "[info] no reason for the missing GPU: $(grep GPUs "$W/info.out")"
fi
run info_extra "$G" info --bogus
expect_error 2 "--bogus"
# a named setting: its names, not numbers (docs/precision.md)
run precision_bad "$G" fit -i x.csv -m "$OUT/m.gen" --precision bf17
expect_error 2 "--precision must be one of fp32, tf32, bf16, fp16" "bf17"
run precision_number "$G" fit -i x.csv -m "$OUT/m.gen" --precision 2
expect_error 2 "--precision must be one of"
run precision_help "$G" fit --help
grep -q -- "--precision *fp32 *fp32|tf32|bf16|fp16" "$W/precision_help.out" && pass "[fit --help] lists the precisions by name" || fail "[fit --help] no precision names"

section "usage errors"
run noargs "$G"
if [ "$RC" = 2 ] && grep -q Usage "$W/noargs.out" "$W/noargs.err"; then
    pass "[genesis] with no arguments: exit 2 and usage"
else
    fail "[genesis] with no arguments: exit $RC (want 2 and the usage text)"
fi

finish
