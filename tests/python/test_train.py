"""Deep Monte-Carlo training end to end: the smoke config trains, the loss falls, the
files are written, resume goes on, bad configs are named, and --set replaces a
setting of the file as the file would give it."""

from __future__ import annotations

import csv
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import shuangkou as sk  # noqa: E402
from shuangkou.dmc.learner import TrainConfig, train  # noqa: E402
from shuangkou.dmc.net import QNetwork  # noqa: E402
from shuangkou.dmc.train_config import RaySettings  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "train" / "smoke.yaml"


def heldout_loss(net: QNetwork, batch: dict) -> float:
    with torch.no_grad():
        q = net(torch.from_numpy(batch["obs"]), torch.from_numpy(batch["move"]))
        return float(torch.nn.functional.mse_loss(q, torch.from_numpy(batch["target"])))


def test_smoke_training_learns_and_writes_its_files(tmp_path):
    config = TrainConfig.from_yaml(SMOKE)
    torch.manual_seed(config.seed)
    initial = QNetwork(sk._core.observation_size(), sk._core.MOVE_FEATURE_SIZE, config.hidden)
    # Held-out decisions (another seed), labelled with their returns.
    batch = sk._core.DmcActors(config.variant, initial.to_qnet(), num_envs=64, seed=999, epsilon=0.1).collect(8000)
    result = train(config, tmp_path, progress=False)
    for name in ("model.safetensors", "checkpoint.pt", "train.csv", "eval.csv", "curve.png"):
        assert (tmp_path / name).exists(), name
    trained = QNetwork.load(tmp_path / "model.safetensors")
    assert heldout_loss(trained, batch) < heldout_loss(initial, batch) - 0.05  # the loss falls
    rows = list(csv.DictReader(open(tmp_path / "train.csv")))
    assert [int(r["update"]) for r in rows] == list(range(10, 61, 10))
    assert int(rows[-1]["version"]) == 30  # a push every 2 updates
    evals = list(csv.DictReader(open(tmp_path / "eval.csv")))
    assert [int(r["update"]) for r in evals] == [30, 60] and evals[0]["opponent"] == "random"
    assert result["eval"]["wp_lo"] <= result["eval"]["wp"] <= result["eval"]["wp_hi"]
    meta = sk.QNet.load(str(tmp_path / "model.safetensors")).metadata
    assert meta["variant"] == "baibian" and meta["update"] == "60" and meta["version"] == "30"
    # The trained agent plays by name.
    r = sk.selfplay("baibian", games=10, agents=[f"dmc:{tmp_path / 'model.safetensors'}", "random"], seed=1)
    assert r["games"] == 10


def test_resume_goes_on_from_the_checkpoint(tmp_path):
    config = TrainConfig.from_dict({**vars_of(SMOKE), "updates": 20, "eval_every": 10, "log_every": 10})
    train(config, tmp_path, progress=False)
    longer = TrainConfig.from_dict({**vars_of(SMOKE), "updates": 30, "eval_every": 10, "log_every": 10})
    train(longer, tmp_path, resume=True, progress=False)
    rows = list(csv.DictReader(open(tmp_path / "train.csv")))
    assert [int(r["update"]) for r in rows] == [10, 20, 30]
    # Samples and time go on counting across the resume.
    assert int(rows[2]["samples"]) > int(rows[1]["samples"]) > int(rows[0]["samples"])
    assert float(rows[2]["elapsed_s"]) > float(rows[1]["elapsed_s"])
    assert sk.QNet.load(str(tmp_path / "model.safetensors")).metadata["update"] == "30"
    with pytest.raises(ValueError, match="at update 30 already"):
        train(longer, tmp_path, resume=True, progress=False)
    with pytest.raises(ValueError, match="no checkpoint"):
        train(config, tmp_path / "empty", resume=True, progress=False)


def vars_of(path: Path) -> dict:
    import yaml

    return yaml.safe_load(path.read_text())


@pytest.mark.parametrize(
    "change, match",
    [
        ({"learning_rate": 0.1}, "unknown setting"),
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": 1.5}, "batch_size"),
        ({"hidden": []}, "hidden"),
        ({"hidden": [64, True]}, "hidden"),
        ({"epsilon": 2}, "epsilon"),
        ({"reward": "money"}, "reward"),
        ({"device": "tpu"}, "device"),
        ({"variant": "nope"}, "nope"),
        ({"eval_opponent": "grandmaster"}, "grandmaster"),
        ({"lr": float("nan")}, "lr"),
        ({"opponent": "nobody", "opponent_share": 0.5}, "nobody"),
        ({"opponent": "self", "opponent_share": 0.5}, "go together"),
        ({"opponent_share": 1.5}, "opponent_share"),
        ({"teacher": "none", "teacher_start": 0.5}, "go together"),
        ({"teacher_start": 0.0}, "go together"),
        ({"replay": 100}, "replay"),
        ({"replay": 0, "collect": 10}, "collect"),
        ({"num_envs": 12}, "group"),
    ],
)
def test_bad_configs_are_named(change, match):
    with pytest.raises(ValueError, match=match):
        TrainConfig.from_dict({**vars_of(SMOKE), **change})


def test_the_command_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("variant: baibian\nbatchsize: 3\n")
    for cmd in (
        [sys.executable, "-m", "shuangkou", "train"],
        [str(Path(sys.executable).with_name("shuangkou")), "train"],
    ):
        p = subprocess.run([*cmd, "--config", str(bad), "--out", str(tmp_path / "o")], capture_output=True, text=True)
        assert p.returncode == 2 and "unknown setting(s) batchsize" in p.stderr and "Traceback" not in p.stderr
    p = subprocess.run([sys.executable, "-m", "shuangkou", "train", "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and "--resume" in p.stdout and "dmc_baibian.yaml" in p.stdout
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(SMOKE.read_text().replace("updates: 60", "updates: 4").replace("eval_every: 30", "eval_every: 4"))
    p = subprocess.run(
        [sys.executable, "-m", "shuangkou", "train", "--config", str(cfg), "--out", str(tmp_path / "run"), "--quiet"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "trained 4 updates" in p.stdout and (tmp_path / "run" / "model.safetensors").exists()
    assert np.isfinite(float(next(csv.DictReader(open(tmp_path / "run" / "eval.csv")))["wp"]))


def test_the_replay_buffer_keeps_the_latest_decisions():
    from shuangkou.dmc.learner import Replay

    replay = Replay(5, 2, 1, torch.device("cpu"))
    gen = torch.Generator().manual_seed(0)

    def add(values):
        t = torch.tensor(values, dtype=torch.float32)
        replay.add(t[:, None].repeat(1, 2), t[:, None], t)

    add([1, 2, 3])
    assert replay.size == 3 and set(replay.sample(100, gen)[2].tolist()) == {1, 2, 3}
    add([4, 5, 6, 7])  # wraps: 1 and 2 are overwritten
    obs, move, target = replay.sample(200, gen)
    assert replay.size == 5 and set(target.tolist()) == {3, 4, 5, 6, 7}
    assert torch.equal(obs[:, 0], target) and torch.equal(move[:, 0], target)  # rows stay together
    add(list(range(10, 22)))  # more than it holds: the last five
    assert set(replay.sample(200, gen)[2].tolist()) == {17, 18, 19, 20, 21}


def test_the_teacher_fades_linearly_and_the_groups_split_the_envs():
    config = TrainConfig.from_yaml(ROOT / "configs" / "train" / "dmc_baibian.yaml")
    assert [config.teacher_prob(u) for u in (0, 1500, 3000, 9000)] == [1.0, 0.5, 0.0, 0.0]
    assert config.groups() == [(None, 64, 0.25), ("heuristic", 192, 0.75)]
    assert TrainConfig.from_dict({}).groups() == [(None, 256, 1.0)] and TrainConfig().teacher_prob(0) == 0


@pytest.mark.parametrize("variant", ["classic", "baibian", "qianbian", "qianbian_collect", "jj"])
def test_every_variant_trains_from_its_config(tmp_path, variant):
    config = TrainConfig.from_yaml(ROOT / "configs" / "train" / f"dmc_{variant}.yaml")
    assert config.variant == variant
    recipe = TrainConfig.from_yaml(ROOT / "configs" / "train" / "dmc_baibian.yaml")
    # The one recipe in another variant, with its own budget (the updates of its hour, and the
    # schedule's end that goes with them).
    budget = {"variant", "updates", "lr_end", "average_last"}
    # classic starts from the baibian network's weights instead of the heuristic teacher, and
    # qianbian_collect from the qianbian network's.
    warm = {"init_from", "teacher", "teacher_start", "teacher_updates"} if config.init_from != "none" else set()
    assert {k: v for k, v in vars(config).items() if k not in budget | warm} == {
        k: v for k, v in vars(recipe).items() if k not in budget | warm
    }
    if warm:
        source = {"classic": "baibian", "qianbian_collect": "qianbian"}[variant]
        assert config.teacher == "none" and Path(config.init_from).name == f"dmc_{source}.safetensors"
    tiny = {"hidden": [16], "num_envs": 32, "collect": 256, "replay": 1024, "batch_size": 256, "updates": 2}
    tiny |= {"eval_every": 2, "eval_deals": 4, "log_every": 1, "init_from": "none"}  # (a tiny network: no warm start)
    tiny |= {} if warm else {"teacher_updates": 1}
    result = train(TrainConfig.from_dict({**vars(config), **tiny}), tmp_path, progress=False)
    assert result["log"]["update"] == 2 and result["log"]["samples"] >= 512
    assert sk.QNet.load(str(tmp_path / "model.safetensors")).metadata["variant"] == variant


def test_a_heuristic_prior_goes_with_every_network_of_the_run(tmp_path, monkeypatch):
    from shuangkou.dmc import sources

    seen, real = [], sources._core.DmcActors

    class Recording:  # the C++ actors, each network handed to them recorded
        def __init__(self, rules, net, **kwargs):
            seen.append(("made", net.metadata))
            self.actors = real(rules, net, **kwargs)

        def set_network(self, net, version):
            seen.append(("pushed", net.metadata))
            self.actors.set_network(net, version)

        def __getattr__(self, name):
            return getattr(self.actors, name)

    monkeypatch.setattr(sources._core, "DmcActors", Recording)
    settings = {"updates": 4, "eval_every": 4, "push_every": 2, "snapshot_share": 0.25, "snapshot_every": 2}
    config = TrainConfig.from_dict({**vars_of(SMOKE), **settings, "heuristic_prior": 0.25})
    assert config.network_metadata() == {"heuristic_prior": "0.25"} and TrainConfig().network_metadata() == {}
    result = train(config, tmp_path, progress=False)
    # The first actors, the pushes and the snapshot's new actors all had the prior.
    assert {kind for kind, _ in seen} == {"made", "pushed"} and len(seen) >= 5
    assert all(meta.get("heuristic_prior") == "0.25" for _, meta in seen)
    assert sk.QNet.load(str(tmp_path / "model.safetensors")).metadata["heuristic_prior"] == "0.25"
    # The evaluation played the file as saved: the dmc bot with its prior.
    model = f"dmc:{tmp_path / 'model.safetensors'}"
    again = sk.arena(config.variant, agents=[model, config.eval_opponent], deals=config.eval_deals, seed=config.seed)
    assert result["eval"]["update"] == 4 and result["eval"]["adp"] == again["pairs"][0]["adp"]
    for bad in (-0.1, 1.5, float("nan"), "0.1"):
        with pytest.raises(ValueError, match="heuristic_prior"):
            TrainConfig.from_dict({**vars_of(SMOKE), "heuristic_prior": bad})


def test_the_stage_3_configs_differ_by_the_prior_alone():
    prior = TrainConfig.from_yaml(ROOT / "configs" / "train" / "dmc_baibian_prior.yaml")
    more = TrainConfig.from_yaml(ROOT / "configs" / "train" / "dmc_baibian_more.yaml")
    shipped = sk.QNet.load(str(ROOT / "python" / "shuangkou" / "models" / "dmc_baibian.safetensors"))
    assert prior.heuristic_prior == float(shipped.metadata["heuristic_prior"]) and more.heuristic_prior == 0
    assert dataclasses.replace(prior, heuristic_prior=0.0) == more and prior.max_minutes == 30


def test_each_preset_has_a_stage_3_config_fine_tuning_its_shipped_network():
    base = TrainConfig.from_yaml(ROOT / "configs" / "train" / "dmc_baibian_prior.yaml")
    configs = {p.name: TrainConfig.from_yaml(p) for p in (ROOT / "configs" / "train").glob("dmc_*_prior.yaml")}
    assert sorted(c.variant for c in configs.values()) == sorted(sk.builtin_models())
    for name, config in configs.items():
        shipped = sk.builtin_models()[config.variant]
        # The file it starts from is the shipped one (by content: CI installs the wheel), with its prior.
        assert (ROOT / config.init_from).read_bytes() == Path(shipped).read_bytes(), name
        assert config.heuristic_prior == float(sk.QNet.load(shipped).metadata["heuristic_prior"]), name
        same = dataclasses.replace(config, variant=base.variant, init_from=base.init_from)
        assert dataclasses.replace(same, heuristic_prior=base.heuristic_prior) == base, name


def test_a_config_takes_its_base_settings(tmp_path):
    (tmp_path / "base.yaml").write_text("variant: jj\nlr: 0.01\nupdates: 7\n")
    (tmp_path / "mine.yaml").write_text("base: base.yaml\nupdates: 9\n")
    config = TrainConfig.from_yaml(tmp_path / "mine.yaml")
    assert (config.variant, config.lr, config.updates) == ("jj", 0.01, 9)
    (tmp_path / "loop.yaml").write_text("base: loop.yaml\n")
    with pytest.raises(ValueError, match="include themselves"):
        TrainConfig.from_yaml(tmp_path / "loop.yaml")
    (tmp_path / "bad.yaml").write_text("base: base.yaml\nlearning_rate: 1\n")
    with pytest.raises(ValueError, match="unknown setting"):
        TrainConfig.from_yaml(tmp_path / "bad.yaml")


def test_the_learning_rate_falls_linearly_when_asked():
    flat = TrainConfig.from_dict({"lr": 0.001, "updates": 11})
    assert flat.learning_rate(1) == flat.learning_rate(11) == 0.001
    falling = TrainConfig.from_dict({"lr": 0.001, "lr_end": 0.0001, "updates": 11})
    assert [round(falling.learning_rate(u), 6) for u in (1, 6, 11)] == [0.001, 0.00055, 0.0001]
    with pytest.raises(ValueError, match="lr_end"):
        TrainConfig.from_dict({"lr": 0.001, "lr_end": 0.01})


def test_a_share_of_deals_against_a_past_snapshot_splits_the_envs():
    config = TrainConfig.from_dict(
        {"opponent": "heuristic", "opponent_share": 0.5, "snapshot_share": 0.25, "num_envs": 64}
    )
    assert config.groups() == [(None, 16, 0.25), ("heuristic", 32, 0.5), ("snapshot", 16, 0.25)]
    only = TrainConfig.from_dict({"snapshot_share": 1.0, "num_envs": 32})
    assert only.groups() == [("snapshot", 32, 1.0)]
    with pytest.raises(ValueError, match="snapshot_share.*together are more than all the deals"):
        TrainConfig.from_dict({"opponent": "heuristic", "opponent_share": 0.75, "snapshot_share": 0.5})
    with pytest.raises(ValueError, match="snapshot_every"):
        TrainConfig.from_dict({"snapshot_share": 0.25, "snapshot_every": 0})
    with pytest.raises(ValueError, match="average_last"):
        TrainConfig.from_dict({"average_last": 65})


def test_a_second_opponent_gets_its_share_of_the_deals_and_plays_them():
    from shuangkou.dmc.sources import LocalActors

    settings = {"opponent": "heuristic", "opponent_share": 0.5, "snapshot_share": 0.25, "num_envs": 64}
    config = TrainConfig.from_dict({**settings, "second_opponent": "random", "second_opponent_share": 0.25})
    assert config.groups() == [("heuristic", 32, 0.5), ("snapshot", 16, 0.25), ("random", 16, 0.25)]
    assert TrainConfig.from_dict(settings).groups()[:3] == [
        (None, 16, 0.25),
        ("heuristic", 32, 0.5),
        ("snapshot", 16, 0.25),
    ]
    # Its deals are played: the learning seats (0 and 2, the heuristic choosing for them) against `random`.
    taught = {"teacher": "heuristic", "teacher_start": 1.0, "teacher_updates": 10, "collect": 4096}
    config = TrainConfig.from_dict(
        {**vars_of(SMOKE), **taught, "second_opponent": "random", "second_opponent_share": 0.25}
    )
    actors = LocalActors(config, sk._core.Rules("baibian"), QNetwork(sk._core.observation_size(), 44, (64, 32)), 0, 0)
    against_random = actors.groups[2][0].collect(actors.groups[2][1])
    assert set(np.unique(against_random["seat"]).tolist()) == {0, 2}
    assert against_random["target"].mean() > 0.8  # the heuristic beats random
    for name, wrong in (("second_opponent_share", 0.75), ("second_opponent", "none"), ("second_opponent", "os:getcwd")):
        with pytest.raises(ValueError, match="second_opponent"):
            TrainConfig.from_dict({**settings, "second_opponent": "random", "second_opponent_share": 0.25, name: wrong})
    with pytest.raises(ValueError, match="second_opponent and second_opponent_share go together"):
        TrainConfig.from_dict({"second_opponent_share": 0.25})


def test_a_run_that_max_minutes_stops_averages_its_last_models_too(tmp_path):
    settings = {**vars_of(SMOKE), "updates": 10, "eval_every": 1, "log_every": 1, "eval_deals": 4}
    settings |= {"average_last": 2, "max_minutes": 1e-9}  # (stops after each update)
    first = train(TrainConfig.from_dict(settings), tmp_path, progress=False)
    assert first["log"]["update"] == 1 and first["average"] == {}  # one model evaluated: none to average
    second = train(TrainConfig.from_dict(settings), tmp_path, resume=True, progress=False)
    assert second["log"]["update"] == 2 and second["average"]["models_averaged"] == 2
    assert second["average"]["update"] == 2 and (tmp_path / "model_average.safetensors").exists()
    assert json.loads((tmp_path / "average.json").read_text())["update"] == 2


def test_averaged_weights_are_the_mean_tensor_by_tensor():
    from shuangkou.dmc.learner import average_weights

    nets = [QNetwork(8, 4, (5,)) for _ in range(3)]
    mean = average_weights([n.state_dict() for n in nets])
    for k, v in mean.items():
        assert torch.allclose(v, sum(n.state_dict()[k] for n in nets) / 3)
    with pytest.raises(ValueError, match="no weights"):
        average_weights([])


def test_snapshot_deals_and_the_average_of_the_last_models(tmp_path):
    settings = {**vars_of(SMOKE), "updates": 12, "eval_every": 4, "log_every": 4, "eval_deals": 8}
    settings |= {"snapshot_share": 0.25, "snapshot_every": 3, "average_last": 3, "teacher_updates": 4}
    result = train(TrainConfig.from_dict(settings), tmp_path, progress=False)
    rows = list(csv.DictReader(open(tmp_path / "train.csv")))
    seen = [float(r["decisions_per_s"]) * float(r["elapsed_s"]) for r in rows]
    assert seen == sorted(seen)  # the snapshot group's new actors do not lose the count
    average = result["average"]
    assert average["models_averaged"] == 3 and average["update"] == 12
    assert average["wp_lo"] <= average["wp"] <= average["wp_hi"]
    saved = json.loads((tmp_path / "average.json").read_text())
    assert saved == pytest.approx(average)
    averaged = QNetwork.load(tmp_path / "model_average.safetensors")
    last = QNetwork.load(tmp_path / "model.safetensors")
    recent = torch.load(tmp_path / "checkpoint.pt", weights_only=True)["recent"]
    assert len(recent) == 3 and all(torch.equal(recent[-1][k], v) for k, v in last.state_dict().items())
    for k, v in averaged.state_dict().items():
        assert torch.allclose(v, sum(r[k] for r in recent) / 3)
        assert not torch.equal(v, last.state_dict()[k]) or v.numel() == 0
    # A resume that goes on keeps the recent models and may change average_last.
    longer = TrainConfig.from_dict({**settings, "updates": 16, "average_last": 2})
    result = train(longer, tmp_path, resume=True, progress=False)
    assert result["average"]["models_averaged"] == 2


# ---------------------------------------------------------------------------- --set KEY=VALUE (issue 34)


def test_set_replaces_settings_of_the_config_file(tmp_path):
    from shuangkou.dmc.overrides import config_with_overrides

    pairs = ["updates=20", "lr=5e-4", "hidden=[16, 8]", "eval_opponent=heuristic", "checkpoint_minutes=0.5"]
    config = config_with_overrides(SMOKE, [*pairs, "ray.actors=2", "updates=30"])  # the last one given wins
    file = TrainConfig.from_yaml(SMOKE)
    changed = {"updates": 30, "lr": 5e-4, "hidden": (16, 8), "eval_opponent": "heuristic", "checkpoint_minutes": 0.5}
    assert {k: getattr(config, k) for k in changed} == changed
    assert config.ray == dataclasses.replace(RaySettings(), actors=2)  # the section's other keys: defaults
    assert {k: v for k, v in vars(config).items() if k not in {*changed, "ray"}} == {
        k: v for k, v in vars(file).items() if k not in {*changed, "ray"}
    }
    # A base: file's setting is replaced too, and a ray: section keeps the keys not set.
    (tmp_path / "mine.yaml").write_text(f"base: {SMOKE}\nray: {{actors: 2, ahead: 0}}\n")
    config = config_with_overrides(tmp_path / "mine.yaml", ["variant=jj", "ray.restarts=3"])
    assert (config.variant, config.ray) == ("jj", RaySettings(actors=2, ahead=0, restarts=3))
    assert config_with_overrides(tmp_path / "mine.yaml", ["ray="]).ray is None  # empty: null, as in the file


@pytest.mark.parametrize(
    "pair, needles",
    [
        ("learning_rate=0.1", ["--set 'learning_rate=0.1': unknown setting 'learning_rate' (known: variant,", "lr,"]),
        ("lr", ["--set takes KEY=VALUE", "'lr'"]),
        ("lr=abc", ["--set 'lr=abc': lr: 'abc' is not a valid float"]),
        ("updates=0", ["--set 'updates=0': updates: must be an integer 1.."]),
        ("updates=010", ["updates: write integers in plain decimal digits"]),
        ("hidden=[8", ["--set 'hidden=[8': YAML syntax error"]),
        ("checkpoint_minutes=-1", ["checkpoint_minutes: must be 0..1e6 minutes"]),
        ("ray.actors=100", ["--set 'ray.actors=100': ray: actors: 100 actors would get"]),
        ("ray.nodes=2", ["unknown setting 'nodes' of ray: (known: actors, cpus_per_actor, ahead, restarts)"]),
        ("lr.x=1", ["lr is not a section"]),
        ("variant=!!python/object:os.system x", ["tagged '!!python/object:os.system'"]),
    ],
)
def test_set_refuses_a_bad_override_naming_it_before_anything_runs(tmp_path, capsys, pair, needles):
    from shuangkou.cli.train import main

    out = tmp_path / "o"
    assert main(["--config", str(SMOKE), "--out", str(out), "--set", "updates=2", "--set", pair]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: "), err
    for needle in needles:
        assert needle in err, err
    assert not out.exists()


def test_the_help_of_train_teaches_set_ctrl_c_and_checkpoint_minutes(capsys):
    from shuangkou.cli import main

    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for needle in ("--set KEY=VALUE", "--set updates=2000 --set lr=0.0005", "ray.actors=4", "checkpoint_minutes"):
        assert needle in text, needle
    assert "Ctrl-C stops the run" in text and "exits 130" in text
