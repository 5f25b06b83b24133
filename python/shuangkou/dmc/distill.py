"""Distillation: a Q network trained on expert labels (a training config's `distill:`
section with `collect: 0`; docs/labels.md, docs/training.md).

    from shuangkou.dmc.learner import TrainConfig, train
    train(TrainConfig.from_yaml("configs/expert/distill_baibian.yaml"), out="runs/distill_baibian")

The labels (shuangkou label) score each labelled decision's candidate plays by
determinized rollouts. One update draws `batch_size` decisions of the training shards
and takes one Adam step on

- the weighted squared error of each candidate's Q, taken relative to the mean Q of its
  decision's candidates, against its rollout value relative to theirs (`adv`), weighted
  by 1 / (adv_se**2 + se_floor**2): the signal of the labels is in the differences,
  measured on shared worlds;
- `abs_weight` times the same error of Q against the candidate's mean win (`win`, weighted
  by its own standard error), so Q keeps the scale of a win probability;
- `rank_weight` times the cross-entropy of the softmax over the candidates' Q toward
  the best-labelled candidate;
- `imitate_weight` times the cross-entropy of the softmax over the candidates' Q /
  `temperature` toward the candidate that the agent played, at the decisions of the
  `imitate` agents (behaviour cloning of an expert, the search bot's own decisions: its
  rule keeps the heuristic's play unless another leads, which the argmax of the labels
  does not);
- `rel_weight` scales the first term (0: none, and then the updates draw the imitated
  decisions alone).

Every `eval_every` updates the run saves model.safetensors, plays `eval_deals` duplicate
deals against `eval_opponent` from the config's seed (the deals that choose checkpoints:
neither eval-v1 nor the labels' deals), and scores the held-out shards (the first
`holdout_shards` of the first folder): holdout.csv gets the regret (the best candidate's
value minus the value of the network's choice among the candidates, both re-estimated on
the `fresh` run's worlds where one is given), the agreement with the best candidate where
its lead exceeds two standard errors, the agreement with the imitated agents' plays
(`imitation`), and the held-out loss. Checkpoints, logs, resume,
Ctrl-C and --force are the DMC learner's (shuangkou.dmc.learner).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .. import _core
from ..expert.labels import MANIFEST, concatenate, read_labels, read_manifest
from . import learner
from .net import QNetwork
from .train_config import DistillSettings, TrainConfig

# What distillation reads of the labels (the full-information state stays on disk).
_DECISION = ("obs", "deal", "imitated", "chosen")
_CANDIDATE = ("move", "win", "win_se", "adv", "adv_se", "score", "score_se")
_EVAL_CHUNK = 8192  # decisions a held-out scoring pass takes at once


def candidate_rows(offset: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """The candidate rows of `decisions` (indexes), decision after decision."""
    counts = offset[decisions + 1] - offset[decisions]
    starts = np.repeat(offset[decisions], counts)
    within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return starts + within


def _subset(a: dict[str, np.ndarray], keep: np.ndarray) -> dict[str, np.ndarray]:
    """The decisions `keep` (a mask) of a label set, with their candidates: only the
    arrays distillation reads."""
    decisions = np.flatnonzero(keep)
    rows = candidate_rows(a["offset"], decisions)
    out = {name: a[name][decisions] for name in _DECISION}
    out |= {name: a[name][rows] for name in _CANDIDATE}
    out["offset"] = np.concatenate([[0], np.cumsum(np.diff(a["offset"])[decisions])]).astype(np.int64)
    return out


def _join(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Label subsets as one (concatenate's rebasing of the offsets)."""
    return concatenate(parts, names=(*_DECISION, *_CANDIDATE, "offset")) if len(parts) > 1 else parts[0]


class LabelData:
    """Expert labels as tensors on `device`: the training decisions, the held-out ones,
    and the held-out candidates' fresh values (None without a `fresh` run)."""

    def __init__(self, settings: DistillSettings, device: torch.device) -> None:
        sets = [_with_imitated(read_labels(folder).arrays, folder, settings.imitate) for folder in settings.labels]
        per_shard = _deals_per_shard(settings.labels[0])
        held = sets[0]["deal"] < settings.holdout_shards * per_shard
        # With imitation alone (rel_weight 0), the other agents' decisions would carry only the
        # absolute term: training draws the imitated decisions alone.
        only = settings.imitate_weight > 0 and settings.rel_weight == 0
        keep = [s["imitated"] if only else np.ones(len(s["deal"]), bool) for s in sets]
        train = _join([_subset(sets[0], keep[0] & ~held)] + [_subset(s, k) for s, k in zip(sets[1:], keep[1:])])
        if len(train["deal"]) == 0:
            raise ValueError(
                f"distill: labels: no decisions left to train on beside the {settings.holdout_shards} held-out shards"
            )
        self.train = _tensors(_as_target(train, settings), device)
        self.holdout = _tensors(_as_target(_subset(sets[0], held), settings), device) if held.any() else None
        self.fresh = None
        if settings.fresh != "none" and self.holdout is not None:
            fresh = _fresh_values(settings.fresh, _subset(sets[0], held))
            self.fresh = torch.from_numpy(fresh[settings.target] / _scale(settings)).to(device)

    def batch(self, size: int, generator: torch.Generator) -> dict[str, torch.Tensor]:
        """`size` training decisions drawn uniformly, with their candidates."""
        idx = torch.randint(int(self.train["n"]), (size,), generator=generator)
        return gather(self.train, idx.to(self.train["obs"].device))


def _with_imitated(a: dict[str, np.ndarray], folder: str, imitate: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The labels with `imitated`: the decisions whose agent is one of `imitate` (as the
    folder's config names its agents) and whose candidates are every legal action (so that
    the softmax leaves no play unconstrained); ValueError naming an agent the labels lack."""
    names = list(read_manifest(Path(folder) / MANIFEST)["config"]["agents"])
    unknown = [x for x in imitate if x not in names]
    if unknown:
        raise ValueError(
            f"distill: imitate: '{unknown[0]}' is not an agent of '{folder}' (its agents: {', '.join(names)})"
        )
    wanted = np.array([name in imitate for name in names] + [False])
    whole = np.diff(a["offset"]) == a["legal"]
    return {**a, "imitated": wanted[a["agent"]] & whole & (a["chosen"] >= 0)}


def _deals_per_shard(folder: str) -> int:
    return int(read_manifest(Path(folder) / MANIFEST)["config"]["deals_per_shard"])


def _scale(s: DistillSettings) -> float:
    return s.score_scale if s.target == "score" else 1.0


def _as_target(a: dict[str, np.ndarray], s: DistillSettings) -> dict[str, np.ndarray]:
    """The labels with `win`, `win_se`, `adv` and `adv_se` holding the target's values:
    the win reward's as labelled, or the deal score's divided by score_scale, its
    relative value taken from the candidates' means (their worlds are shared, so the
    difference of the means is the mean of the differences) and weighted by the
    unpaired standard errors (no paired one is labelled for the score: larger, so
    the weights are conservative)."""
    if s.target == "win":
        return a
    out = dict(a)
    score, se = a["score"] / s.score_scale, a["score_se"] / s.score_scale
    counts = np.diff(a["offset"])
    means = np.add.reduceat(score, a["offset"][:-1]) / counts
    out["win"], out["win_se"] = score.astype(np.float32), se.astype(np.float32)
    out["adv"] = (score - np.repeat(means, counts)).astype(np.float32)
    out["adv_se"] = se.astype(np.float32)
    return out


def _fresh_values(folder: str, held: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The held-out candidates' mean win and score on the fresh run's worlds; ValueError unless the
    fresh run labelled the same decisions' same candidates."""
    fresh = read_labels(folder).arrays
    same = len(fresh["deal"]) == len(held["deal"]) and np.array_equal(fresh["deal"], held["deal"])
    same = same and np.array_equal(fresh["offset"], held["offset"]) and np.array_equal(fresh["move"], held["move"])
    if not same:
        raise ValueError(
            f"distill: fresh: '{folder}' does not hold the held-out shards' decisions and candidates "
            "(label them with the same config but world_salt, and shards: holdout_shards)"
        )
    return {"win": fresh["win"].astype(np.float32), "score": fresh["score"].astype(np.float32)}


def _tensors(a: dict[str, np.ndarray], device: torch.device) -> dict[str, Any]:
    """The arrays as tensors, with each candidate's decision (`seg`) and each decision's
    best-labelled candidate (`best`, a row) and its lead over the second in standard errors."""
    t: dict[str, Any] = {
        k: torch.from_numpy(np.ascontiguousarray(a[k])).to(device) for k in (*_CANDIDATE, "obs", "offset")
    }
    counts = np.diff(a["offset"])
    seg = np.repeat(np.arange(len(counts)), counts)
    t["n"], t["seg"] = len(counts), torch.from_numpy(seg).to(device)
    best, lead = _best(a["adv"], a["adv_se"], a["offset"])
    t["best"], t["lead"] = torch.from_numpy(best).to(device), torch.from_numpy(lead).to(device)
    played = np.where(a["imitated"], a["offset"][:-1] + a["chosen"], -1)  # (rows; -1: not imitated)
    t["played"] = torch.from_numpy(played.astype(np.int64)).to(device)
    return t


def _best(adv: np.ndarray, se: np.ndarray, offset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per decision: the row of the highest adv, and its lead over the second highest in
    standard errors of the difference (sqrt of the two se**2: an upper bound, as the
    paired values are positively correlated)."""
    n = len(offset) - 1
    best, lead = np.zeros(n, np.int64), np.zeros(n, np.float32)
    for i in range(n):
        lo, hi = offset[i], offset[i + 1]
        order = np.argsort(-adv[lo:hi], kind="stable")
        b, c = lo + order[0], lo + order[1] if hi - lo > 1 else lo + order[0]
        best[i] = b
        lead[i] = (adv[b] - adv[c]) / max(float(np.hypot(se[b], se[c])), 1e-6) if c != b else 0.0
    return best, lead


def gather(data: dict[str, Any], idx: torch.Tensor) -> dict[str, torch.Tensor]:
    """Decisions `idx` of `data` with their candidates: obs per candidate row, the
    candidates' arrays, `seg` (each row's decision within the batch) and `best` (rows)."""
    offset = data["offset"]
    counts = offset[idx + 1] - offset[idx]
    seg = torch.repeat_interleave(torch.arange(len(idx), device=idx.device), counts)
    first = torch.cumsum(counts, 0) - counts
    rows = candidate_rows_t(offset, idx)
    out = {k: data[k][rows] for k in _CANDIDATE}
    out["obs"] = data["obs"][idx][seg]
    out["seg"], out["counts"] = seg, counts
    out["best"] = data["best"][idx] - offset[idx] + first  # (rows of the batch)
    out["lead"] = data["lead"][idx]
    played = data["played"][idx]
    out["played"] = torch.where(played >= 0, played - offset[idx] + first, played)  # (-1: not imitated)
    return out


def _segment_max(q: torch.Tensor, seg: torch.Tensor, n: int) -> torch.Tensor:
    return torch.full((n,), -torch.inf, dtype=q.dtype, device=q.device).scatter_reduce_(0, seg, q, "amax")


def distill_loss(
    net: QNetwork, b: dict[str, torch.Tensor], s: DistillSettings
) -> tuple[torch.Tensor, dict[str, float]]:
    """The distillation loss of a batch (the module's docstring) and its parts."""
    q = net(b["obs"], b["move"])
    seg, counts = b["seg"], b["counts"]
    n = len(counts)
    mean_q = torch.zeros(n, dtype=q.dtype, device=q.device).index_add_(0, seg, q) / counts
    w = 1 / (b["adv_se"] ** 2 + s.se_floor**2)
    rel = (w * (q - mean_q[seg] - b["adv"]) ** 2).sum() / w.sum()
    wa = 1 / (b["win_se"] ** 2 + s.se_floor**2)
    absolute = (wa * (q - b["win"]) ** 2).sum() / wa.sum()
    loss = s.rel_weight * rel + s.abs_weight * absolute
    parts = {"rel_loss": rel.item(), "abs_loss": absolute.item()}
    if s.rank_weight > 0:
        rank = (_log_sum_exp(q, seg, n) - q[b["best"]]).mean()
        loss = loss + s.rank_weight * rank
        parts["rank_loss"] = rank.item()
    if s.imitate_weight > 0:
        mine = b["played"] >= 0
        logits = q / s.temperature
        ce = (_log_sum_exp(logits, seg, n) - logits[b["played"].clamp(min=0)])[mine]
        imitation = ce.mean() if len(ce) else q.sum() * 0
        loss = loss + s.imitate_weight * imitation
        parts["imitate_loss"] = imitation.item()
    return loss, parts


def _log_sum_exp(x: torch.Tensor, seg: torch.Tensor, n: int) -> torch.Tensor:
    """Per decision, the log of the sum of exp(x) over its candidate rows."""
    top = _segment_max(x.detach(), seg, n)
    return torch.zeros(n, dtype=x.dtype, device=x.device).index_add_(0, seg, torch.exp(x - top[seg])).log() + top


@torch.no_grad()
def choices(net: QNetwork, b: dict[str, torch.Tensor]) -> torch.Tensor:
    """Per decision of the batch, the row of the candidate of highest Q (ties: the first)."""
    q = net(b["obs"], b["move"])
    n = len(b["counts"])
    top = _segment_max(q, b["seg"], n)
    rows = torch.arange(len(q), device=q.device)
    at_top = torch.where(q == top[b["seg"]], rows, torch.full_like(rows, len(q)))
    return torch.full((n,), len(q), dtype=rows.dtype, device=q.device).scatter_reduce_(0, b["seg"], at_top, "amin")


@torch.no_grad()
def holdout_scores(net: QNetwork, data: dict[str, Any], fresh: torch.Tensor | None, s: DistillSettings) -> dict:
    """The network's figures on held-out decisions: regret (the best-labelled candidate's
    value minus that of the network's choice among the candidates, on the fresh worlds
    where given), agreement with the best where its lead exceeds 2 standard errors, and
    the distillation loss."""
    values = fresh if fresh is not None else data["win"]
    regret, agree, clear, loss, n = 0.0, 0, 0, 0.0, int(data["n"])
    same, imitated = 0, 0
    for lo in range(0, n, _EVAL_CHUNK):
        idx = torch.arange(lo, min(n, lo + _EVAL_CHUNK), device=data["obs"].device)
        b = gather(data, idx)
        rows = candidate_rows_t(data["offset"], idx)
        pick, best = choices(net, b), b["best"]
        regret += (values[rows[best]] - values[rows[pick]]).sum().item()
        sure = b["lead"] > 2
        agree += int((pick == best)[sure].sum())
        clear += int(sure.sum())
        mine = b["played"] >= 0
        same += int((pick == b["played"])[mine].sum())
        imitated += int(mine.sum())
        loss += distill_loss(net, b, s)[0].item() * len(idx)
    return {
        "regret": regret / n,
        "agreement": agree / clear if clear else float("nan"),
        "clear_share": clear / n,
        "imitation": same / imitated if imitated else float("nan"),
        "holdout_loss": loss / n,
        "fresh": fresh is not None,
        "decisions": n,
    }


def candidate_rows_t(offset: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """candidate_rows for tensors."""
    counts = offset[idx + 1] - offset[idx]
    first = torch.cumsum(counts, 0) - counts
    starts = torch.repeat_interleave(offset[idx], counts)
    return starts + torch.arange(int(counts.sum()), device=idx.device) - torch.repeat_interleave(first, counts)


class DistillRun:
    """One distillation run: the network, Adam, the labels and the counts; its update
    step logs, evaluates and checkpoints as the DMC learner's does."""

    def __init__(
        self, config: TrainConfig, data: LabelData, eval_rules: _core.Rules, out: Path, device: torch.device, state: Any
    ) -> None:
        assert config.distill is not None
        self.config, self.settings, self.eval_rules, self.out = config, config.distill, eval_rules, out
        torch.manual_seed(config.seed)
        self.net = QNetwork(_core.observation_size(), _core.MOVE_FEATURE_SIZE, config.hidden).to(device)
        if config.init_from != "none" and state is None:
            self.net.load_state_dict(QNetwork.load(config.init_from).state_dict())
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.lr)
        self.at = learner._start(config, out, state, self.net, self.optimizer)
        self.samples = self.at["samples"]
        self.data = data
        # The weights the anchor term pulls toward (anchor_weight): the start's.
        self.start = [p.detach().clone() for p in self.net.parameters()] if self.settings.anchor_weight else []
        self.metadata = {"variant": config.variant, "config": repr(dataclasses.asdict(config))}
        self.metadata.update(config.network_metadata())  # (its evaluations and files play with the prior)
        self.generator = torch.Generator()
        self.started = time.perf_counter() - self.at["elapsed_s"]
        self.saved_at, self.saved_time = self.at["update"], time.monotonic()
        self.last_log: dict[str, Any] = {}
        self.last_eval: dict[str, Any] = {}

    def counts(self) -> dict[str, Any]:
        return {"samples": self.samples, "decisions": 0.0, "elapsed_s": time.perf_counter() - self.started}

    def step(self, update: int, bar: Any) -> None:
        """Update `update`: one Adam step on a batch of labels, and the log row and
        evaluation that fall due."""
        config = self.config
        # Each update's batch from its own seed: a resumed run draws what the straight run drew.
        self.generator.manual_seed((config.seed * 1_000_003 + update) % 2**63)
        batch = self.data.batch(config.batch_size, self.generator)
        for group in self.optimizer.param_groups:
            group["lr"] = config.learning_rate(update)
        loss, parts = distill_loss(self.net, batch, self.settings)
        if self.start:
            params = list(self.net.parameters())
            drift = sum(((p - p0) ** 2).sum() for p, p0 in zip(params, self.start)) / sum(p.numel() for p in params)
            loss = loss + self.settings.anchor_weight * drift
            parts["anchor"] = float(drift)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.samples += config.batch_size
        if update % config.log_every == 0 or update == config.updates:
            self.last_log = {"update": update, "samples": self.samples, "loss": loss.item(), **parts}
            self.last_log["elapsed_s"] = self.counts()["elapsed_s"]
            learner._append_csv(self.out / "train.csv", self.last_log)
            bar.set_postfix(loss=f"{loss.item():.4f}")
        if update % config.eval_every == 0 or update == config.updates:
            self.last_eval = self.save_and_evaluate(update)
            bar.set_postfix(loss=f"{loss.item():.4f}", wp=f"{self.last_eval['wp']:.3f}")
        bar.update(1)

    def stop_early(self, update: int) -> None:
        """The last update of a run that max_minutes stops: saved and evaluated unless it
        just was (distillation averages no models)."""
        if update % self.config.eval_every and update != self.config.updates:
            self.last_eval = self.save_and_evaluate(update)

    def save_and_evaluate(self, update: int) -> dict[str, Any]:
        """The model, its duplicate-deal evaluation and held-out figures, then the checkpoint."""
        config, out = self.config, self.out
        qnet = self.net.save(out / "model.safetensors", {**self.metadata, "update": str(update)})
        row = learner._evaluate(
            config, self.eval_rules, _core.Bot.dmc(qnet, f"dmc:{out / 'model.safetensors'}"), update
        )
        learner._append_csv(out / "eval.csv", row)
        if self.data.holdout is not None:
            scores = holdout_scores(self.net, self.data.holdout, self.data.fresh, self.settings)
            learner._append_csv(out / "holdout.csv", {"update": update, **scores})
        self.checkpoint(update)
        learner.plot_curve(out)
        return row

    def checkpoint(self, update: int) -> None:
        if self.saved_at != update:
            at = {"update": update, "version": 0, **self.counts()}
            learner._save_checkpoint(self.out, self.config, self.net, self.optimizer, at, [])
        self.saved_at, self.saved_time = update, time.monotonic()

    def checkpoint_due(self, update: int) -> bool:
        minutes = self.config.checkpoint_minutes
        return minutes > 0 and update != self.saved_at and time.monotonic() - self.saved_time >= 60 * minutes


def train_distill(config: TrainConfig, out: Path, resume: bool, progress: bool, force: bool) -> dict[str, Any]:
    """A distillation run (learner.train's, for a config with a distill: section)."""
    from tqdm import tqdm

    rules = config.check()
    out = Path(out)
    device = learner._device(config.device)
    data = LabelData(config.distill, device)  # (read and checked before anything is written)
    state = learner._prepare_out(config, out, resume, force)
    run = DistillRun(config, data, learner.arena_rules(rules), out, device, state)
    start = run.at["update"]
    with tqdm(total=config.updates, initial=start, unit="update", disable=not progress, desc="distill") as bar:
        learner.run_updates(run, config, out, start, bar)
    return {"log": run.last_log, "eval": run.last_eval, "average": {}, "out": str(out)}
