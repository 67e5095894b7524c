#!/usr/bin/env bash
# layers.sh — the dependency rules of docs/architecture.md, "Layers": no file of the core
# (src/) includes a header of models/ (the core reaches the models only through the
# registry, src/model/model.h -> models/registry.c), the core is compiled without models/ on its
# include path (so such an include cannot build), only models/registry.c names every model's
# vtable, the memory model (estimate.c) and the sampling pipeline (sample_stream.c) do not
# call each other both ways (their shared sizes are in sample_size.c), and the CLI sees only
# the public header.
#
#   bash tests/cli/layers.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

# the core's files, in every subsystem folder of src/
mapfile -t CORE < <(find "$SRC/src" -name '*.[ch]' | sort)

section "src/ includes no header of models/"
bad=""
for h in "$SRC"/models/*.h; do
    name=$(basename "$h")
    [ -n "$(find "$SRC/src" -name "$name")" ] && continue # a core header of the same name wins
    hits=$(grep -lE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]([^\">]*/)?$name[\">]" \
           "${CORE[@]}" 2>/dev/null)
    [ -n "$hits" ] && bad="$bad $name:$(echo $hits | xargs -n1 basename | tr '\n' ',')"
done
if grep -qE '#[[:space:]]*include[[:space:]]*"(\.\./)+models/' "${CORE[@]}"; then
    bad="$bad ../models/"
fi
if [ -z "$bad" ]; then pass "no core file includes a models/ header"; else fail "core files include models/ headers:$bad"; fi

section "the build compiles src/ without models/ on its include path"
FLAGS="${BLD:-}/CMakeFiles/genesis_obj.dir/flags.make"
if [ -n "${BLD:-}" ] && [ -r "$FLAGS" ]; then
    if grep -E '^C_INCLUDES' "$FLAGS" | grep -q "$SRC/models"; then
        fail "genesis_obj (src/) has models/ on its include path ($FLAGS)"
    else
        pass "genesis_obj's include path has no models/"
    fi
else
    echo "  (no Makefile-generator flags file at $FLAGS: include-path check skipped)"
fi

section "only the registry names the models' vtables"
others=$(grep -lE 'gen_(ctgan|tvae|timegan)_vtable' "${CORE[@]}" "$SRC"/models/*.c \
         2>/dev/null | xargs -r -n1 basename | grep -vE '^(registry|ctgan_model|tvae_model|timegan_model)\.c$')
if [ -z "$others" ]; then pass "vtables named by registry.c and their own files only"; else fail "vtables named in: $others"; fi

section "the core does not switch on a model kind"
kinds=$(grep -nE 'case GENESIS_MODEL_|kind *== *(\([a-z0-9_]+\) *)?GENESIS_MODEL_' "${CORE[@]}" 2>/dev/null)
if [ -z "$kinds" ]; then pass "no kind switch in src/"; else fail "kind switches in src/: $kinds"; fi

section "no cycle between the memory model and the sampling pipeline"
OBJ="${BLD:-}/CMakeFiles/genesis_obj.dir/src/model"
if command -v nm >/dev/null 2>&1 && [ -r "$OBJ/estimate.c.o" ] && [ -r "$OBJ/sample_stream.c.o" ]; then
    defs=$(nm --defined-only "$OBJ/sample_stream.c.o" | awk '$2 ~ /[TD]/ {print $3}' | sort -u)
    uses=$(nm --undefined-only "$OBJ/estimate.c.o" | awk '{print $NF}' | sort -u)
    both=$(comm -12 <(echo "$defs") <(echo "$uses"))
    if [ -z "$both" ]; then pass "estimate.c calls nothing of sample_stream.c"; else fail "estimate.c calls sample_stream.c: $both"; fi
    defs=$(nm --defined-only "$OBJ/sample_size.c.o" 2>/dev/null | awk '$2 ~ /[TD]/ {print $3}' | sort -u)
    uses=$(nm --undefined-only "$OBJ/sample_size.c.o" 2>/dev/null | awk '{print $NF}' | sort -u)
    est=$(nm --defined-only "$OBJ/estimate.c.o" "$OBJ/sample_stream.c.o" | awk '$2 ~ /[TD]/ {print $3}' | sort -u)
    both=$(comm -12 <(echo "$est") <(echo "$uses"))
    if [ -n "$defs" ] && [ -z "$both" ]; then pass "sample_size.c is a leaf (calls neither)"; else fail "sample_size.c missing or calls: $both"; fi
else
    echo "  (objects not found under $OBJ: cycle check skipped)"
fi

section "each src/ folder includes only its own and lower subsystems"
# The subsystems of src/, lowest first (docs/architecture.md, "The source tree"): a file may
# include headers of its own folder and of folders before it. models/ and cuda/ sit above
# the core: models/ may include any core header but evaluate's; cuda/ (the CUDA backend)
# the backend's, the core's and comm's (its NCCL communicator).
LAYERS="core data backend backend/cpu comm transform model evaluate"
declare -A RANK=() HOME_OF=()
r=0; for l in $LAYERS; do RANK[$l]=$r; r=$((r + 1)); done
for f in "${CORE[@]}"; do d=${f#"$SRC/src/"}; HOME_OF[$(basename "$f")]=$(dirname "$d"); done
layer_bad=""
check_includes() { # file, the highest rank it may include (or the folder names it may)
    local f=$1 max=$2 allow=$3 h home
    for h in $(grep -hoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' "$f" | sed -E 's/.*"([^"]+)"/\1/'); do
        home=${HOME_OF[$(basename "$h")]:-}
        [ -z "$home" ] && continue # the folder's own or a public/system header
        if [ -n "$allow" ]; then
            [[ " $allow " == *" $home "* ]] || layer_bad="$layer_bad ${f#"$SRC/"}->$home/$(basename "$h")"
        elif [ "${RANK[$home]}" -gt "$max" ]; then
            layer_bad="$layer_bad ${f#"$SRC/"}->$home/$(basename "$h")"
        fi
    done
}
for f in "${CORE[@]}"; do
    d=${f#"$SRC/src/"}; d=$(dirname "$d")
    if [ -z "${RANK[$d]:-}" ]; then layer_bad="$layer_bad ${f#"$SRC/"}(folder $d is in no layer)"; continue; fi
    check_includes "$f" "${RANK[$d]}" ""
done
for f in "$SRC"/models/*.[ch]; do check_includes "$f" "${RANK[model]}" ""; done
for f in "$SRC"/cuda/*.cu "$SRC"/cuda/*.cuh; do check_includes "$f" 0 "core backend comm"; done
if [ -z "$layer_bad" ]; then pass "src/ folders, models/ and cuda/ include only the layers below them ($LAYERS)"
else fail "includes against the layers ($LAYERS):$layer_bad"; fi

section "the CLI includes only the public header"
cli=$(grep -hE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$SRC"/cli/*.c "$SRC"/cli/*.h 2>/dev/null |
      grep -vE '"(genesis/genesis\.h|[a-z_]+\.h)"' )
inner=""
for f in $(grep -hoE '#[[:space:]]*include[[:space:]]*"[a-z_]+\.h"' "$SRC"/cli/*.c "$SRC"/cli/*.h 2>/dev/null |
           grep -oE '[a-z_]+\.h' | sort -u); do
    [ -e "$SRC/cli/$f" ] || inner="$inner $f"
done
if [ -z "$cli$inner" ]; then pass "cli/ includes genesis.h and its own headers"; else fail "cli/ includes:$cli$inner"; fi

section "no model kind is tested outside models/ (traits come from the registry)"
# comparisons with or switch cases on a kind constant, and bits of a named kind, in the core and
# the CLI (models/ and the public header may name kinds); numeric kind tests in the Python package
kindre='(case[[:space:]]+GENESIS_MODEL_(CTGAN|TVAE|TIMEGAN|DDPM)\b|[=!]=[[:space:]]*(\([a-z_ ]+\)[[:space:]]*)?GENESIS_MODEL_(CTGAN|TVAE|TIMEGAN|DDPM)\b|GENESIS_MODEL_(CTGAN|TVAE|TIMEGAN|DDPM)[[:space:]]*[=!]=|GENESIS_MODEL_BIT[[:space:]]*\([[:space:]]*GENESIS_MODEL_)'
tests=$(find "$SRC/src" "$SRC/cli" -name '*.[ch]' -print0 2>/dev/null | xargs -0 -r grep -nE "$kindre" |
        sed "s|^$SRC/||")
pytests=$(find "$SRC/python/genesis" -name '*.py' -print0 2>/dev/null |
          xargs -0 -r grep -nE '_kind[[:space:]]*[=!]=[[:space:]]*[0-9]|[0-9][[:space:]]*[=!]=[[:space:]]*[A-Za-z_.]*_kind\b' |
          sed "s|^$SRC/||")
if [ -z "$tests$pytests" ]; then pass "no kind tests in src/, cli/ or python/genesis/"
else fail "kind tests outside models/ (ask genesis_model_kind_get_info or the features): $(printf '%s\n' "$tests" "$pytests" | sed '/^$/d' | tr '\n' ' ')"; fi

section "no include cycle among the files of src/ and models/"
# The module graph: a file's module is the .c file of its stem (a header whose stem has no .c
# file is its own module); `#include "x.h"` in a file is an edge from its module to x.h's.
files=$(find "$SRC/src" "$SRC/models" -name '*.[ch]' | sort)
declare -A cfile=()
for f in $files; do
    case "$f" in *.c) b=$(basename "$f" .c); cfile[$b]=${f#"$SRC"/} ;; esac
done
module() { # path relative to $SRC -> its module
    local b; b=$(basename "$1"); b=${b%.*}
    case "$1" in *.h) [ -n "${cfile[$b]:-}" ] && { echo "${cfile[$b]}"; return; } ;; esac
    echo "$1"
}
edges="$W/include_edges.txt"
: >"$edges"
for f in $files; do
    rel=${f#"$SRC"/}
    from=$(module "$rel")
    for inc in $(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$f"); do
        if [ -e "$(dirname "$f")/$inc" ]; then t=$(dirname "$f")/$inc
        else t=$(printf '%s\n' $files | awk -F/ -v n="$(basename "$inc")" '$NF == n { print; exit }')
        fi
        [ -n "$t" ] || continue # a system or public header
        to=$(module "$(realpath --relative-to="$SRC" "$t")")
        [ "$from" != "$to" ] && echo "$from $to" >>"$edges"
    done
done
sort -u -o "$edges" "$edges"
if loops=$(tsort "$edges" 2>&1 >/dev/null) && [ -z "$loops" ]; then
    pass "the include graph of $(echo $files | wc -w) files ($(wc -l <"$edges") module edges) has no cycle"
else
    fail "include cycle(s), the modules of each in brackets:$(echo "$loops" |
          sed -E 's/^tsort: //; s/^.*input contains a loop:$/] [/' | tr '\n' ' ' | sed -E 's/^\] //') ]"
fi

finish
