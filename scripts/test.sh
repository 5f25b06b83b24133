#!/usr/bin/env bash
# Sets up the machine, then runs every test: the C++ suite (GoogleTest, the
# brute-force cross-check, the reader fuzz driver) and the Python suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Test-only packages: the environments are checked with the tools of their
# ecosystems; the sources with clang-format and ruff.
python3 -m pip install -q "gymnasium>=1.0" "pettingzoo>=1.24" "ruff>=0.5"

echo "style: clang-format and ruff"
git ls-files 'cpp/*.h' 'cpp/*.cc' 'tests/*.h' 'tests/*.cc' 'bench/*.cc' | xargs clang-format --dry-run --Werror
python3 -m ruff check python tests/python bench scripts experiments
python3 -m ruff format --check python tests/python bench scripts experiments
python3 scripts/gen_docs.py --check

cmake -S . -B build/tests -G Ninja -DSHUANGKOU_BUILD_TESTS=ON -DSHUANGKOU_WERROR=ON >/dev/null
cmake --build build/tests -j "$(nproc)"
ctest --test-dir build/tests --output-on-failure -j "$(nproc)"

python3 -m pytest tests/python -q
