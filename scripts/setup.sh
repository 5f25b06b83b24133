#!/usr/bin/env bash
# Installs everything the project needs on a fresh Debian machine (as root or
# with sudo), then builds and installs the Python package from this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1

DEBIAN_PACKAGES=(g++ cmake ninja-build libgtest-dev libbenchmark-dev libeigen3-dev nlohmann-json3-dev libyaml-cpp-dev zlib1g-dev clang-format)
missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

python3 -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12" "pytest>=7"
python3 -m pip install -q --no-build-isolation .
# Under pyenv a new console script needs a shim before the shell can find it.
if command -v pyenv >/dev/null; then pyenv rehash; fi
echo "setup: shuangkou $(python3 -c 'import shuangkou; print(shuangkou.__version__)') installed"
