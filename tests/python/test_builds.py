"""The two builds of the C++ module (x86-64-v2 and x86-64-v3, shuangkou/_native.py): the
choice follows the CPU and SHUANGKOU_CPU, and both builds play identically."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import shuangkou as sk
from shuangkou import _native as _cpu

PACKAGE = Path(sk.__file__).parent
HAS_V3_BUILD = (PACKAGE / "_v3").is_dir() and _cpu.has_v3()


def test_the_cpu_flags_decide(tmp_path):
    info = tmp_path / "cpuinfo"
    v3 = " ".join(sorted(_cpu.V3_FLAGS))
    info.write_text(f"processor\t: 0\nflags\t\t: fpu sse2 popcnt {v3}\n\nprocessor\t: 1\nflags\t: fpu\n")
    assert _cpu.has_v3(_cpu.cpu_flags(str(info)))
    info.write_text(f"flags\t: {v3.replace('avx2', '')}\n")  # one missing: baseline
    assert not _cpu.has_v3(_cpu.cpu_flags(str(info)))
    assert _cpu.cpu_flags(str(tmp_path / "missing")) == frozenset()


def test_the_choice_and_its_override(tmp_path, monkeypatch):
    path = [str(tmp_path)]
    monkeypatch.setenv("SHUANGKOU_CPU", "auto")
    assert _cpu.choose(path) == "baseline" and path == [str(tmp_path)]  # no _v3 build here
    monkeypatch.setenv("SHUANGKOU_CPU", "v3")
    with pytest.raises(ImportError, match="no v3 build"):
        _cpu.choose(path)
    monkeypatch.setenv("SHUANGKOU_CPU", "fastest")
    with pytest.raises(ImportError, match="auto, baseline or v3"):
        _cpu.choose(path)
    (tmp_path / "_v3").mkdir()
    (tmp_path / "_v3" / "_core.so").write_bytes(b"")
    monkeypatch.setenv("SHUANGKOU_CPU", "baseline")
    assert _cpu.choose(path) == "baseline" and len(path) == 1
    monkeypatch.setenv("SHUANGKOU_CPU", "auto")
    monkeypatch.setattr(_cpu, "has_v3", lambda flags=None: True)
    assert _cpu.choose(path) == "v3" and path[0] == str(tmp_path / "_v3")


PROBE = """
import hashlib, json, numpy as np, shuangkou as sk
r = sk.selfplay("baibian", games=300, agents=["heuristic", "greedy", "simple", "random"], seed=11)
digest = hashlib.sha256(b"".join(np.ascontiguousarray(r.arrays[k]).tobytes() for k in sorted(r.arrays))).hexdigest()
rng = np.random.default_rng(0)
obs, move = sk._core.observation_size(), sk._core.MOVE_FEATURE_SIZE
shapes = sk.QNet.tensor_shapes(obs, move, [256, 128])
net = sk.QNet(obs, move, [256, 128], {n: rng.normal(0, 0.1, s).astype(np.float32) for n, s in shapes})
q = net.q_values(rng.random(obs, dtype=np.float32), rng.random((40, move), dtype=np.float32))
print(json.dumps({"arch": sk._core.ARCH, "selfplay": digest, "q": [float(x) for x in q]}))
"""


def probe(which: str) -> dict:
    env = {**os.environ, "SHUANGKOU_CPU": which}
    p = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.skipif(not HAS_V3_BUILD, reason="needs the x86-64-v3 build and a CPU that runs it")
def test_both_builds_play_identically():
    base, v3 = probe("baseline"), probe("v3")
    assert (base["arch"], v3["arch"]) == ("x86-64-v2", "x86-64-v3")
    assert base["selfplay"] == v3["selfplay"]  # the rules engine: integers, identical
    assert max(abs(a - b) for a, b in zip(base["q"], v3["q"])) < 1e-4  # floats: fused multiply-adds differ


def test_the_loaded_build_is_the_one_the_cpu_runs_best():
    if os.environ.get("SHUANGKOU_CPU", "auto") != "auto":
        pytest.skip("SHUANGKOU_CPU overrides the choice")
    if HAS_V3_BUILD:
        assert sk._core.ARCH == "x86-64-v3" and Path(sk._core.__file__).parent.name == "_v3"
    else:
        assert sk._core.ARCH != "x86-64-v3" and Path(sk._core.__file__).parent == PACKAGE
