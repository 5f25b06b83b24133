"""experiments/guided_sweep.py: each setting's gate calibrated to its share and measured
against search with its speed; --priors measures each prior; bad settings refused."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

import pytest
import shuangkou as sk

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sweep(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "experiments"))
    return importlib.import_module("guided_sweep")


def run(sweep, monkeypatch, tmp_path, argv: str) -> tuple[Path, Path]:
    """guided_sweep.py's main with `argv` and --out, --work in tmp_path: (out, work)."""
    out, work = tmp_path / "out", tmp_path / "work"
    monkeypatch.setattr(sys, "argv", ["guided_sweep.py", *argv.split(), "--out", str(out), "--work", str(work)])
    assert sweep.main() == 0
    return out, work


def test_settings_are_measured_with_their_gates_and_share_searched(sweep, monkeypatch, tmp_path):
    out, _ = run(sweep, monkeypatch, tmp_path, "--settings 0.2:4,0.9:8 --deals 3 --speed-deals 2")
    result = json.loads((out / "results.json").read_text())
    low, high = result["rows"]
    assert (low["share"], low["rollouts"], high["share"], high["rollouts"]) == (0.2, 4, 0.9, 8)
    assert low["gate"] < high["gate"]  # a larger share searches wider gaps
    for row in (low, high):
        assert row["pair"]["b"] == "search" and row["pair"]["deals"] == 3
        assert row["pair"]["a"].endswith(f"+search:{row['rollouts']}")
        gated = sk.QNet.load(row["pair"]["a"][len("dmc:") : row["pair"]["a"].index("+search")])
        assert float(gated.metadata["search_gap"]) == pytest.approx(row["gate"], rel=1e-5)
        assert 0 < row["speed"]["searched"] < row["speed"]["decisions"]
    assert low["speed"]["searched"] / low["speed"]["decisions"] < high["speed"]["searched"] / high["speed"]["decisions"]
    assert (out / "guided_sweep.md").read_text().count("\n") == 4  # header, rule, two rows


def test_priors_are_written_into_copies_and_measured_against_search_and_heuristic(sweep, monkeypatch, tmp_path):
    out, work = run(sweep, monkeypatch, tmp_path, "--priors 0,0.1 --deals 2 --heuristic-deals 4")
    rows = json.loads((out / "priors.json").read_text())["rows"]
    assert [r["prior"] for r in rows] == [0, 0.1]
    assert [(r["search"]["deals"], r["heuristic"]["deals"]) for r in rows] == [(2, 4), (2, 4)]
    assert sk.QNet.load(str(work / "prior_0.1.safetensors")).metadata["heuristic_prior"] == "0.1"
    assert not (out / "results.json").exists()  # the guided settings are not played


@pytest.mark.parametrize("text", ["0.5", "x:64", "0:64", "1.5:64", "0.5:0"])
def test_a_bad_setting_is_refused_naming_it(sweep, text):
    with pytest.raises(argparse.ArgumentTypeError, match=text.replace(".", r"\.")):
        sweep.setting(text)
