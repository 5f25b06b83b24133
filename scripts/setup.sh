#!/usr/bin/env bash
# Sets up a checkout: a virtual environment with the package built from this
# checkout installed into it. Run it as any user; only the first step, system
# packages a fresh machine may lack, needs root (or sudo), and it is skipped
# when they are there.
#
#   bash scripts/setup.sh           the package (then: .venv/bin/shuangkou ...)
#   bash scripts/setup.sh --test    also what the test suite needs
#   bash scripts/setup.sh --envs    also the envs extra: PettingZoo and Gymnasium (sk.env, gymnasium.make)
#   bash scripts/setup.sh --train   also the train extra: PyTorch (shuangkou train)
#   bash scripts/setup.sh --play    also the play extra: the web stack (shuangkou play, shuangkou replay)
#   bash scripts/setup.sh --all     also every extra of pyproject.toml (envs, play, train, openspiel,
#                                   ray, rllib, bench, test)
#   bash scripts/setup.sh --dry-run ...   print the commands it would run, run none
#
# --envs, --train, --play and --all install only the Python packages of those
# extras, as pyproject.toml's [project.optional-dependencies] lists them when
# the script runs. Into a virtual environment that already has the package they
# add just those packages and do not rebuild the C++ extension (run it without
# them to rebuild); into a new one they first build and install the package.
# Options combine: `--test --play`, `--envs --train`.
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

want_tests=0 dry_run=0 all_extras=0
extras=()
for arg in "$@"; do
  case "$arg" in
    --test) want_tests=1 ;;
    --envs | --train | --play) extras+=("${arg#--}") ;;
    --all) all_extras=1 ;;
    --dry-run) dry_run=1 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "setup: unknown option '$arg' (use --test, --envs, --train, --play, --all, --dry-run, or --help)" >&2
      exit 2
      ;;
  esac
done

# Runs a command, or with --dry-run prints it ("+ command") instead.
run() {
  if ((dry_run)); then
    printf '+'
    printf ' %q' "$@"
    printf '\n'
  else
    "$@"
  fi
}

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
PY="$VENV/bin/python"

# The package is built (step 3) unless only extras were asked for and the
# virtual environment already has it.
build=1
if ((${#extras[@]} || all_extras)) && ! ((want_tests)) && [ -x "$PY" ] &&
  "$PY" -c 'import shuangkou._core' 2>/dev/null; then
  build=0
fi

# --- 1. system packages (only what is missing) -------------------------------
need=()
if ((build)); then
  command -v g++ >/dev/null || command -v c++ >/dev/null || need+=(g++)
  "$PYTHON" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
    need+=(python3-dev)
  [ -x "$PY" ] || "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
fi
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
  run "${SUDO[@]}" apt-get update -qq
  if ((dry_run)); then
    run env DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${need[@]}"
  else
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

# --- 2. the virtual environment ------------------------------------------------
if [ ! -x "$PY" ]; then
  echo "setup: creating the virtual environment $VENV"
  run "$PYTHON" -m venv "$VENV"
fi

# --- 3. the package ------------------------------------------------------------
# The build tools go into the venv and the build reuses build/ between runs
# (no build isolation), so a second setup only recompiles what changed.
# `pip install .` alone (with isolation) works too: pyproject.toml lists them.
if ((build)); then
  run "$PY" -m pip install -q --upgrade pip
  run "$PY" -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12" "nlohmann-json>=3.11" "cmeel-eigen>=3.4" "cmake>=3.22" ninja
  target=.
  ((want_tests)) && target=".[test]" # the test tools: pyproject.toml's `test` extra
  run "$PY" -m pip install -q --no-build-isolation "$target"
fi

# --- 4. the extras: their packages only, as pyproject.toml lists them ----------
if ((${#extras[@]} || all_extras)); then
  # pyproject.toml read with the Python at hand: tomllib (3.11+), else tomli, else pip's own copy.
  reader=$PY
  [ -x "$reader" ] || reader=$PYTHON
  if ! packages=$("$reader" - "$all_extras" "${extras[@]}" <<'PY'
import sys
try:
    import tomllib
except ImportError:
    try:
        import tomli as tomllib
    except ImportError:
        from pip._vendor import tomli as tomllib
with open("pyproject.toml", "rb") as f:
    table = tomllib.load(f)["project"]["optional-dependencies"]
wanted = list(table) if sys.argv[1] == "1" else list(dict.fromkeys(sys.argv[2:]))
reqs = []
for name in wanted:
    if name not in table:
        sys.exit(f"setup: pyproject.toml has no extra named {name!r} (it has: {', '.join(table)})")
    reqs += [r for r in table[name] if r not in reqs]
print(" ".join(wanted))  # the first line: the extras' names; then one requirement a line
print("\n".join(reqs))
PY
  ); then
    exit 1
  fi
  mapfile -t reqs <<<"$packages"
  names=${reqs[0]}
  reqs=("${reqs[@]:1}")
  echo "setup: the Python packages of the extras $names (pyproject.toml): ${reqs[*]}"
  run "$PY" -m pip install -q "${reqs[@]}"
fi

if ((dry_run)); then
  echo "setup: dry run: nothing was installed"
else
  echo "setup: $("$VENV/bin/shuangkou" --version) installed in $VENV (activate: source $VENV/bin/activate)"
fi
