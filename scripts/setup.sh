#!/usr/bin/env bash
# Sets up a checkout: a virtual environment with the package built from this
# checkout installed into it. Run it as any user; only the first step, system
# packages a fresh machine may lack, needs root (or sudo), and it is skipped
# when they are there.
#
#   bash scripts/setup.sh           the package (then: .venv/bin/shuangkou ...)
#   bash scripts/setup.sh --EXTRA   also the extra EXTRA of pyproject.toml's [project.optional-dependencies]:
#                                   one option per extra, read from pyproject.toml when the script runs
#   bash scripts/setup.sh --all     also every extra of pyproject.toml
#   bash scripts/setup.sh --dry-run ...   print the commands it would run, run none
#   bash scripts/setup.sh --help    this text, with the options of pyproject.toml's extras
#
# The extras' options install only the Python packages of those extras, as
# pyproject.toml lists them when the script runs. Into a virtual environment
# that already has the package they add just those packages and do not rebuild
# the C++ extension (run it without them to rebuild); into a new one they first
# build and install the package. --test is the exception: it (re)builds the
# package with the test extra and adds the system packages the tests need.
# Options combine: `--test --play`, `--envs --train`.
#
# It says what it is doing ("setup: ..." lines); the build shows its progress
# (CMake's steps and Ninja's [n/N] lines) and keeps pip's whole output in
# build/setup.log, whose last lines it prints if the build fails.
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

PYTHON=${PYTHON:-python3}
VENV=${SHUANGKOU_VENV:-.venv}
PY="$VENV/bin/python"
if ! command -v "$PYTHON" >/dev/null; then
  echo "setup: '$PYTHON' not found: install Python 3.9 or newer (Debian: apt-get install python3)" >&2
  exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 9))'; then
  echo "setup: $("$PYTHON" --version 2>&1) is too old: Python 3.9 or newer is needed (set PYTHON=...)" >&2
  exit 1
fi

# pyproject.toml's [project.optional-dependencies], read with the Python at hand (the
# venv's, else $PYTHON): tomllib (3.11+), else tomli, else pip's own copy, else the
# table's arrays read as Python literals. `extras names`: one name a line; `extras help`:
# the options' lines of --help; `extras reqs ALL NAME...`: the names, then one
# requirement a line (ALL=1: every extra).
extras() {
  local reader=$PY
  [ -x "$reader" ] || reader=$PYTHON
  "$reader" - "$@" <<'PY'
import re
import sys
import textwrap

# What each extra is for (--help); an extra missing here is listed by its packages alone.
WHAT = {
    "test": "every tool and optional stack the test suite uses; unlike the others, it builds the"
    " package with them, and adds the system packages below",
    "envs": "PettingZoo and Gymnasium (sk.env, gymnasium.make)",
    "play": "the web stack (shuangkou play, shuangkou replay)",
    "train": "PyTorch, a CPU build (shuangkou train)",
    "openspiel": "OpenSpiel (shuangkou.integrations.openspiel)",
    "ray": "Ray (--ray, ray=...: self-play, the arena and training on a cluster)",
    "rllib": "RLlib with PyTorch, PettingZoo and Gymnasium (shuangkou.integrations.rllib)",
    "sb3": "Stable-Baselines3 and sb3-contrib with a CPU PyTorch (sk.policy_agent)",
    "bench": "the engines the benchmarks compare: OpenSpiel, RLCard, pygame, PettingZoo, Gymnasium",
}


def table():
    with open("pyproject.toml", encoding="utf-8") as f:
        text = f.read()
    try:
        try:
            import tomllib
        except ImportError:
            try:
                import tomli as tomllib
            except ImportError:
                from pip._vendor import tomli as tomllib
    except ImportError:  # no TOML reader: the table's arrays of strings are Python literals
        import ast

        m = re.search(r"^\[project\.optional-dependencies\][ \t]*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
        parts = re.split(r"^([A-Za-z0-9_.-]+)[ \t]*=", m.group(1) if m else "", flags=re.M)
        return {parts[i]: ast.literal_eval(parts[i + 1].strip()) for i in range(1, len(parts), 2)}
    return tomllib.loads(text)["project"]["optional-dependencies"]


extras = table()
mode = sys.argv[1]
if mode == "names":
    print("\n".join(extras))
elif mode == "help":
    for name, reqs in extras.items():
        option, indent = f"  bash scripts/setup.sh --{name}", " " * 34
        what = f"also the {name} extra: {WHAT[name]}" if name in WHAT else f"also the {name} extra"
        lines = textwrap.wrap(what, 74) + textwrap.wrap(f"= {', '.join(reqs)}", 74, break_on_hyphens=False)
        if len(option) < len(indent):  # the option, then its text in the column of the others
            lines[0] = option.ljust(len(indent)) + lines[0]
        else:
            lines.insert(0, option)
        print("\n".join(lines[:1] + [indent + line for line in lines[1:]]))
else:  # reqs
    wanted = list(extras) if sys.argv[2] == "1" else list(dict.fromkeys(sys.argv[3:]))
    out = []
    for name in wanted:
        if name not in extras:
            sys.exit(f"setup: pyproject.toml has no extra named {name!r} (it has: {', '.join(extras)})")
        out += [r for r in extras[name] if r not in out]
    print(" ".join(wanted))  # the first line: the extras' names; then one requirement a line
    print("\n".join(out))
PY
}

# The options: one per extra of pyproject.toml (--test among them), and the fixed ones.
if ! names=$(extras names); then
  echo "setup: could not read the extras of pyproject.toml" >&2
  exit 1
fi
mapfile -t known <<<"$names"
want_tests=0 dry_run=0 all_extras=0
extras_wanted=()
for arg in "$@"; do
  case "$arg" in
    --test) want_tests=1 ;;
    --all) all_extras=1 ;;
    --dry-run) dry_run=1 ;;
    -h | --help)
      # this file's opening comment, with the extras' options after the --EXTRA line
      SETUP_EXTRAS_HELP=$(extras help) awk '
        /^set -euo/ { exit }
        NR > 1 { sub(/^# ?/, ""); print }
        NR > 1 && /setup.sh --EXTRA/ { getline; sub(/^# ?/, ""); print; print ENVIRON["SETUP_EXTRAS_HELP"] }
      ' "$0"
      exit 0
      ;;
    *)
      found=0
      for name in "${known[@]}"; do
        [ "$arg" = "--$name" ] && found=1
      done
      if ! ((found)); then
        flags=$(printf -- '--%s, ' "${known[@]}")
        echo "setup: unknown option '$arg' (use ${flags}--all, --dry-run, or --help)" >&2
        exit 2
      fi
      extras_wanted+=("${arg#--}")
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

# Runs the package's pip build: pip -v's output goes whole to $LOG and, filtered,
# to the terminal (scikit-build-core's steps, Ninja's [n/N] lines, downloads of 10 MB
# or more, pip's last word); if it fails, the log's last lines follow.
LOG=build/setup.log
run_build() {
  if ((dry_run)); then
    run "$@"
    echo "setup: (its output: whole in $LOG; here CMake's steps and Ninja's [n/N] lines)"
    return
  fi
  mkdir -p "$(dirname "$LOG")"
  if ! "$@" 2>&1 | tee "$LOG" | awk '
    function show(s) { print "setup:   " substr(s, 1, 110); fflush() }
    { sub(/^[ \t]+/, "") }
    /^\[[0-9]+\/[0-9]+\] / || /^\*\*\* / || /^(Successfully installed|ERROR:)/ { show($0); next }
    /^Downloading .*\([0-9.]+ [MG]B\)$/ {
      size = $0; sub(/.*\(/, "", size)
      if (size ~ /GB/ || size + 0 >= 10) show($0)
    }'; then
    echo "setup: the build failed; the last lines of its log ($LOG has all of it):" >&2
    tail -n 40 "$LOG" >&2
    exit 1
  fi
}

# The package is built (step 3) unless only extras were asked for and the
# virtual environment already has it.
build=1
if ((${#extras_wanted[@]} || all_extras)) && ! ((want_tests)) && [ -x "$PY" ] &&
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
  echo "setup: installing system packages: ${need[*]} ..."
  run "${SUDO[@]}" apt-get update -qq
  if ((dry_run)); then
    run env DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${need[@]}"
  else
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

# --- 2. the virtual environment ------------------------------------------------
if [ ! -x "$PY" ]; then
  echo "setup: creating the virtual environment $VENV ..."
  run "$PYTHON" -m venv "$VENV"
fi

# --- 3. the package ------------------------------------------------------------
# The build tools go into the venv and the build reuses build/ between runs
# (no build isolation), so a second setup only recompiles what changed.
# `pip install .` alone (with isolation) works too: pyproject.toml lists them.
if ((build)); then
  echo "setup: installing the build tools (pip, scikit-build-core, pybind11, nlohmann-json, Eigen, CMake, Ninja) ..."
  run "$PY" -m pip install -q --upgrade pip
  run "$PY" -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12" "nlohmann-json>=3.11" "cmeel-eigen>=3.4" "cmake>=3.22" ninja
  target=.
  if ((want_tests)); then
    target=".[test]" # the test tools: pyproject.toml's `test` extra
    echo "setup: installing the test tools (pyproject.toml's test extra: pytest, ruff, mypy, selenium," \
      "PyTorch, Ray, OpenSpiel, ...) with the package ..."
  fi
  echo "setup: building the C++ extension and installing the package (about 5 minutes on 2 cores;" \
    "a second run recompiles only what changed) ..."
  run_build "$PY" -m pip install -v --no-build-isolation "$target"
fi

# --- 4. the extras: their packages only, as pyproject.toml lists them ----------
if ((${#extras_wanted[@]} || all_extras)); then
  if ! packages=$(extras reqs "$all_extras" "${extras_wanted[@]}"); then
    exit 1
  fi
  mapfile -t reqs <<<"$packages"
  names=${reqs[0]}
  reqs=("${reqs[@]:1}")
  echo "setup: installing the Python packages of the extras $names (pyproject.toml): ${reqs[*]} ..."
  run "$PY" -m pip install -q "${reqs[@]}"
fi

if ((dry_run)); then
  echo "setup: dry run: nothing was installed"
else
  echo "setup: $("$VENV/bin/shuangkou" --version) installed in $VENV (activate: source $VENV/bin/activate)"
fi
