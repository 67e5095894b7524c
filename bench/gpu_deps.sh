# gpu_deps.sh — sourced by the GPU session scripts (gpu_session.sh, gpu_run.sh, nccl_run.sh): unpacks the .deb
# files that bench/fetch_debs.sh downloaded (bench/debs) into $DEPS with
# `dpkg -x` (or ar + tar where dpkg is missing; never into /), points pkg-config, CMake and the
# dynamic loader at them, and fills the array CMAKE_EXTRA with the flags configure needs
# (including nvcc's path). Needs ROOT, DEPS and a `say` function.
#   gpu_deps_setup  -> 0 with the packages unpacked, 1 when there are no .deb files (then the
#                      build dependencies must already be installed)
MA=x86_64-linux-gnu
CMAKE_EXTRA=()
gpu_deps_setup() {
  local d f member l t pc debdir=""
  for d in "$ROOT/bench/debs"; do
    if ls "$d"/*.deb >/dev/null 2>&1; then debdir=$d; break; fi
  done
  local nvcc=/usr/local/cuda/bin/nvcc
  [ -x "$nvcc" ] || nvcc=$(command -v nvcc || true)
  [ -n "$nvcc" ] && CMAKE_EXTRA+=("-DCMAKE_CUDA_COMPILER=$nvcc")
  [ -n "$debdir" ] || return 1
  # unpacked by an earlier call on this machine (bench/gpu_session.sh's second call): reuse
  if [ -f "$DEPS/.unpacked" ] && [ "$(cat "$DEPS/.unpacked")" = "$(ls "$debdir"/*.deb)" ]; then
    say "reusing the packages unpacked in $DEPS"
  else
  say "unpacking $(find "$debdir" -maxdepth 1 -name '*.deb' | wc -l) packages from $debdir into $DEPS"
  rm -rf "$DEPS"
  mkdir -p "$DEPS"
  for f in "$debdir"/*.deb; do
    if command -v dpkg >/dev/null 2>&1; then
      dpkg -x "$f" "$DEPS" || { say "dpkg -x $f failed"; return 1; }
    else
      member=$(ar t "$f" | grep '^data\.tar')
      case $member in
        *.xz) ar p "$f" "$member" | tar -xJ -C "$DEPS" ;;
        *.zst) ar p "$f" "$member" | zstd -dc | tar -x -C "$DEPS" ;;
        *.gz) ar p "$f" "$member" | tar -xz -C "$DEPS" ;;
        *) ar p "$f" "$member" | tar -x -C "$DEPS" ;;
      esac
    fi
  done
  # absolute symlinks (zlib's libz.so -> /lib/...) point into the unpacked tree instead
  find "$DEPS" -type l | while read -r l; do
    t=$(readlink "$l")
    case $t in /*) [ -e "$DEPS$t" ] && ln -sfn "$DEPS$t" "$l" ;; esac
  done
  # the .pc files name /usr: make them name the unpacked tree
  for pc in "$DEPS/usr/lib/$MA"/pkgconfig/*.pc "$DEPS/usr/lib/$MA"/openblas-openmp/pkgconfig/*.pc \
            "$DEPS"/usr/share/pkgconfig/*.pc; do
    [ -f "$pc" ] && sed -i "s#=/usr#=$DEPS/usr#g; s#-I/usr/#-I$DEPS/usr/#g; s#-L/usr/#-L$DEPS/usr/#g" "$pc"
  done
  ls "$debdir"/*.deb >"$DEPS/.unpacked"
  fi
  export PKG_CONFIG_PATH="$DEPS/usr/lib/$MA/openblas-openmp/pkgconfig:$DEPS/usr/lib/$MA/pkgconfig:$DEPS/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$DEPS/usr/lib/$MA:$DEPS/usr/lib/$MA/openblas-openmp:$DEPS/lib/$MA${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if ! command -v pkg-config >/dev/null 2>&1; then
    CMAKE_EXTRA+=("-DPKG_CONFIG_EXECUTABLE=$DEPS/usr/bin/pkgconf")
    export PATH="$PATH:$DEPS/usr/bin"
    say "no pkg-config on this machine: using the unpacked pkgconf"
  fi
  CMAKE_EXTRA+=("-DCMAKE_PREFIX_PATH=$DEPS/usr" "-DCMAKE_INCLUDE_PATH=$DEPS/usr/include"
                "-DCMAKE_LIBRARY_PATH=$DEPS/usr/lib/$MA;$DEPS/lib/$MA")
  return 0
}
