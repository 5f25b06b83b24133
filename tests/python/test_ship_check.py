"""experiments/ship_check.py: a ship decision measured again on the choosing deals, with
the files taken from the repository's history."""

from __future__ import annotations

import importlib
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_a_decision_plays_the_file_shipped_and_the_one_it_replaced(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "experiments"))
    module = importlib.import_module("ship_check")
    if subprocess.run(["git", "cat-file", "-e", "ff49ca0^"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("a clone without the repository's history (the script reads old files from it)")
    r = module.check("baibian", "ff49ca0", 2, 1, tmp_path / "work")
    # ff49ca0 shipped the pool's file over the stage-3 one (docs/dmc_model.md, experiments/exploit.md)
    assert r["sha256"]["new"].startswith("0f9e3e2b") and r["sha256"]["old"].startswith("ae8e9de3")
    assert list(r["pairs"]) == ["new vs heuristic", "old vs heuristic", "new vs old"]
    assert all(p["deals"] == 2 and 0 <= p["wp"] <= 1 for p in r["pairs"].values())
    assert r["pairs"]["new vs old"]["b"] == f"dmc:{tmp_path / 'work' / 'baibian_ff49ca0_parent.safetensors'}"
    line = module.table([{**r, "what": "stage 3 again"}]).splitlines()[-1]
    assert line.startswith("| baibian | `ff49ca0` | stage 3 again | ") and line.count("|") == 7
    one = module.check("baibian", "ff49ca0", 1, 1, tmp_path / "work")  # a single deal has no interval
    assert module.table([{**one, "what": "x"}]).count("(") == 0
