#!/usr/bin/env bash
# install.sh — `cmake --install <build-dir> --prefix $TMP/prefix`, then use what was
# installed the ways a user would:
#   (a) pkg-config: compile examples/embed.c with `pkg-config --cflags --libs genesis` and
#       run it on data/adult_sample.csv (50 rows, 1 epoch);
#   (b) CMake: a tiny project with find_package(genesis) and genesis::genesis builds, links
#       the installed library and runs;
#   (c) the library has a versioned SONAME (libgenesis.so.0), exports exactly the functions
#       of the installed header include/genesis/genesis.h, and the installed CLI runs.
# Skips (77) when the build folder or the tools it needs are missing.
#
#   bash tests/cli/install.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

if [ -z "$BLD" ] || [ ! -f "$BLD/cmake_install.cmake" ]; then
    echo "SKIP: no CMake build folder given (or it has no cmake_install.cmake): '$BLD'"
    exit 77
fi
for tool in cmake cc; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "SKIP: '$tool' not found"
        exit 77
    fi
done
cd "$W" || exit 1
P="$W/prefix"

# An ASan/UBSan build's library needs the sanitizer runtimes in whatever links it.
SANFLAGS=()
if [ "$IS_ASAN" = 1 ]; then
    SANFLAGS=("-fsanitize=address,undefined")
    echo "note: sanitizer build; consumers are linked with ${SANFLAGS[*]}"
fi

# ---------------------------------------------------------------------------------------
section "cmake --install $BLD --prefix \$TMP/prefix"

run install cmake --install "$BLD" --prefix "$P"
if [ "$RC" != 0 ]; then
    fail "[install] cmake --install failed (exit $RC):"
    sed 's/^/      | /' "$W/install.err" | tail -15
    finish
fi
pass "[install] cmake --install succeeded ($(grep -c 'Installing\|Up-to-date' "$W/install.out") files)"

PC=$(find "$P" -name genesis.pc -path '*/pkgconfig/*' | head -1)
LIBSO=$(find "$P" -name 'libgenesis.so' | head -1)
if [ -z "$LIBSO" ]; then
    fail "[install] no libgenesis.so under the prefix: $(cd "$P" && find . -type f -o -type l | tr '\n' ' ')"
    finish
fi
LIBDIR=$(dirname "$LIBSO")
pass "[install] library in ${LIBDIR#"$P"/}"

# ---------------------------------------------------------------------------------------
section "(c) layout: header, SONAME, exported symbols, installed CLI"

HDR="$P/include/genesis/genesis.h"
if [ -f "$HDR" ]; then
    pass "[header] include/genesis/genesis.h installed"
    cmp -s "$HDR" "$SRC/include/genesis/genesis.h" && pass "[header] identical to the source header" \
        || fail "[header] installed header differs from $SRC/include/genesis/genesis.h"
else
    fail "[header] $HDR missing; include/ holds: $(cd "$P" && find include 2>/dev/null | tr '\n' ' ')"
fi

if command -v readelf >/dev/null 2>&1; then
    soname=$(readelf -d "$LIBSO" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
    if [ "$soname" = "libgenesis.so.0" ]; then
        pass "[soname] SONAME is libgenesis.so.0"
    else
        fail "[soname] SONAME is '$soname', expected libgenesis.so.0"
    fi
    if [ -e "$LIBDIR/libgenesis.so.0" ] && [ -L "$LIBSO" ]; then
        real=$(readlink -f "$LIBSO")
        case "$(basename "$real")" in
        libgenesis.so.0.*) pass "[soname] libgenesis.so -> libgenesis.so.0 -> $(basename "$real")" ;;
        *) fail "[soname] libgenesis.so resolves to $(basename "$real"), expected libgenesis.so.0.x.y" ;;
        esac
    else
        fail "[soname] expected libgenesis.so (symlink) and libgenesis.so.0 in $LIBDIR"
    fi
    if readelf -d "$LIBSO" | grep -Eq '\((RPATH|RUNPATH)\).*\[/'; then
        fail "[rpath] the installed library carries an absolute RPATH/RUNPATH: $(readelf -d "$LIBSO" | grep -E 'RPATH|RUNPATH')"
    else
        pass "[rpath] no absolute RPATH/RUNPATH in the installed library"
    fi
else
    echo "  skip: SONAME checks (no readelf)"
fi

if command -v nm >/dev/null 2>&1 && [ -f "$HDR" ]; then
    grep -oE 'GENESIS_API [^;{]*\(' "$HDR" | sed -E 's/\($//; s/.*[ *]//' | grep -E '^genesis_' | sort -u >"$W/declared.txt"
    nm -D --defined-only "$LIBSO" | awk '$2 ~ /^[TtWiI]$/ {print $3}' | sed 's/@.*//' | sort -u >"$W/exported.txt"
    missing=$(comm -23 "$W/declared.txt" "$W/exported.txt" | tr '\n' ' ')
    extra=$(comm -13 "$W/declared.txt" "$W/exported.txt" | grep -Ev '^(_init|_fini)$' | tr '\n' ' ')
    [ -z "$missing" ] && pass "[symbols] all $(wc -l <"$W/declared.txt") functions of genesis.h are exported" \
        || fail "[symbols] declared in genesis.h but not exported by the library: $missing"
    [ -z "$extra" ] && pass "[symbols] nothing exported beyond the public header" \
        || fail "[symbols] exported but not in genesis.h (visibility leak): $extra"
fi

# The installed programs run with LD_LIBRARY_PATH less its entries that hold a libgenesis (the
# build tree's): libgenesis can then come only from the prefix, while the system libraries a
# machine reaches through LD_LIBRARY_PATH (packages unpacked outside the loader's paths) load.
SYS_LDPATH=$(printf '%s' "${LD_LIBRARY_PATH:-}" | tr ':' '\n' | while read -r d; do
    [ -n "$d" ] && ! ls "$d"/libgenesis.so* >/dev/null 2>&1 && printf '%s:' "$d"; done | sed 's/:$//')
without_build_lib() {
    if [ -n "$SYS_LDPATH" ]; then env LD_LIBRARY_PATH="$SYS_LDPATH" "$@"; else env -u LD_LIBRARY_PATH "$@"; fi
}

if [ -x "$P/bin/genesis" ]; then
    run installed_cli without_build_lib "$P/bin/genesis" --version
    if [ "$RC" = 0 ] && grep -q "genesis $("$G" --version | awk '{print $2}')" "$W/installed_cli.out"; then
        pass "[cli] installed bin/genesis runs without the build tree on LD_LIBRARY_PATH: $(cat "$W/installed_cli.out")"
    else
        fail "[cli] installed bin/genesis --version: exit $RC, $(head -2 "$W/installed_cli.out" "$W/installed_cli.err" | tr '\n' ' ')"
    fi
    if command -v ldd >/dev/null 2>&1; then
        if without_build_lib ldd "$P/bin/genesis" | grep 'libgenesis' | grep -q "$P"; then
            pass "[cli] installed bin/genesis loads the installed libgenesis"
        else
            fail "[cli] installed bin/genesis does not load $LIBDIR/libgenesis: $(without_build_lib ldd "$P/bin/genesis" | grep libgenesis)"
        fi
    fi
else
    fail "[cli] bin/genesis not installed"
fi

# ---------------------------------------------------------------------------------------
section "(a) pkg-config + examples/embed.c"

if ! command -v pkg-config >/dev/null 2>&1; then
    echo "  skip: pkg-config not found"
elif [ -z "$PC" ]; then
    fail "[pkg-config] genesis.pc not installed under $P"
else
    pass "[pkg-config] ${PC#"$P"/} installed"
    PKG_CONFIG_PATH="$(dirname "$PC")"
    export PKG_CONFIG_PATH
    flags=$(pkg-config --cflags --libs genesis 2>&1)
    prc=$?
    if [ $prc != 0 ]; then
        fail "[pkg-config] pkg-config --cflags --libs genesis failed: $flags"
    else
        echo "  pkg-config --cflags --libs genesis: $flags"
        # the -I and -L folders must be the installed ones (a relocatable .pc may spell
        # them through ${pcfiledir}/../..)
        inc_ok=0
        lib_ok=0
        for f in $flags; do
            case $f in
            -I*) [ "$(readlink -f "${f#-I}")" = "$(readlink -f "$P/include")" ] && inc_ok=1 ;;
            -L*) [ "$(readlink -f "${f#-L}")" = "$(readlink -f "$LIBDIR")" ] && lib_ok=1 ;;
            esac
        done
        if [ $inc_ok = 1 ] && [ $lib_ok = 1 ]; then
            pass "[pkg-config] -I and -L resolve to the install prefix's include/ and ${LIBDIR#"$P"/}/"
        else
            fail "[pkg-config] genesis.pc does not point into the prefix it was installed to ($P): it gives '$flags' ($(grep '^prefix=' "$PC")); with the prefix fixed at configure time, 'cmake --install --prefix DIR' produces a .pc for the wrong place (make it relocatable: prefix=\${pcfiledir}/../..)"
        fi
        # shellcheck disable=SC2086
        run embed_cc cc "${SANFLAGS[@]}" "$SRC/examples/embed.c" $flags -o "$W/embed"
        if [ "$RC" = 0 ]; then
            pass "[embed] compiled with the pkg-config flags"
        else
            fail "[embed] cc examples/embed.c \$(pkg-config --cflags --libs genesis) failed: $(head -3 "$W/embed_cc.err" | tr '\n' ' ')"
            # go on with flags that do point into the prefix, to test the rest
            if flags2=$(pkg-config --define-prefix --cflags --libs genesis 2>/dev/null) && [[ "$flags2" == *"$P"* ]]; then
                :
            else
                flags2="-I$P/include -L$LIBDIR -lgenesis"
            fi
            echo "  retrying with: $flags2"
            # shellcheck disable=SC2086
            run embed_cc2 cc "${SANFLAGS[@]}" "$SRC/examples/embed.c" $flags2 -o "$W/embed"
            [ "$RC" = 0 ] || fail "[embed] does not compile even with $flags2: $(head -3 "$W/embed_cc2.err" | tr '\n' ' ')"
        fi
        if [ -x "$W/embed" ]; then
            run embed_run env LD_LIBRARY_PATH="$LIBDIR${SYS_LDPATH:+:$SYS_LDPATH}" "$W/embed" "$ADULT" 50 1
            if [ "$RC" = 0 ] && grep -q 'pulled 50 synthetic rows' "$W/embed_run.out"; then
                pass "[embed] $(grep 'pulled' "$W/embed_run.out" | head -1)"
                grep -q 'pulled 50 encoded rows of width [1-9]' "$W/embed_run.out" \
                    && pass "[embed] the encoded iterator: $(grep 'encoded' "$W/embed_run.out")" \
                    || fail "[embed] no encoded rows pulled: $(tail -n 2 "$W/embed_run.out")"
            else
                fail "[embed] exit $RC, expected 'pulled 50 synthetic rows': $(tail -n 2 "$W/embed_run.out" "$W/embed_run.err" | tr '\n' ' ')"
            fi
            if command -v ldd >/dev/null 2>&1; then
                LD_LIBRARY_PATH="$LIBDIR" ldd "$W/embed" | grep -q "$LIBDIR/libgenesis.so.0" \
                    && pass "[embed] runs against the installed libgenesis.so.0" \
                    || fail "[embed] does not load $LIBDIR/libgenesis.so.0: $(LD_LIBRARY_PATH="$LIBDIR" ldd "$W/embed" | grep genesis)"
            fi
        fi
    fi
    unset PKG_CONFIG_PATH
fi

# ---------------------------------------------------------------------------------------
section "(b) CMake find_package(genesis) + genesis::genesis"

mkdir -p consumer
cat >consumer/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.18)
project(genesis_consumer LANGUAGES C)
find_package(genesis 0.1 REQUIRED)
add_executable(x main.c)
target_link_libraries(x genesis::genesis)
EOF
cat >consumer/main.c <<'EOF'
#include <stdio.h>
#include <string.h>
#include <genesis/genesis.h>

int main(int argc, char **argv) {
    if (genesis_version_number() != GENESIS_VERSION_NUMBER) {
        fprintf(stderr, "header %s, library %s\n", GENESIS_VERSION_STRING, genesis_version_string());
        return 3;
    }
    genesis_ctx *ctx = NULL;
    genesis_table *t = NULL;
    if (genesis_ctx_create(&ctx) != GENESIS_OK) return 4;
    genesis_status st = genesis_table_read_csv(ctx, argv[1], NULL, &t);
    if (st != GENESIS_OK) {
        fprintf(stderr, "read: %s\n", genesis_errmsg(ctx));
        genesis_ctx_free(ctx);
        return 5;
    }
    printf("consumer: genesis %s read %lld rows x %d columns\n", genesis_version_string(),
           (long long)genesis_table_nrows(t), genesis_table_ncols(t));
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    (void)argc;
    return 0;
}
EOF
CMFLAGS=()
[ "$IS_ASAN" = 1 ] && CMFLAGS=(-DCMAKE_C_FLAGS="${SANFLAGS[*]}" -DCMAKE_EXE_LINKER_FLAGS="${SANFLAGS[*]}")
run consumer_configure cmake -S consumer -B consumer/build -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release "${CMFLAGS[@]}"
if [ "$RC" != 0 ]; then
    fail "[cmake] configuring a find_package(genesis) project failed: $(grep -m3 -i 'error\|could not' "$W/consumer_configure.err" "$W/consumer_configure.out" | tr '\n' ' ')"
else
    pass "[cmake] find_package(genesis 0.1 REQUIRED) found the installed package"
    run consumer_build cmake --build consumer/build
    if [ "$RC" != 0 ]; then
        fail "[cmake] building against genesis::genesis failed: $(grep -m3 -i 'error' "$W/consumer_build.out" "$W/consumer_build.err" | tr '\n' ' ')"
    else
        pass "[cmake] target_link_libraries(x genesis::genesis) builds"
        run consumer_run without_build_lib consumer/build/x "$ADULT"
        if [ "$RC" = 0 ] && grep -q 'read 2000 rows x 15 columns' "$W/consumer_run.out"; then
            pass "[cmake] runs: $(cat "$W/consumer_run.out")"
        else
            fail "[cmake] consumer exit $RC: $(cat "$W/consumer_run.out" "$W/consumer_run.err" | head -3 | tr '\n' ' ')"
        fi
        if command -v ldd >/dev/null 2>&1; then
            env -u LD_LIBRARY_PATH ldd consumer/build/x | grep -q "$LIBDIR/libgenesis.so.0" \
                && pass "[cmake] consumer loads the installed libgenesis.so.0" \
                || fail "[cmake] consumer does not load $LIBDIR/libgenesis.so.0: $(env -u LD_LIBRARY_PATH ldd consumer/build/x | grep genesis)"
        fi
    fi
fi
# a version the package does not provide is refused
mkdir -p consumer2
sed 's/find_package(genesis 0.1 REQUIRED)/find_package(genesis 1.0 REQUIRED)/' consumer/CMakeLists.txt >consumer2/CMakeLists.txt
cp consumer/main.c consumer2/
run consumer_badversion cmake -S consumer2 -B consumer2/build -DCMAKE_PREFIX_PATH="$P"
[ "$RC" != 0 ] && pass "[cmake] find_package(genesis 1.0) is refused by the 0.x package" \
    || fail "[cmake] find_package(genesis 1.0 REQUIRED) accepted the installed 0.x package"

finish
