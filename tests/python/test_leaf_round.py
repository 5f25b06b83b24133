"""experiments/leaf_round.py (experiments/expert_baibian.md, round 2): the search stage
plays the guided search with short rollouts on the choice deals, picks a depth and
measures it on eval-v1, writing what it played; a stage that lacks its input is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "experiments" / "leaf_round.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_the_search_stage_chooses_a_depth_on_seed_2_and_measures_it_on_eval_v1(tmp_path):
    done = run(*"--stage search --plies 1 3 --deals 3 --search-deals 2 --threads 1 --out".split(), str(tmp_path))
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "round2_search.json").read_text())
    assert [(r["plies"], r["b"], r["deals"]) for r in result["choice"]] == [
        (p, b, 3) for p in (1, 3) for b in ("dmc+search", "heuristic")
    ]
    assert result["choice_seed"] == 2 and result["chosen"] in ("dmc+search:64:1", "dmc+search:64:3")
    assert [(r["a"], r["b"], r["deals"]) for r in result["eval_v1"]] == [
        (result["chosen"], "heuristic", 3),
        (result["chosen"], "search", 2),
    ]
    assert all(0 <= r["wp"] <= 1 for r in result["choice"] + result["eval_v1"])


def test_the_distill_stage_without_a_model_is_refused_and_writes_nothing(tmp_path):
    done = run("--stage", "distill", "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "--stage distill needs --model" in done.stderr
    assert not (tmp_path / "out").exists()
