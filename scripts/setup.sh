#!/usr/bin/env bash
# Sets up a checkout: a virtual environment with the package built from this
# checkout installed into it. Run it as any user; only the first step, system
# packages a fresh machine may lack, needs root (or sudo), and it is skipped
# when they are there.
#
#   bash scripts/setup.sh           the package (then: .venv/bin/shuangkou ...)
#   bash scripts/setup.sh --test    also what the test suite needs
#
# System packages (Debian and Ubuntu names; apt-get installs the missing ones):
#   g++            the C++20 compiler for the extension
#   python3-dev    Python's headers, to compile an extension against them
#   python3-venv   the venv module with pip (Debian ships it apart from python3)
# and with --test:
#   libgtest-dev   GoogleTest, for the C++ test suite
#   clang-format   the C++ style check
#   chromium, chromium-driver, fonts-wqy-zenhei
#                  a real browser (and a Chinese font) for the web table's tests
# Nothing else comes from the system: CMake, Ninja, pybind11, nlohmann-json
# (headers) and every Python package come from PyPI into the virtual
# environment. On another Linux, install a C++20 compiler and Python's headers
# with its package manager, then run this script (or just `pip install .`).
#
# The virtual environment is $SHUANGKOU_VENV (default: .venv in the checkout),
# made with $PYTHON (default: python3), without system site packages, so a
# system Python that refuses `pip install` (PEP 668) is never touched.
# Activate it with `source .venv/bin/activate`, or call .venv/bin/... directly.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore

want_tests=0
for arg in "$@"; do
  case "$arg" in
    --test) want_tests=1 ;;
    -h | --help)
      sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "setup: unknown option '$arg' (use --test, or --help)" >&2
      exit 2
      ;;
  esac
done

PYTHON=${PYTHON:-python3}
VENV=${SHUANGKOU_VENV:-.venv}
if ! command -v "$PYTHON" >/dev/null; then
  echo "setup: '$PYTHON' not found: install Python 3.9 or newer (Debian: apt-get install python3)" >&2
  exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 9))'; then
  echo "setup: $("$PYTHON" --version 2>&1) is too old: Python 3.9 or newer is needed (set PYTHON=...)" >&2
  exit 1
fi

# --- 1. system packages (only what is missing) -------------------------------
need=()
command -v g++ >/dev/null || command -v c++ >/dev/null || need+=(g++)
"$PYTHON" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
  need+=(python3-dev)
[ -x "$VENV/bin/python" ] || "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
if ((want_tests)); then
  [ -f /usr/include/gtest/gtest.h ] || [ -f /usr/local/include/gtest/gtest.h ] || need+=(libgtest-dev)
  command -v clang-format >/dev/null || need+=(clang-format)
  command -v chromium >/dev/null || need+=(chromium)
  [ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
  [ -d /usr/share/fonts/truetype/wqy ] || need+=(fonts-wqy-zenhei)
fi
if ((${#need[@]})); then
  if ! command -v apt-get >/dev/null; then
    echo "setup: missing system packages (Debian names): ${need[*]}; install their equivalents with" \
      "your package manager, then run this again" >&2
    exit 1
  fi
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      echo "setup: missing system packages: ${need[*]}; as root run: apt-get install ${need[*]}" >&2
      exit 1
    fi
    SUDO=(sudo)
  fi
  echo "setup: installing system packages: ${need[*]}"
  "${SUDO[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
fi

# --- 2. the virtual environment ------------------------------------------------
if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating the virtual environment $VENV"
  "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"
"$PY" -m pip install -q --upgrade pip

# --- 3. the package ------------------------------------------------------------
# The build tools go into the venv and the build reuses build/ between runs
# (no build isolation), so a second setup only recompiles what changed.
# `pip install .` alone (with isolation) works too: pyproject.toml lists them.
"$PY" -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12" "nlohmann-json>=3.11" "cmeel-eigen>=3.4" "cmake>=3.22" ninja
target=.
((want_tests)) && target=".[test]" # the test tools: pyproject.toml's `test` extra
"$PY" -m pip install -q --no-build-isolation "$target"
echo "setup: $("$VENV/bin/shuangkou" --version) installed in $VENV (activate: source $VENV/bin/activate)"
