"""The Deep Monte-Carlo learner: C++ actors play, PyTorch fits Q(s, a) to the deals' returns.

    from shuangkou.dmc.learner import TrainConfig, train
    summary = train(TrainConfig.from_yaml("configs/train/smoke.yaml"), out="runs/smoke")

One update: the actors (`shuangkou._core.DmcActors`: the current weights, epsilon-greedy,
in C++ threads) collect `collect` decisions of finished deals, each labelled with its
deal's final reward for the deciding seat. A share `opponent_share` of the deals is
played by the learning team (seats 0 and 2) against `opponent`, a built-in bot; the rest
is self-play, every seat learning. Early on a `teacher` bot may choose a share of the
learning seats' moves, from `teacher_start` falling linearly to 0 at `teacher_updates`
(a warm start: the network first learns the values of the teacher's play, then improves
on it). The decisions go into a replay buffer of the `replay` latest ones (0: none) and
the learner takes one Adam step on the mean squared error of Q(obs, move) against the
target over `batch_size` decisions drawn from it uniformly (without a buffer: the fresh
ones), which decorrelates the decisions of one deal. Every
`push_every` updates the weights go to the actors with a new version number (each
sample carries the version that chose it). Acting and learning alternate, so on a
small machine the two never compete for the cores.

Every `eval_every` updates (and at the end) the learner writes `model.safetensors` (the
model file, docs/model_format.md) and `checkpoint.pt` (the optimizer state, read back
with ``torch.load(..., weights_only=True)``; a resumed run starts with an empty replay
buffer and the teacher's share where it was), and plays `eval_deals` duplicate deals
against `eval_opponent` through the arena (`dmc:OUT/model.safetensors`). Logs:
`train.csv` (update, samples, loss, decisions/s, elapsed) and `eval.csv` (update, WP
with its interval, ADP with its interval); `curve.png` plots both.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from .. import _core
from ..agents import resolve_agent
from ..arena import arena
from .net import QNetwork


@dataclasses.dataclass
class TrainConfig:
    """Every training setting (configs/train/*.yaml give them all)."""

    variant: str = "baibian"  # a preset or a variant YAML file
    hidden: tuple[int, ...] = (256, 128)  # hidden layer widths
    reward: str = "win"  # the Monte-Carlo target: win, score or log
    epsilon: float = 0.05  # the actors' exploration
    num_envs: int = 256  # deals the actors step side by side
    threads: int = 0  # actor threads (0: every core)
    opponent: str = "self"  # a built-in bot the learning team also plays against ("self": none)
    opponent_share: float = 0.0  # share of the deals played against it
    teacher: str = "none"  # a built-in bot choosing a share of the learning seats' moves
    teacher_start: float = 0.0  # its share at update 0 ...
    teacher_updates: int = 0  # ... falling linearly to 0 here
    collect: int = 4096  # fresh decisions an update
    replay: int = 0  # decisions the replay buffer keeps (0: train on the fresh ones)
    batch_size: int = 4096  # decisions an update trains on
    lr: float = 3e-4  # Adam's learning rate ...
    lr_end: float = 0.0  # ... falling linearly to this at the last update (0: constant)
    updates: int = 20000  # learner updates in all
    push_every: int = 4  # updates between weight pushes
    log_every: int = 50  # updates between train.csv rows
    eval_every: int = 1000  # updates between evaluations
    eval_deals: int = 1000  # duplicate deals an evaluation
    eval_opponent: str = "heuristic"  # the evaluation's opponent
    seed: int = 1
    device: str = "auto"  # auto, cpu or cuda

    @classmethod
    def from_yaml(cls, path: str | os.PathLike) -> TrainConfig:
        """Reads a config file; ValueError naming an unknown key or a bad value.

        `base: FILE` (relative to the config's folder) takes every setting from FILE
        that this file does not give."""
        return cls.from_dict(_read_yaml(Path(path), ()), str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "config") -> TrainConfig:
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(fields))
        if unknown:
            raise ValueError(f"{where}: unknown setting(s) {', '.join(unknown)} (known: {', '.join(fields)})")
        values: dict[str, Any] = {}
        for name, value in data.items():
            default = getattr(cls(), name)
            ok = not isinstance(value, bool)
            if isinstance(default, tuple):
                ok = ok and isinstance(value, list) and bool(value)
                ok = ok and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)
                value = tuple(value) if ok else value
            elif isinstance(default, float):
                ok = ok and isinstance(value, (int, float))
                value = float(value) if ok else value
            else:
                ok = ok and isinstance(value, type(default))
            if not ok:
                kind = "list of widths" if isinstance(default, tuple) else type(default).__name__
                raise ValueError(f"{where}: {name}: {value!r} is not a valid {kind}")
            values[name] = value
        config = cls(**values)
        config.check(where)
        return config

    def check(self, where: str = "config") -> None:
        positive = (
            "num_envs",
            "collect",
            "batch_size",
            "updates",
            "push_every",
            "log_every",
            "eval_every",
            "eval_deals",
        )
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{where}: {name} must be at least 1, got {getattr(self, name)}")
        for name in ("epsilon", "opponent_share", "teacher_start"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{where}: {name} must be in [0, 1], got {getattr(self, name)}")
        for name in ("replay", "teacher_updates"):
            if getattr(self, name) < 0:
                raise ValueError(f"{where}: {name} must be at least 0, got {getattr(self, name)}")
        if 0 < self.replay < self.batch_size:
            raise ValueError(f"{where}: replay ({self.replay}) must hold at least batch_size ({self.batch_size})")
        if self.replay == 0 and self.collect < self.batch_size:
            raise ValueError(f"{where}: without a replay buffer collect must be at least batch_size")
        if (self.opponent == "self") != (self.opponent_share == 0):
            raise ValueError(f"{where}: opponent and opponent_share go together (self with 0, a bot with a share)")
        if (self.teacher == "none") != (self.teacher_start == 0 or self.teacher_updates == 0):
            raise ValueError(f"{where}: teacher, teacher_start and teacher_updates go together (none with 0)")
        for name in ("opponent", "teacher"):
            if getattr(self, name) not in ("self", "none"):
                _core.bot_label(getattr(self, name))  # an unknown bot is named here
        for opponent, envs, _ in self.groups():
            if envs < 8:
                raise ValueError(
                    f"{where}: num_envs ({self.num_envs}) gives {envs} deals to the "
                    f"{opponent or 'self-play'} group (at least 8)"
                )
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(f"{where}: lr must be a positive number, got {self.lr}")
        if not (0 <= self.lr_end <= self.lr and math.isfinite(self.lr_end)):
            raise ValueError(f"{where}: lr_end must be in [0, lr], got {self.lr_end}")
        if self.reward not in ("win", "score", "log"):
            raise ValueError(f"{where}: reward must be win, score or log, got {self.reward!r}")
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"{where}: device must be auto, cpu or cuda, got {self.device!r}")
        _core.Rules(self.variant)  # a bad variant is reported here
        resolve_agent(self.eval_opponent)

    def groups(self) -> list[tuple[str | None, int, float]]:
        """The actor groups: (opponent bot or None for self-play, envs, share of the decisions)."""
        if self.opponent == "self":
            return [(None, self.num_envs, 1.0)]
        against = round(self.num_envs * self.opponent_share)
        groups = [
            (None, self.num_envs - against, 1 - self.opponent_share),
            (self.opponent, against, self.opponent_share),
        ]
        return [g for g in groups if g[2] > 0]

    def learning_rate(self, update: int) -> float:
        """Adam's learning rate for `update` (1-based)."""
        if self.lr_end == 0:
            return self.lr
        return self.lr + (self.lr_end - self.lr) * (update - 1) / max(1, self.updates - 1)

    def teacher_prob(self, update: int) -> float:
        """The teacher's share of the learning seats' moves at `update`."""
        if self.teacher == "none":
            return 0.0
        return self.teacher_start * max(0.0, 1 - update / self.teacher_updates)


def _read_yaml(path: Path, seen: tuple[Path, ...]) -> dict[str, Any]:
    if path.resolve() in seen:
        raise ValueError(f"{path}: the base settings include themselves")
    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a training config is a mapping of settings")
    base = data.pop("base", None)
    if base is None:
        return data
    if not isinstance(base, str):
        raise ValueError(f"{path}: base: {base!r} is not a file name")
    return {**_read_yaml(path.parent / base, (*seen, path.resolve())), **data}


class Replay:
    """The latest `capacity` decisions (obs, move, target) on `device`; sample() draws uniformly."""

    def __init__(self, capacity: int, obs_size: int, move_size: int, device: torch.device):
        self.obs = torch.zeros((capacity, obs_size), dtype=torch.float32, device=device)
        self.move = torch.zeros((capacity, move_size), dtype=torch.float32, device=device)
        self.target = torch.zeros(capacity, dtype=torch.float32, device=device)
        self.capacity, self.size, self.next = capacity, 0, 0

    def add(self, obs: torch.Tensor, move: torch.Tensor, target: torch.Tensor) -> None:
        n = min(len(target), self.capacity)
        obs, move, target = obs[-n:], move[-n:], target[-n:]
        idx = (torch.arange(n, device=self.obs.device) + self.next) % self.capacity
        self.obs[idx], self.move[idx], self.target[idx] = obs, move, target
        self.next = (self.next + n) % self.capacity
        self.size = min(self.capacity, self.size + n)

    def sample(self, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        idx = torch.randint(0, self.size, (n,), generator=generator).to(self.obs.device)
        return self.obs[idx], self.move[idx], self.target[idx]


def _device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device cuda: no CUDA device is available (use cpu or auto)")
    return torch.device(name)


def _append_csv(path: Path, row: dict[str, Any]) -> None:
    new = not path.exists()
    with open(path, "a", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        if new:
            w.writeheader()
        w.writerow(row)


def plot_curve(out: Path) -> None:
    """curve.png from train.csv (loss) and eval.csv (WP with its interval)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.6))
    if (out / "train.csv").exists():
        rows = list(csv.DictReader(open(out / "train.csv", encoding="utf-8")))
        a.plot([int(r["update"]) for r in rows], [float(r["loss"]) for r in rows], color="#3b75af")
    a.set_xlabel("update")
    a.set_ylabel("loss (MSE of Q against the return)")
    if (out / "eval.csv").exists():
        rows = list(csv.DictReader(open(out / "eval.csv", encoding="utf-8")))
        x = [int(r["update"]) for r in rows]
        b.plot(x, [float(r["wp"]) for r in rows], marker="o", color="#c03d3e")
        b.fill_between(x, [float(r["wp_lo"]) for r in rows], [float(r["wp_hi"]) for r in rows], alpha=0.2)
        b.set_title(f"WP against {rows[0]['opponent']}" if rows else "")
    b.axhline(0.5, color="black", lw=0.8)
    b.set_ylim(0, 1)
    b.set_xlabel("update")
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=110)
    plt.close(fig)


def train(config: TrainConfig, out: str | os.PathLike, resume: bool = False, progress: bool = True) -> dict:
    """Trains as the module docstring says; returns the last log and evaluation rows."""
    from tqdm import tqdm

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(config.seed)
    device = _device(config.device)
    obs_size, move_size = _core.observation_size(), _core.MOVE_FEATURE_SIZE
    start_update, version = 0, 0
    if resume:
        if not (out / "checkpoint.pt").exists():
            raise ValueError(f"--resume: no checkpoint in {out}")
        state = torch.load(out / "checkpoint.pt", weights_only=True)  # data only: never code
        net = QNetwork.load(out / "model.safetensors")
        start_update, version = int(state["update"]), int(state["version"])
        if start_update >= config.updates:
            raise ValueError(
                f"--resume: the checkpoint in {out} is at update {start_update} already; "
                f"raise updates (now {config.updates}) to train on"
            )
    else:
        for name in ("train.csv", "eval.csv"):
            (out / name).unlink(missing_ok=True)
        net = QNetwork(obs_size, move_size, config.hidden)
    net = net.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.lr)
    if resume:
        optimizer.load_state_dict(state["optimizer"])
    metadata = {"variant": config.variant, "config": repr(dataclasses.asdict(config))}
    groups = [
        (
            _core.DmcActors(
                config.variant,
                net.to_qnet(),
                version=version,
                num_envs=envs,
                seed=config.seed + start_update + 1_000_003 * g,
                threads=config.threads,
                reward=config.reward,
                epsilon=config.epsilon,
                opponent=opponent,
                teacher=None if config.teacher == "none" else config.teacher,
                teacher_prob=config.teacher_prob(start_update),
            ),
            max(1, round(config.collect * share)),
        )
        for g, (opponent, envs, share) in enumerate(config.groups())
    ]
    replay = Replay(config.replay, obs_size, move_size, device) if config.replay else None
    generator = torch.Generator().manual_seed(config.seed + start_update)
    # A resumed run goes on counting samples, decisions and time from train.csv's last row.
    samples, decisions0, elapsed0 = 0, 0.0, 0.0
    if resume and (out / "train.csv").exists():
        rows = list(csv.DictReader(open(out / "train.csv", encoding="utf-8")))
        if rows:
            samples, elapsed0 = int(rows[-1]["samples"]), float(rows[-1]["elapsed_s"])
            decisions0 = float(rows[-1]["decisions_per_s"]) * elapsed0
    started = time.perf_counter() - elapsed0
    last_log: dict[str, Any] = {}
    last_eval: dict[str, Any] = {}

    def save_and_evaluate(update: int) -> dict[str, Any]:
        net.save(out / "model.safetensors", {**metadata, "update": str(update), "version": str(version)})
        torch.save({"optimizer": optimizer.state_dict(), "update": update, "version": version}, out / "checkpoint.pt")
        r = arena(
            config.variant,
            agents=[f"dmc:{out / 'model.safetensors'}", config.eval_opponent],
            deals=config.eval_deals,
            threads=config.threads,
            seed=config.seed,
        )
        p = r["pairs"][0]
        row = {
            "update": update,
            "opponent": config.eval_opponent,
            "deals": p["deals"],
            "wp": p["wp"],
            "wp_lo": p["wp_ci"][0] if p["wp_ci"] else p["wp"],
            "wp_hi": p["wp_ci"][1] if p["wp_ci"] else p["wp"],
            "adp": p["adp"],
            "adp_lo": p["adp_ci"][0] if p["adp_ci"] else p["adp"],
            "adp_hi": p["adp_ci"][1] if p["adp_ci"] else p["adp"],
        }
        _append_csv(out / "eval.csv", row)
        plot_curve(out)
        return row

    bar = tqdm(total=config.updates, initial=start_update, unit="update", disable=not progress, desc="dmc")
    try:
        for update in range(start_update + 1, config.updates + 1):
            fresh = [actors.collect(n) for actors, n in groups]
            samples += sum(len(b["target"]) for b in fresh)
            obs = torch.from_numpy(np.concatenate([b["obs"] for b in fresh])).to(device)
            move = torch.from_numpy(np.concatenate([b["move"] for b in fresh])).to(device)
            target = torch.from_numpy(np.concatenate([b["target"] for b in fresh])).to(device)
            if replay is not None:
                replay.add(obs, move, target)
                obs, move, target = replay.sample(config.batch_size, generator)
            for group in optimizer.param_groups:  # (a resumed run takes the config's rate)
                group["lr"] = config.learning_rate(update)
            loss = torch.nn.functional.mse_loss(net(obs, move), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if config.teacher != "none" and update <= config.teacher_updates:  # (0 from there on)
                for actors, _ in groups:
                    actors.set_teacher_prob(config.teacher_prob(update))
            if update % config.push_every == 0:
                version += 1
                qnet = net.to_qnet()  # (copied to the CPU, wherever the learner runs)
                for actors, _ in groups:
                    actors.set_network(qnet, version)
            if update % config.log_every == 0 or update == config.updates:
                elapsed = time.perf_counter() - started
                last_log = {
                    "update": update,
                    "samples": samples,
                    "loss": loss.item(),
                    "version": version,
                    "teacher": config.teacher_prob(update),
                    "decisions_per_s": (decisions0 + sum(a.decisions for a, _ in groups)) / elapsed
                    if elapsed > 0
                    else 0.0,
                    "elapsed_s": elapsed,
                }
                _append_csv(out / "train.csv", last_log)
                bar.set_postfix(loss=f"{loss.item():.4f}")
            if update % config.eval_every == 0 or update == config.updates:
                last_eval = save_and_evaluate(update)
                bar.set_postfix(loss=f"{loss.item():.4f}", wp=f"{last_eval['wp']:.3f}")
            bar.update(1)
    finally:
        bar.close()
    return {"log": last_log, "eval": last_eval, "out": str(out)}
