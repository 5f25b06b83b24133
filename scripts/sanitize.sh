#!/usr/bin/env bash
# Builds the C++ test suite with AddressSanitizer and UndefinedBehaviorSanitizer
# and runs it (about 3 minutes on 2 cores), then the Python suite against a
# sanitized build of the module. Not part of CI, to keep CI short. Arguments
# go to pytest (e.g. -x, -k name).
set -euo pipefail
cd "$(dirname "$0")/.."
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B build/asan -G Ninja -DSHUANGKOU_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build/asan -j "$(nproc)"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build/asan --output-on-failure -j "$(nproc)"

# Then the Python suite against an ASan/UBSan build of the module, in a
# virtual environment of its own (build/asan-venv). The sanitizer runtimes are
# preloaded into the interpreter; leak checking is off there (CPython keeps
# objects alive until exit by design).
venv=build/asan-venv
base_python=${PYTHON:-python3}
[ -x "$venv/bin/python" ] || "$base_python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12" "nlohmann-json>=3.11" "cmake>=3.22" ninja
"$venv/bin/python" -m pip install -q --no-build-isolation ".[test]" -C build-dir=build/asan-python \
  -C cmake.build-type=RelWithDebInfo -C cmake.define.CMAKE_CXX_FLAGS="$flags" \
  -C cmake.define.CMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -C cmake.define.CMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined"
preload="$(g++ -print-file-name=libasan.so):$(g++ -print-file-name=libubsan.so)"
LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$venv/bin/python" -m pytest tests/python -q -p no:cacheprovider "$@"
