"""experiments/stage3_eval.py's measurement: every candidate against each opponent on
eval-v1, with --no-alone leaving out the networks without their prior and --also adding
opponents, each a column of the report's table."""

from __future__ import annotations

import argparse
import importlib
import shutil
from pathlib import Path

import pytest
import shuangkou as sk

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "python" / "shuangkou" / "models" / "dmc_baibian.safetensors"


def test_no_alone_and_also_measure_the_candidates_named_against_the_opponents_named(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "experiments"))
    module = importlib.import_module("stage3_eval")
    run = tmp_path / "runs" / "tiny_run"  # a finished run: its model, the last one rated above the average
    run.mkdir(parents=True)
    shutil.copy(SHIPPED, run / "model.safetensors")
    (run / "average.json").write_text('{"wp": 0.1}')
    (run / "eval.csv").write_text("update,opponent,deals,wp\n10,heuristic,4,0.5\n")
    args = argparse.Namespace(variant="baibian", deals=3, search_deals=1, also=["random"], also_deals=2)
    args.__dict__ |= {"no_alone": True, "guided": False, "threads": 1, "choice_deals": 2}
    result = module.measure(args, [str(run)], tmp_path / "work")
    got = [(r["candidate"], r["b"], r["deals"]) for r in result["pairs"]]
    assert got == [
        ("shipped", "heuristic", 3),
        ("shipped", "search", 1),
        ("shipped", "random", 2),
        ("tiny_run", "heuristic", 3),
        ("tiny_run", "dmc", 3),
        ("tiny_run", "search", 1),
        ("tiny_run", "random", 2),
    ]
    assert set(result["files"]) == {"shipped", "tiny_run"}  # none alone
    # the choosing pairs: other deals than eval-v1's
    choosing = [(r["candidate"], r["b"], r["deals"]) for r in result["choice"]["pairs"]]
    assert choosing == [("shipped", "heuristic", 2), ("tiny_run", "heuristic", 2), ("tiny_run", "dmc", 2)]
    assert result["choice"]["seed"] == module.CHOICE_SEED != 0x5EED20260001
    header, rule, *rows = module.table(result).splitlines()
    assert header == "| candidate | vs `heuristic` | vs `dmc` | vs `search` | vs `random` |"
    assert rule.count("---:") == 4 and len(rows) == 2 and rows[0].count("|") == 6
    for bad, why in (("dmc:/no/such.safetensors", "--also dmc:/no/such.safetensors: "), ("search", "plays it already")):
        args.also = [bad]
        with pytest.raises(SystemExit, match=why):
            module.measure(args, [str(run)], tmp_path / "work2")
        assert not (tmp_path / "work2").exists()  # refused before anything is played or written


def test_the_shipped_rows_measure_the_file_and_its_network_alone(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "experiments"))
    module = importlib.import_module("stage3_eval")
    args = argparse.Namespace(variant="baibian", deals=3, search_deals=1, threads=1)
    result = module.shipped_rows(args, tmp_path / "work")
    alone = f"dmc:{tmp_path / 'work' / 'bots_alone.safetensors'}"
    got = [(r["a"], r["b"], r["deals"]) for r in result["pairs"]]
    assert got == [
        (f"dmc:{SHIPPED}", "greedy", 3),
        (f"dmc:{SHIPPED}", "simple", 3),
        (f"dmc:{SHIPPED}", "random", 3),
        (f"dmc:{SHIPPED}", alone, 3),
        (alone, "heuristic", 3),
        (alone, "search", 1),
    ]
    assert "heuristic_prior" not in sk.QNet.load(alone[len("dmc:") :]).metadata
    assert result["sha256"] == module.sha256(SHIPPED)
