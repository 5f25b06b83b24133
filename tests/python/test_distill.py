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
    assert rows[0].startswith("update,regret,agreement,clear_share,imitation,holdout_loss,fresh") and len(rows) == 3
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
        ({"distill": {"labels": ["x"], "imitate": ["search"]}}, "imitate and imitate_weight go together"),
        ({"distill": {"labels": ["x"], "imitate_weight": 1}}, "imitate and imitate_weight go together"),
        ({"distill": {"labels": ["x"], "imitate": [3], "imitate_weight": 1}}, "imitate: agent names"),
        ({"distill": {"labels": ["x"], "temperature": 0}}, "temperature: must be a number in [0.0001, 1000]"),
        ({"distill": {"labels": ["x"], "rel_weight": -1}}, "rel_weight: must be a number 0..1e6"),
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


@pytest.fixture(scope="module")
def every_play(tmp_path_factory) -> Path:
    """Labels whose candidates are every legal play: one team plays heuristic, the other dmc."""
    out = tmp_path_factory.mktemp("imitate") / "labels"
    settings = {**LABELS, "agents": {"heuristic": 1, "dmc": 1}, "worlds": 1, "label_prob": 1.0}
    settings |= {"all_legal_up_to": 256, "max_candidates": 256, "deals_per_shard": 8, "shards": 2}
    label(LabelConfig.from_dict(settings), out, progress=False)
    return out


def imitating(folder: Path, **section) -> TrainConfig:
    base = {k: v for k, v in TINY.items() if k not in ("collect", "num_envs")}
    section = {"labels": [str(folder)], "holdout_shards": 1, "imitate": ["heuristic"], "imitate_weight": 1.0, **section}
    return TrainConfig.from_dict(
        {**base, "collect": 0, "batch_size": 32, "hidden": [64], "lr": 0.003, "distill": section}
    )


def agreement(net: QNetwork, data: dict) -> float:
    """The share of the imitated decisions where the network's best candidate is the played one."""
    from shuangkou.dmc.distill import choices

    b = gather(data, torch.arange(int(data["n"])))
    mine = b["played"] >= 0
    return float((choices(net, b) == b["played"])[mine].float().mean())


def test_imitation_trains_on_the_imitated_agents_decisions_alone_and_learns_their_plays(every_play):
    c = imitating(every_play, rel_weight=0.0)
    data = LabelData(c.distill, torch.device("cpu"))
    train_set = data.train
    assert bool((train_set["played"] >= 0).all())  # rel_weight 0: the heuristic's decisions alone
    with_values = LabelData(imitating(every_play).distill, torch.device("cpu")).train
    assert 0 < int((with_values["played"] >= 0).sum()) < int(with_values["n"])  # the dmc team's are kept, not imitated
    torch.manual_seed(0)
    net = QNetwork(445, 44, (64,))
    before = agreement(net, train_set)
    optimizer = torch.optim.Adam(net.parameters(), lr=0.003)
    generator = torch.Generator().manual_seed(1)
    for _ in range(300):
        loss, parts = distill_loss(net, data.batch(32, generator), c.distill)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert "imitate_loss" in parts
    after = agreement(net, train_set)
    assert after > max(0.9, before + 0.3), (before, after)


def test_a_decision_whose_candidates_leave_plays_out_is_never_imitated(labels):
    section = {"labels": [str(labels["labels"])], "holdout_shards": 1, "imitate": ["heuristic"], "imitate_weight": 1.0}
    c = config(labels, distill=section)
    data = LabelData(c.distill, torch.device("cpu"))
    counts = (data.train["offset"][1:] - data.train["offset"][:-1]).numpy()
    from shuangkou.expert.labels import read_labels

    legal_counts = read_labels(labels["labels"]).legal
    assert (legal_counts > 12).any()  # (the fixture's labels do leave plays out, above 12 legal ones)
    imitated = (data.train["played"] >= 0).numpy()
    assert imitated.any() and (counts[imitated] <= 12).all()


def test_imitating_an_agent_the_labels_lack_is_refused_naming_it(every_play, tmp_path):
    c = imitating(every_play, imitate=["search"])
    with pytest.raises(ValueError, match=r"imitate: 'search' is not an agent of .* \(its agents: heuristic, dmc\)"):
        train(c, tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()
