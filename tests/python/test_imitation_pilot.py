"""experiments/imitation_pilot.py (experiments/expert_baibian.md, round 1 and the capacity
ablation): it trains a network of the widths asked from random weights on the search's
decisions, scores its fit on training decisions beside the held-out ones, and refuses
widths the shipped network does not have without --scratch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from shuangkou import _core
from shuangkou.expert.label_config import LabelConfig
from shuangkou.expert.labels import label

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "experiments" / "imitation_pilot.py"
sys.path.insert(0, str(ROOT / "experiments"))

import imitation_pilot  # noqa: E402


@pytest.fixture(scope="module")
def labels(tmp_path_factory) -> Path:
    """Six shards of one deal, every legal play of every decision labelled (round 1's form)."""
    out = tmp_path_factory.mktemp("labels")
    settings = {"variant": "baibian", "agents": {"search": 1}, "label_prob": 1.0, "worlds": 1}
    settings |= {"all_legal_up_to": 256, "max_candidates": 256, "deals_per_shard": 1, "shards": 6, "seed": 3}
    label(LabelConfig.from_dict({**settings, "threads": 2}), out, progress=False)
    return out


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_a_subset_keeps_each_decisions_rows_and_its_played_move(labels):
    train, _ = imitation_pilot.decisions(str(labels), 0)
    whole = imitation_pilot.subset(train, train["n"])
    for key in ("obs", "mv", "first", "cnt", "played", "win", "heur"):
        assert torch.equal(whole[key], train[key]), key
    part = imitation_pilot.subset(train, 5)
    assert part["n"] == 5 and int(part["cnt"].sum()) == len(part["mv"])
    for j in range(5):  # the same decision: its observation, its candidates and the move played
        i = int(torch.nonzero((train["obs"] == part["obs"][j]).all(1))[0])
        lo, n = int(train["first"][i]), int(train["cnt"][i])
        assert torch.equal(part["mv"][int(part["first"][j]) :][:n], train["mv"][lo : lo + n])
        assert torch.equal(part["mv"][int(part["played"][j])], train["mv"][int(train["played"][i])])


def test_the_capacity_ablation_trains_its_widths_from_random_weights(labels, tmp_path):
    args = ["--labels", str(labels), "--advice", "0", "--updates", "2", "--deals", "2", "--scratch"]
    done = run(*args, "--hidden", "16,8", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    log = json.loads((tmp_path / "out" / "log.json").read_text())
    assert log["hidden"] == [16, 8] and log["scratch"] is True and log["held"] > 0 and log["train"] > 0
    last = log["curve"][-1]
    assert last["update"] == 2 and 0 <= last["train_imitation"] <= 1 and 0 <= last["imitation"] <= 1
    assert list(_core.QNet.load(str(tmp_path / "out" / "model.safetensors")).hidden) == [16, 8]
    assert 0 <= log["against_heuristic"]["wp"] <= 1 and log["against_heuristic"]["deals"] == 2


def test_other_widths_without_scratch_are_refused_before_training(labels, tmp_path):
    args = ["--labels", str(labels), "--advice", "0", "--updates", "2", "--hidden", "16,8"]
    done = run(*args, "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "the shipped network is 256,128 (add --scratch)" in done.stderr
    assert not (tmp_path / "out").exists()
