#!/usr/bin/env bash
# Sets up the checkout with the test tools (scripts/setup.sh --test), then runs
# every test: style, the C++ suite (GoogleTest, the brute-force cross-check,
# the reader fuzz driver), the Python suite, and a wheel built as `pip install`
# would build it on a machine with no system libraries, checked for what it
# links.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
VENV=${SHUANGKOU_VENV:-.venv}
PY="$VENV/bin/python"
export PATH="$PWD/$VENV/bin:$PATH"

echo "style: clang-format and ruff"
git ls-files 'cpp/*.h' 'cpp/*.cc' 'tests/*.h' 'tests/*.cc' 'bench/*.cc' | xargs clang-format --dry-run --Werror
"$PY" -m ruff check python tests/python bench scripts experiments
"$PY" -m ruff format --check python tests/python bench scripts experiments
"$PY" scripts/gen_docs.py --check

echo "C++ tests"
cmake -S . -B build/tests -G Ninja -DSHUANGKOU_BUILD_TESTS=ON -DSHUANGKOU_WERROR=ON \
  -DPython_EXECUTABLE="$PWD/$PY" >/dev/null
cmake --build build/tests -j "$(nproc)"
ctest --test-dir build/tests --output-on-failure -j "$(nproc)"

echo "Python tests"
# Two or more workers (pytest-xdist), each test file in one of them: much of the suite
# waits on subprocesses, browsers and Ray's start.
workers=$(nproc)
"$PY" -m pytest tests/python -q -n "$((workers > 2 ? workers : 2))" --dist loadfile

echo "wheel"
bash scripts/check_wheel.sh
