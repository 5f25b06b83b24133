#!/usr/bin/env bash
# Builds the wheel the way `pip install .` does on a machine with nothing but
# a compiler and Python (isolated build; the JSON headers from PyPI even where
# a system copy exists), shows what it links (auditwheel show, ldd), fails if
# the module needs a shared library beyond the C/C++ runtime and libgomp, then
# installs it into a fresh virtual environment and plays a few deals there.
#
#   bash scripts/check_wheel.sh [OUT_DIR]     (default: a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
VENV=${SHUANGKOU_VENV:-.venv}
PY="$VENV/bin/python"
out=${1:-$(mktemp -d)}
mkdir -p "$out"

"$PY" -m pip wheel -q --no-deps -w "$out/dist" . \
  -C build-dir="$out/build" -C cmake.define.CMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON \
  -C cmake.define.SHUANGKOU_SYSTEM_EIGEN=OFF
wheel=$(ls "$out"/dist/shuangkou-*.whl)
echo "wheel: $(basename "$wheel")"
"$PY" -m auditwheel show "$wheel" | tee "$out/auditwheel.txt"

"$PY" -m venv "$out/venv"
"$out/venv/bin/python" -m pip install -q "$wheel"
# Every build of the module in the wheel (the baseline and, on x86-64, the v3 one).
pkg=$("$out/venv/bin/python" -c 'import os, shuangkou; print(os.path.dirname(shuangkou.__file__))')
: >"$out/ldd.txt"
for module in $(find "$pkg" -name '_core*.so'); do
  echo "$module" | tee -a "$out/ldd.txt"
  ldd "$module" | tee -a "$out/ldd.txt"
done
if [ "$(uname -m)" = x86_64 ] && ! ls "$pkg"/_v3/_core*.so >/dev/null 2>&1; then
  echo "check_wheel: the wheel lacks the x86-64-v3 build (shuangkou/_v3)" >&2
  exit 1
fi
# Allowed: the C and C++ runtimes, the dynamic loader, and OpenMP's libgomp.
allowed='^(linux-vdso|libstdc\+\+|libgcc_s|libc|libm|libgomp|libpthread|libdl|librt|ld-linux[-a-z0-9_]*)\.so'
bad=$(grep -v '^/' "$out/ldd.txt" | awk '{print $1}' | sed 's|.*/||' | grep -Ev "$allowed" || true)
if [ -n "$bad" ]; then
  echo "check_wheel: the module links libraries outside the allowed set: $bad" >&2
  exit 1
fi
cd "$out" # away from the checkout: the installed wheel alone, with its shipped configs
"$out/venv/bin/python" - <<'EOF'
import os
import shuangkou as sk

res = sk.selfplay(variant="baibian", games=200, threads=2, seed=1)
assert len(res.arrays["scores"]) == 200
configs = os.path.join(os.path.dirname(sk.__file__), "configs", "variants")
assert sk.Rules(os.path.join(configs, "jj.yaml")).params == sk.Rules("jj").params
assert sk.selfplay(variant="baibian", games=20, agents=["dmc", "heuristic"], seed=1)["games"] == 20
static = os.path.join(os.path.dirname(sk.__file__), "play", "static")
assert sorted(os.listdir(static)) == ["index.html", "table.css", "table.js"], os.listdir(static)
print(f"check_wheel: the installed wheel ({sk._core.ARCH} build) plays ({res['outcomes']}), reads its shipped "
      "configs, plays its shipped dmc weights and ships the web table's page")
EOF
"$out/venv/bin/shuangkou" --version
