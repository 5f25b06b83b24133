#!/usr/bin/env bash
# Builds the C++ test suite with AddressSanitizer and UndefinedBehaviorSanitizer
# and runs it (about 3 minutes on 2 cores). Not part of CI, to keep CI short.
set -euo pipefail
cd "$(dirname "$0")/.."
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B build/asan -G Ninja -DSHUANGKOU_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build/asan -j "$(nproc)"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build/asan --output-on-failure -j "$(nproc)"
