#!/usr/bin/env bash
# standalone.sh — the repository stands alone: no file in it refers to material outside it.
# A clone has no sibling ../shared folder and no steering documents, so code comments, docs,
# scripts and tests must cite files in the repository (docs/algorithms.md, docs/style.md, …)
# or public sources, never `../shared`, `/work/shared`, `specs/…` (or a spec's file name such
# as `metrics.md`), `STYLE.md`, `DESIGN.md` or `GPU.md`. The files checked are the tracked ones
# (`git ls-files`) when the source folder is a git checkout, else every file under it except
# build folders and caches. The only
# exceptions are the ALLOW list below: a file may contain the one token listed for it, and
# every other forbidden reference in that file still fails.
#
# The test first checks its own scanner on a small made-up tree (a reference must be caught,
# an allowed token must pass), so it cannot pass by matching nothing.
#
#   bash tests/cli/standalone.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

# Forbidden references (extended regular expressions): the folder, its documents, and the
# names of its spec files cited without their folder.
FORBID='\.\./shared|/work/shared|(^|[^A-Za-z0-9_.-])specs/|(^|[^A-Za-z0-9_])(STYLE|DESIGN|GPU)\.md'
FORBID+='|(^|[^A-Za-z0-9_])(ctgan_tvae|metrics|reliability|scale_out|peers)\.md'

# ALLOW: "path-glob<TAB>token". Matching files may contain `token` (a fixed string); it is
# removed from a line before the line is checked again.
ALLOW=(
    # Benchmarks that need tables the repository does not ship (UCI Adult's full splits,
    # TimeGAN's stock_data.csv) read them from $GENESIS_DATA; the default is ../shared/data,
    # a sibling folder of the developers' setup. Each documents this in its header and skips
    # with a message when the table is absent.
    "bench/run_cpu.sh	../shared/data"
    "bench/gen_sizes.sh	../shared/data"
    "bench/fetch_debs.sh	../shared/data"
    "bench/timegan_run.sh	../shared/data"
    "bench/timegan_protocol.sh	../shared/data"
    "bench/gpu_run.sh	../shared/data"
    "bench/gpu_generate.sh	../shared/data"
    "bench/tvae_argmax/run.sh	../shared/data"
    "bench/evaluate/timing.sh	../shared/data"
    "bench/roles.sh	../shared/data"
    "bench/precision.sh	../shared/data"
    "bench/quality/five_tables.sh	../shared/data"
    "bench/quality/ablation.sh	../shared/data"
    "bench/evaluate/parity.py	../shared/data"
    "bench/evaluate/parity_privacy.py	../shared/data"
    "bench/README.md	../shared/data"
    # Recorded benchmark results: the input path of each past run, kept as measured.
    "bench/results/*.jsonl	/work/shared/data/"
    # This test names the patterns it forbids.
    "tests/cli/standalone.sh	*"
)

# list_files ROOT — NUL-separated relative paths of the files to check.
list_files() {
    local root=$1
    if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
        [ "$(git -C "$root" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$root" && pwd -P)" ]; then
        git -C "$root" ls-files -z
    else
        (cd "$root" && find . \( -name .git -o -name 'build*' -o -name __pycache__ -o -name .venv \
            -o -path ./bench/debs \) -prune -o -type f -print0 | sed -z 's|^\./||')
    fi
}

# scan ROOT — prints "path:line: text" for every forbidden reference outside ALLOW.
scan() {
    local root=$1 f entry glob token line num text rest allowed
    while IFS= read -r -d '' f; do
        [ -f "$root/$f" ] || continue
        local tokens=()
        for entry in "${ALLOW[@]}"; do
            glob=${entry%%	*}
            token=${entry#*	}
            # shellcheck disable=SC2053
            if [[ $f == $glob ]]; then tokens+=("$token"); fi
        done
        while IFS= read -r line; do
            num=${line%%:*}
            text=${line#*:}
            rest=$text
            allowed=0
            for token in "${tokens[@]}"; do
                if [ "$token" = "*" ]; then allowed=1; break; fi
                rest=${rest//"$token"/}
            done
            [ "$allowed" = 1 ] && continue
            if printf '%s\n' "$rest" | grep -Eq -- "$FORBID"; then
                printf '%s:%s: %s\n' "$f" "$num" "$(printf '%s' "$text" | cut -c1-160)"
            fi
        done < <(grep -nIE -- "$FORBID" "$root/$f" 2>/dev/null)
    done < <(list_files "$root")
}

section "the scanner catches references and honours the allowlist"
T="$W/tree"
mkdir -p "$T/src" "$T/docs" "$T/bench/results" "$T/build/x"
printf '/* see specs/ctgan_tvae.md §2.3 */\n' >"$T/src/a.c"
printf 'as STYLE.md says\nand DESIGN.md\nGPU.md too\n' >"$T/docs/b.md"
printf 'DATA=${1:-${GENESIS_DATA:-../shared/data}/adult.csv}\n' >"$T/bench/run_cpu.sh"
printf '# ../shared/specs/timegan.md\n' >>"$T/bench/run_cpu.sh"
printf '{"table":"/work/shared/data/adult.csv"}\n' >"$T/bench/results/r.jsonl"
printf 'cat /work/shared/README.md\n' >"$T/src/c.sh"
printf '/* leak checks (metrics.md D4) */\n' >"$T/src/d.c"
printf 'docs/style.md and docs/algorithms.md; inspecs/ no; gpu.md no\n' >"$T/src/ok.c"
printf 'specs/x.md\n' >"$T/build/x/ignored.c"
got=$(scan "$T" | sort)
want=$(printf '%s\n' "bench/run_cpu.sh:2: # ../shared/specs/timegan.md" \
    "docs/b.md:1: as STYLE.md says" "docs/b.md:2: and DESIGN.md" "docs/b.md:3: GPU.md too" \
    "src/a.c:1: /* see specs/ctgan_tvae.md §2.3 */" "src/c.sh:1: cat /work/shared/README.md" \
    "src/d.c:1: /* leak checks (metrics.md D4) */" | sort)
if [ "$got" = "$want" ]; then
    pass "made-up tree: 7 references found, the allowed ones and build/ left alone"
else
    fail "made-up tree: scanner output differs"
    diff <(echo "$want") <(echo "$got") | sed 's/^/      | /'
fi

section "no file of the repository refers to material outside it"
found=$(scan "$SRC")
if [ -z "$found" ]; then
    pass "$(list_files "$SRC" | tr -cd '\0' | wc -c) files checked: no reference to ../shared, specs/, STYLE.md, DESIGN.md or GPU.md outside the allowlist"
else
    fail "references to material outside the repository (cite docs/ or a public source instead):"
    printf '%s\n' "$found" | sed 's/^/      | /'
fi

finish
