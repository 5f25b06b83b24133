"""Distillation on expert labels: a training config's distill: section (collect: 0)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from shuangkou.dmc.distill import DistillRun, LabelData, distill_loss, gather
from shuangkou.dmc.learner import TrainConfig, train
from shuangkou.dmc.net import QNetwork
from shuangkou.expert.label_config import LabelConfig
from shuangkou.expert.labels import label
from train_util import TINY

LABELS = {"variant": "baibian", "agents": {"heuristic": 1}, "worlds": 8, "label_prob": 0.5}
LABELS |= {"deals_per_shard": 4, "shards": 3, "threads": 2, "seed": 3}


@pytest.fixture(scope="module")
def labels(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("distill")
    label(LabelConfig.from_dict(LABELS), root / "labels", progress=False)
    label(LabelConfig.from_dict({**LABELS, "shards": 1, "world_salt": 2}), root / "fresh", progress=False)
    return {"labels": root / "labels", "fresh": root / "fresh"}


def config(labels: dict[str, Path], **change) -> TrainConfig:
    base = {k: v for k, v in TINY.items() if k not in ("collect", "num_envs")}
    section = {"labels": [str(labels["labels"])], "holdout_shards": 1, "fresh": str(labels["fresh"])}
    settings = {**base, "collect": 0, "batch_size": 16, "hidden": [32], "lr": 0.003, "distill": section}
    return TrainConfig.from_dict({**settings, **change})


def test_the_distillation_loss_falls_on_a_tiny_label_set(labels):
    c = config(labels)
    data = LabelData(c.distill, torch.device("cpu"))
    torch.manual_seed(0)
    net = QNetwork(445, 44, (32,))
    everything = gather(data.train, torch.arange(int(data.train["n"])))
    before = distill_loss(net, everything, c.distill)[0].item()
    optimizer = torch.optim.Adam(net.parameters(), lr=0.003)
    generator = torch.Generator().manual_seed(1)
    for _ in range(150):
        loss = distill_loss(net, data.batch(32, generator), c.distill)[0]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    after = distill_loss(net, everything, c.distill)[0].item()
    assert after < 0.6 * before, (before, after)


def test_a_run_writes_its_model_logs_and_held_out_figures(labels, tmp_path):
    result = train(config(labels), tmp_path, progress=False)
    assert result["log"]["update"] == 6 and (tmp_path / "model.safetensors").is_file()
    rows = (tmp_path / "holdout.csv").read_text().splitlines()
    assert rows[0].startswith("update,regret,agreement,clear_share,holdout_loss,fresh") and len(rows) == 3
    assert ",True," in rows[1]  # the regret re-estimated on the fresh worlds


def test_a_resumed_run_continues_exactly(labels, tmp_path):
    train(config(labels), tmp_path / "straight", progress=False)
    train(config(labels, updates=3), tmp_path / "cut", progress=False)
    train(config(labels), tmp_path / "cut", resume=True, progress=False)
    a = QNetwork.load(tmp_path / "straight" / "model.safetensors").state_dict()
    b = QNetwork.load(tmp_path / "cut" / "model.safetensors").state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_init_from_loads_the_weights_it_names(labels, tmp_path):
    torch.manual_seed(5)
    start = QNetwork(445, 44, (32,))
    start.save(tmp_path / "start.safetensors")
    c = config(labels, init_from=str(tmp_path / "start.safetensors"))
    data = LabelData(c.distill, torch.device("cpu"))
    run = DistillRun(c, data, None, tmp_path / "run", torch.device("cpu"), None)
    assert all(torch.equal(v, start.state_dict()[k]) for k, v in run.net.state_dict().items())


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"distill": None}, "collect: 0 (no actors) trains on expert labels alone: give a distill: section"),
        ({"collect": 64}, "a distill: section trains on the labels alone: give collect: 0"),
        ({"distill": {"labels": []}}, "distill: labels: one or more labelling folders"),
        ({"distill": {"labels": ["x"], "weight": 1}}, "distill: unknown setting 'weight'"),
        ({"distill": {"labels": ["x"], "se_floor": 0}}, "se_floor: must be > 0"),
        ({"init_from": "/nowhere.safetensors"}, "init_from"),
    ],
)
def test_a_bad_distillation_config_is_refused_naming_the_setting(labels, change, needle):
    with pytest.raises(ValueError) as e:
        config(labels, **change)
    assert needle in str(e.value)


def test_init_from_of_other_hidden_widths_is_refused(labels, tmp_path):
    QNetwork(445, 44, (16,)).save(tmp_path / "other.safetensors")
    with pytest.raises(ValueError, match=r"init_from: .* has hidden \[16\], the config \[32\]"):
        config(labels, init_from=str(tmp_path / "other.safetensors"))


def test_missing_labels_or_a_fresh_run_of_other_decisions_write_nothing(labels, tmp_path):
    bad = config(labels, distill={"labels": [str(tmp_path / "none")]})
    with pytest.raises(ValueError, match="manifest"):
        train(bad, tmp_path / "out", progress=False)
    section = {"labels": [str(labels["labels"])], "holdout_shards": 1, "fresh": str(labels["labels"])}
    other = config(labels, distill=section)
    with pytest.raises(ValueError, match="fresh: .* does not hold the held-out shards' decisions"):
        train(other, tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()
