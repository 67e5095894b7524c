#!/usr/bin/env bash
# run_tests.sh — the Python package's pytest suite against a built libgenesis.so, as CTest's
# `python_package` test runs it: run_tests.sh LIBGENESIS_PATH [SANITIZE=ON|OFF].
# The package is imported from this source tree (PYTHONPATH) and pointed at the library
# through GENESIS_LIBRARY. Exit 77 (CTest: skipped) with a message when no python3 with
# pandas, numpy and pytest is found ($GENESIS_PYTHON, python3 on PATH, /usr/bin/python3),
# or when the library was built with sanitizers (an ASan library cannot be loaded into an
# uninstrumented interpreter). Nothing is written into the source tree.
set -u
lib=${1:?usage: run_tests.sh LIBGENESIS_PATH [SANITIZE]}
sanitize=${2:-OFF}
here=$(cd "$(dirname "$0")" && pwd)
if [ "$sanitize" = ON ]; then
  echo "python_package: skipped in a sanitizer build (ctypes cannot load an ASan library)"
  exit 77
fi
py=""
for cand in ${GENESIS_PYTHON:-} python3 /usr/bin/python3; do
  command -v "$cand" >/dev/null 2>&1 || continue
  if "$cand" -c "import pandas, numpy, pytest" >/dev/null 2>&1; then
    py=$cand
    break
  fi
done
if [ -z "$py" ]; then
  echo "python_package: skipped: no python3 with pandas, numpy and pytest (scripts/setup.sh"
  echo "installs python3-pandas and python3-pytest; or set GENESIS_PYTHON to an interpreter)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
echo "python_package: $("$py" -c 'import sys, pandas; print(sys.executable, "pandas", pandas.__version__)')"
GENESIS_LIBRARY=$lib PYTHONPATH=$here/.. PYTHONDONTWRITEBYTECODE=1 \
  "$py" -m pytest -q -p no:cacheprovider --basetemp="$tmp/pytest" "$here"
