"""The Deep Monte-Carlo learner: C++ actors play, PyTorch fits Q(s, a) to the deals' returns.

    from shuangkou.dmc.learner import TrainConfig, train
    summary = train(TrainConfig.from_yaml("configs/train/smoke.yaml"), out="runs/smoke")

One update: the actors (`shuangkou._core.DmcActors`: the current weights, epsilon-greedy,
in C++ threads) collect `collect` decisions of finished deals, each labelled with its
deal's final reward for the deciding seat. A share `opponent_share` of the deals is
played by the learning team (seats 0 and 2) against `opponent`, a built-in bot; the rest
is self-play, every seat learning, except a share `snapshot_share` played against a past
snapshot of the network (seats 1 and 3 play it greedily; it is taken afresh every
`snapshot_every` updates, and at the start of a run or a resume) and a share
`second_opponent_share` played against `second_opponent`, another bot. Early on a `teacher`
bot may choose a share of the learning seats' moves, from `teacher_start` falling linearly to 0 at `teacher_updates`
(a warm start: the network first learns the values of the teacher's play, then improves
on it). The decisions go into a replay buffer of the `replay` latest ones (0: none) and
the learner takes one Adam step on the mean squared error of Q(obs, move) against the
target over `batch_size` decisions drawn from it uniformly (without a buffer: the fresh
ones), which decorrelates the decisions of one deal. Every
`push_every` updates the weights go to the actors with a new version number (each
sample carries the version that chose it). Acting and learning alternate, so on a
small machine the two never compete for the cores.

The actors are a sample source (shuangkou.dmc.sources): this machine's C++ actors
(`LocalActors`), or with ``ray=...`` (``train --ray [ADDRESS]``) Ray actors on a cluster
(`shuangkou.dmc.ray_actors.RayActors`, as the config's `ray:` section says: each runs
the same C++ actors over its share of `num_envs` and sends back its share of each
update's decisions; docs/ray_training.md). One learner loop drives either; the learner
stays in this process (on its GPU with `device: auto` where it has one).

Every `eval_every` updates (and at the end) the learner writes `model.safetensors` (the
model file, docs/model_format.md), plays `eval_deals` duplicate deals against
`eval_opponent` (a built-in bot) through the arena (`dmc:OUT/model.safetensors`) and then
writes `checkpoint.pt`: the weights, Adam's state, the counters and the config as a plain
dict, read back with ``torch.load(..., weights_only=True)``; the same file whether the
actors ran here or on a cluster, so either resumes it. Logs: `train.csv` (update,
samples, loss, weights version, teacher's share, decisions/s, elapsed seconds, and the
decisions lost with Ray actors that died and the actors replaced: `lost_samples`,
`actor_restarts`, 0 on one machine) and `eval.csv` (update, WP with its interval, ADP with
its interval); `curve.png` plots both. With `average_last: N` (2 or more) the run ends
by averaging the weights of the last N evaluated models (the checkpoint keeps them; a run
that `max_minutes` stops too),
saving the mean as `model_average.safetensors` and evaluating it on the same deals
(`average.json`). Every file is written whole (a temporary name, then
a rename), so an interrupt never leaves half a checkpoint or model.

A checkpoint is also written every `checkpoint_minutes` (10 by default; 0: only at the
evaluations) after the update under way, so a crash loses at most that much training.
Ctrl-C stops the run after the update under way and writes the checkpoint at it (a
second Ctrl-C stops at once, the last checkpoint kept); `train` then raises
`Interrupted` (a KeyboardInterrupt naming the update and the checkpoint), and
`shuangkou train` says where it saved and how to resume, and exits 130.

Before the first update the learner checks every setting's range, that the run's memory
(replay buffer, actors, a collection, a batch, the network with Adam's state, the
evaluation's per-deal results) fits in the memory available, and that every output in
`out` can be written; each failure is a ValueError naming the setting or file.

`resume=True` goes on from the checkpoint: the weights, Adam's state, the update and
weights-version counters, the sample and time counts; new deals and an empty replay
buffer, the teacher's share where it was. The checkpoint is the point a resume starts
from: `train.csv` and `eval.csv` rows after its update (written after it, before an
interrupt) are dropped, so the logs run on without gaps or repeats. A resume takes a
config that matches the checkpoint's except in RESUME_MAY_CHANGE: `updates` (raise it to
train on), `lr` and `lr_end` (the schedule), `threads`, `device`, `average_last`, the `ray:`
section and the logging, checkpoint and evaluation settings (`log_every`, `checkpoint_minutes`,
`eval_every`, `eval_deals`, `eval_opponent`); any other
difference (the variant, the network, the reward, the actors' and the batch's settings,
the seed) is refused, naming the settings. A fresh run (no resume) refuses a folder that
holds an earlier run's files (any of OUTPUTS) unless `force=True`, which removes them
before the first update; nothing is written or removed before a refusal.
"""

from __future__ import annotations

import ast
import contextlib
import csv
import dataclasses
import io
import json
import os
import signal
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch

from .. import _core
from ..runs.arena import arena, arena_rules
from ..runs.ray_cluster import check_ray_arg
from ..util.figures import agg_figure, plain_text
from ..util.outputs import output_file, prepare_out
from ..util.variant_files import shown
from . import ray_actors
from .buffer import Replay
from .net import QNetwork
from .ray_actors import RayActors, note
from .sources import LocalActors, SampleSource
from .train_config import MAX_AVERAGED, MAX_COUNT, RESUME_MAY_CHANGE, TrainConfig

# The files a run writes into `out`.
OUTPUTS = (
    "model.safetensors",
    "holdout.csv",
    "checkpoint.pt",
    "train.csv",
    "eval.csv",
    "curve.png",
    "model_average.safetensors",
    "average.json",
)


def _device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device: cuda, but no CUDA device is available (use cpu or auto)")
    return torch.device(name)


def _append_csv(path: Path, row: dict[str, Any]) -> None:
    """Appends `row` to a log (its header first, in a new file). A log whose header lacks
    some of the row's columns (an older learner's train.csv, resumed) is rewritten first
    with those columns added, empty in the rows before."""
    header = list(row)
    if path.exists():
        with open(path, newline="", encoding="utf-8") as f:
            old = next(csv.reader([f.readline()]), [])
        header = old + [k for k in row if k not in old]
        if old and header != old:
            with open(path, newline="", encoding="utf-8") as f:
                rows = list(csv.reader(f))
            widened = io.StringIO()
            csv.writer(widened).writerows([header, *(r + [""] * (len(header) - len(old)) for r in rows[1:])])
            with output_file(path, newline="") as f:
                f.write(widened.getvalue())
    new = not path.exists() or path.stat().st_size == 0
    with open(path, "a", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=header, restval="", extrasaction="ignore")
        if new:
            w.writeheader()
        w.writerow(row)


def _log_rows(path: Path, update: int) -> tuple[list[dict[str, str]], str | None]:
    """The rows of a log (train.csv, eval.csv) up to `update`, and the file's new text
    without the rows after it (written after the checkpoint, before an interrupt) and
    without a last row cut short (None: nothing to drop); ValueError naming the file
    when it is not such a log."""
    if not path.exists():
        return [], None
    try:
        text = path.read_text(encoding="utf-8")
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise ValueError(f"--resume: cannot read the log '{path}': {shown(str(e), 200)}") from None
    if not rows:
        return [], None
    header, keep = rows[0], []
    if not header or header[0] != "update":
        raise ValueError(f"--resume: '{path}' is not a log of this learner (its first column is not update)")
    for i, r in enumerate(rows[1:], start=2):
        whole = len(r) == len(header) and r[0].isdigit()
        if whole and int(r[0]) > update:
            break
        if not whole:
            if i == len(rows):  # cut short by an interrupt
                break
            raise ValueError(f"--resume: '{path}' line {i} is not a row of the log: {shown(','.join(r))}")
        keep.append(r)
    if len(keep) == len(rows) - 1:
        return [dict(zip(header, r)) for r in keep], None
    new = io.StringIO()
    csv.writer(new).writerows([header, *keep])
    return [dict(zip(header, r)) for r in keep], new.getvalue()


def curve_figure(train_rows: list[dict[str, str]], eval_rows: list[dict[str, str]]) -> Any:
    """The learning curve as a matplotlib Figure (on its own Agg canvas, no pyplot):
    the loss of train.csv's rows and the WP of eval.csv's rows with its 95% interval.
    (The config sets no target WP, so none is drawn.)"""
    with plain_text():  # an opponent's name is drawn as given, "$" included
        fig = agg_figure(10, 3.8)
        a, b = fig.subplots(1, 2)
        a.plot([int(r["update"]) for r in train_rows], [float(r["loss"]) for r in train_rows], color="#3b75af")
        a.set_title("training loss")
        a.set_xlabel("update")
        a.set_ylabel("loss (MSE of Q against the return)")
        x = [int(r["update"]) for r in eval_rows]
        b.fill_between(
            x,
            [float(r["wp_lo"]) for r in eval_rows],
            [float(r["wp_hi"]) for r in eval_rows],
            alpha=0.2,
            color="#c03d3e",
            label="95% interval",
        )
        b.plot(x, [float(r["wp"]) for r in eval_rows], marker="o", color="#c03d3e", label="WP")
        b.axhline(0.5, color="black", lw=0.8, label="even (0.5)")
        opponents = list(dict.fromkeys(r["opponent"] for r in eval_rows))  # (a resume may change them)
        deals = {r.get("deals") for r in eval_rows}
        title = f"WP against {', then '.join(opponents)}" if opponents else "WP (no evaluation yet)"
        if len(deals) == 1 and (d := deals.pop() or "").isdigit():
            title += f"\n{int(d):,} duplicate deals an evaluation"
        b.set_title(title)
        b.set_ylim(0, 1)
        b.set_xlabel("update")
        b.set_ylabel("WP (duplicate pairs won, ties half)")
        b.legend(loc="best", fontsize=8)
    return fig


def plot_curve(out: Path) -> None:
    """curve.png from train.csv (loss) and eval.csv (WP with its interval): `curve_figure`."""

    def rows(name: str) -> list[dict[str, str]]:
        if not (out / name).exists():
            return []
        with open(out / name, encoding="utf-8") as f:
            return list(csv.DictReader(f))

    fig = curve_figure(rows("train.csv"), rows("eval.csv"))
    with output_file(out / "curve.png", "wb") as f:
        fig.savefig(f, format="png", dpi=110)


def _read_checkpoint(path: Path, out: Path) -> Any:
    """What checkpoint.pt holds, read as data (never code); ValueError naming the file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ValueError(f"--resume: no checkpoint in {out}") from None
    except OSError as e:
        raise ValueError(f"--resume: cannot read checkpoint '{path}': {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"--resume: cannot read checkpoint '{path}': not a regular file")
    try:
        state = torch.load(path, weights_only=True, map_location="cpu")  # data only: never code
    except Exception as e:  # noqa: BLE001 - junk, an empty or cut file: torch raises many kinds
        raise ValueError(
            f"--resume: cannot read checkpoint '{path}': {shown(str(e) or type(e).__name__, 200)}"
        ) from None
    return state


def _load_checkpoint(config: TrainConfig, out: Path) -> dict[str, Any]:
    """The checkpoint in `out`, checked whole against `config` before anything is
    changed; ValueError naming the file and the problem otherwise."""
    path = out / "checkpoint.pt"
    state = _read_checkpoint(path, out)

    def bad(why: str) -> ValueError:
        return ValueError(f"--resume: '{path}' is not a checkpoint of this learner: {why}")

    if not isinstance(state, dict):
        raise bad(f"it holds a {type(state).__name__}, not a dict")
    for key in ("update", "version"):
        v = state.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= MAX_COUNT:
            raise bad(f"{key} is {shown(v)}, not a count")
    for key in ("samples", "decisions", "elapsed_s", "lost_samples", "actor_restarts"):  # (an older one: none)
        v = state.get(key, 0)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 <= v < 2**63:
            raise bad(f"{key} is {shown(v)}, not a count")
    if not isinstance(state.get("optimizer"), dict):
        raise bad("it holds no optimizer state")
    recent = state.get("recent", [])  # (an older learner's checkpoint has none)
    if (
        not isinstance(recent, list)
        or len(recent) > MAX_AVERAGED
        or not all(isinstance(r, dict) and all(isinstance(t, torch.Tensor) for t in r.values()) for r in recent)
    ):
        raise bad("its recent models are not a list of weights")
    saved = state.get("config")
    if saved is None and "net" not in state:  # an older learner's checkpoint: the model file keeps both
        saved = _legacy_config(out)
    if not isinstance(saved, dict):
        raise bad("it holds no config")
    mine, default = config.as_dict(), TrainConfig().as_dict()
    saved = {k: list(v) if isinstance(v, tuple) else v for k, v in saved.items()}
    differ = [k for k in mine if k not in RESUME_MAY_CHANGE and saved.get(k, default[k]) != mine[k]]
    if differ:
        raise ValueError(
            f"--resume: the config differs from the checkpoint's ({path}) in "
            + "; ".join(f"{k}: {shown(mine[k], 40)} here, {shown(saved.get(k, default[k]), 40)} there" for k in differ)
            + f" (a resume may change only {', '.join(RESUME_MAY_CHANGE)})"
        )
    if state["update"] >= config.updates:
        raise ValueError(
            f"--resume: the checkpoint in {out} is at update {state['update']} already; "
            f"raise updates (now {config.updates}) to train on"
        )
    return state


def _legacy_config(out: Path) -> Any:
    """The config of a checkpoint that does not keep it: the model file's metadata."""
    try:
        meta = _core.QNet.load(os.fspath(out / "model.safetensors")).metadata
        return ast.literal_eval(meta.get("config", "None"))
    except (ValueError, SyntaxError, MemoryError, RecursionError) as e:
        raise ValueError(
            f"--resume: the checkpoint in {out} keeps no config and its model file gives none ({e})"
        ) from None


def _restore(state: dict[str, Any], out: Path, net: QNetwork, optimizer: torch.optim.Optimizer) -> None:
    """The checkpoint's weights into `net` (the model file's for an older checkpoint)
    and Adam's state into `optimizer`; ValueError naming the file when they do not fit."""
    path = out / "checkpoint.pt"
    try:
        if "net" in state:
            weights = state["net"]
            if not isinstance(weights, dict) or not all(isinstance(t, torch.Tensor) for t in weights.values()):
                raise ValueError("the weights are not a dict of tensors")
            if not all(bool(torch.isfinite(t).all()) for t in weights.values()):
                raise ValueError("the weights hold a NaN or infinite value")
            net.load_state_dict(weights)
        else:
            net.load_state_dict(QNetwork.load(out / "model.safetensors").state_dict())
        for weights in state.get("recent", []):  # the models average_last averages: this network's
            if {k: tuple(t.shape) for k, t in weights.items()} != {
                k: tuple(t.shape) for k, t in net.state_dict().items()
            }:
                raise ValueError("a recent model's weights are not this network's")
        optimizer.load_state_dict(state["optimizer"])
        for group in optimizer.param_groups:
            for p in group["params"]:
                for t in optimizer.state.get(p, {}).values():
                    if isinstance(t, torch.Tensor) and t.dim() > 0 and t.shape != p.shape:
                        raise ValueError(f"Adam's state has shape {tuple(t.shape)} for a weight of {tuple(p.shape)}")
    except (ValueError, KeyError, TypeError, RuntimeError, IndexError, AttributeError) as e:
        raise ValueError(
            f"--resume: '{path}' does not fit this network (hidden {list(net.hidden)}): {shown(str(e), 200)}"
        ) from None


def _start(config: TrainConfig, out: Path, state: dict[str, Any] | None, net: QNetwork, optimizer: Any) -> dict:
    """Where the run starts: update, version and the counts so far (resumed from
    `state`, whose log rows after its update are dropped; or a fresh folder)."""
    at: dict[str, Any] = {"update": 0, "version": 0, "samples": 0, "decisions": 0.0, "elapsed_s": 0.0}
    at |= {"lost_samples": 0, "actor_restarts": 0}
    if state is None:
        for name in ("train.csv", "eval.csv", "holdout.csv", "checkpoint.pt"):  # a fresh run starts the folder over
            (out / name).unlink(missing_ok=True)
        return at
    _restore(state, out, net, optimizer)
    at["update"], at["version"] = state["update"], state["version"]
    # The logs go on from the checkpoint: rows written after it are dropped (both logs
    # read before either is rewritten).
    logs = {name: _log_rows(out / name, at["update"]) for name in ("train.csv", "eval.csv", "holdout.csv")}
    for name, (_, text) in logs.items():
        if text is not None:
            with output_file(out / name, newline="") as f:
                f.write(text)
    rows = logs["train.csv"][0]
    if "samples" in state:  # the counts at the checkpoint
        at.update(samples=int(state["samples"]), decisions=float(state["decisions"]))
        at["elapsed_s"] = float(state["elapsed_s"])
        at.update(lost_samples=int(state.get("lost_samples", 0)), actor_restarts=int(state.get("actor_restarts", 0)))
    elif rows:  # an older checkpoint: the counts at the last log row
        at.update(samples=int(rows[-1]["samples"]), elapsed_s=float(rows[-1]["elapsed_s"]))
        at["decisions"] = float(rows[-1]["decisions_per_s"]) * at["elapsed_s"]
    return at


def _save_average(
    config: TrainConfig, eval_rules: _core.Rules, out: Path, recent: list[dict], metadata: dict, update: int
) -> dict[str, Any]:
    """The mean of the last evaluated models' weights, saved as model_average.safetensors
    and evaluated as they were; its row also goes to average.json."""
    averaged = QNetwork(_core.observation_size(), _core.MOVE_FEATURE_SIZE, config.hidden)
    averaged.load_state_dict(average_weights(recent))
    path = out / "model_average.safetensors"
    qnet = averaged.save(path, {**metadata, "update": str(update), "averaged": str(len(recent))})
    row = _evaluate(config, eval_rules, _core.Bot.dmc(qnet, f"dmc:{path}"), update)
    row = {**row, "models_averaged": len(recent), "eval_every": config.eval_every}
    with output_file(out / "average.json") as f:
        json.dump(row, f, indent=2)
        f.write("\n")
    return row


def average_weights(states: list[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """The mean of networks' weights (state dicts of one architecture), tensor by tensor."""
    if not states:
        raise ValueError("average_weights: no weights to average")
    return {k: torch.stack([s[k].float() for s in states]).mean(dim=0) for k in states[0]}


def _evaluate(config: TrainConfig, rules: _core.Rules, agent: _core.Bot, update: int) -> dict[str, Any]:
    """The eval.csv row of the network `agent` plays (the one just saved, held in memory:
    nothing is read back): duplicate deals under `rules` against `eval_opponent`, WP and
    ADP with their intervals."""
    r = arena(
        rules,
        agents=[agent, config.eval_opponent],
        deals=config.eval_deals,
        threads=config.threads,
        seed=config.seed,
    )
    p = r["pairs"][0]
    row = {"update": update, "opponent": config.eval_opponent, "deals": p["deals"]}
    for key in ("wp", "adp"):
        ci = p[f"{key}_ci"] or [p[key], p[key]]
        row.update({key: p[key], f"{key}_lo": ci[0], f"{key}_hi": ci[1]})
    return row


def _save_checkpoint(
    out: Path, config: TrainConfig, net: QNetwork, optimizer: Any, at: dict[str, Any], recent: list[dict]
) -> None:
    """checkpoint.pt, written whole: the weights, the optimizer's state, the config
    (a plain dict), `at` (update, version, samples, decisions, elapsed_s) and the
    weights of the last evaluated models that average_last averages (`recent`)."""
    checkpoint = {
        **at,
        "net": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "recent": recent,
        "optimizer": optimizer.state_dict(),
        "config": config.as_dict(),
    }
    with output_file(out / "checkpoint.pt", "wb") as f:
        torch.save(checkpoint, f)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run after update `update`, whose checkpoint `checkpoint` holds:
    `resume=True` (`--resume`) goes on from the next update."""

    def __init__(self, checkpoint: Path, update: int, updates: int) -> None:
        super().__init__(f"interrupted after update {update} of {updates}; saved its checkpoint in {checkpoint}")
        self.checkpoint, self.update, self.updates = checkpoint, update, updates


@contextlib.contextmanager
def _stop_after_update() -> Iterator[list[bool]]:
    """Ctrl-C stops the run after the update under way, which the loop then checkpoints
    (a KeyboardInterrupt raised at any point may be swallowed by a finalizer, and the
    run would go on); a second one stops it at once. Yields the flag list the loop
    checks (non-empty: stop). Only on the main thread, and only where Python's own
    handler is in place."""
    stop: list[bool] = []

    def on_interrupt(signum: int, frame: Any) -> None:
        if stop:
            raise KeyboardInterrupt
        stop.append(True)

    handle = threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    previous = signal.signal(signal.SIGINT, on_interrupt) if handle else None
    try:
        yield stop
    finally:
        if handle:
            signal.signal(signal.SIGINT, previous)


def _learn(net: QNetwork, optimizer: Any, batch: tuple[torch.Tensor, torch.Tensor, torch.Tensor], lr: float) -> float:
    """One Adam step on the mean squared error of Q(obs, move) against the target; the loss."""
    obs, move, target = batch
    for group in optimizer.param_groups:  # (a resumed run takes the config's rate)
        group["lr"] = lr
    loss = torch.nn.functional.mse_loss(net(obs, move), target)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.item()


def _prepare_out(config: TrainConfig, out: Path, resume: bool, force: bool) -> dict[str, Any] | None:
    """The checkpoint to go on from (None for a fresh run), with every output in `out`
    checked writable and an earlier run in it refused unless `resume` or `force`
    (prepare_out); nothing is written or removed before a refusal."""
    if resume and force:
        raise ValueError(
            "--resume and --force do not go together: --resume goes on from the checkpoint, --force starts over"
        )
    state = _load_checkpoint(config, out) if resume else None
    prepare_out(
        out,
        list(OUTPUTS),
        marks=() if resume else OUTPUTS,
        force=force,
        hint="give --resume to go on from its checkpoint or --force to start over (resume=True, force=True in Python)",
    )
    return state


def train(
    config: TrainConfig,
    out: str | os.PathLike,
    resume: bool = False,
    progress: bool = True,
    force: bool = False,
    ray: bool | str = False,
) -> dict:
    """Trains as the module docstring says; returns the last log and evaluation rows.

    Every check (the settings, the memory, the outputs, the checkpoint to resume from)
    comes before anything is written; a ValueError names what failed. `out` holding an
    earlier run's files is refused unless `resume` (go on from its checkpoint) or
    `force` (start over: its files are removed first); the two do not go together.

    `ray` (True, "auto" or "HOST:PORT": shuangkou.ray_cluster) runs the actors as Ray
    actors on that cluster, as the config's `ray:` section says (its defaults without
    one); the learner stays in this process. Without `ray` a `ray:` section is not used
    (a line on stderr says so). The checkpoint is the same either way."""
    from tqdm import tqdm

    if config.distill is not None:  # expert labels alone: no actors
        from .distill import train_distill

        return train_distill(config, Path(out), resume, progress, force)
    ray = check_ray_arg(ray)
    rules = config.check()  # the variant, resolved once for the whole run
    eval_rules = arena_rules(rules)  # and the evaluations' (fixed seats), once too
    out = Path(out)
    device = _device(config.device)
    config.check_memory(device)
    if config.ray is not None and not ray:
        note("the config's ray: section is used only with --ray (ray= in Python): training with this machine's actors")
    with contextlib.ExitStack() as stack:
        cluster = stack.enter_context(ray_actors.ray_cluster_for(ray, config)) if ray else None
        state = _prepare_out(config, out, resume, force)
        run = _Run(config, rules, eval_rules, out, device, state)
        start = run.at["update"]
        if cluster is not None:
            source: SampleSource = RayActors(cluster, config, rules, run.net, run.version, start)
        else:
            source = LocalActors(config, rules, run.net, run.version, start)
        run.source = source
        stack.callback(source.close)  # the actors end however the run does
        bar = stack.enter_context(
            tqdm(total=config.updates, initial=start, unit="update", disable=not progress, desc="dmc")
        )
        run_updates(run, config, out, start, bar)
    return {"log": run.last_log, "eval": run.last_eval, "average": run.average, "out": str(out)}


def run_updates(run: Any, config: TrainConfig, out: Path, start: int, bar: Any) -> None:
    """The learner loop of a run (DMC's or distillation's): updates start+1 onward to
    `updates`, or until `max_minutes` of training have gone by (the last update then
    saved and evaluated); Ctrl-C checkpoints the update under way and raises Interrupted."""
    with _stop_after_update() as stop:
        for update in range(start + 1, config.updates + 1):
            run.step(update, bar)
            if stop and update < config.updates:  # Ctrl-C: the update under way is done, and kept
                run.checkpoint(update)
                raise Interrupted(out / "checkpoint.pt", update, config.updates)
            if config.max_minutes and run.counts()["elapsed_s"] >= 60 * config.max_minutes:
                run.stop_early(update)
                return
            if run.checkpoint_due(update):
                run.checkpoint(update)


class _Run:
    """One training run's state (the network, Adam, the counts, the replay buffer) and
    its update step: the one learner loop, whatever the sample source."""

    def __init__(
        self,
        config: TrainConfig,
        rules: _core.Rules,
        eval_rules: _core.Rules,
        out: Path,
        device: torch.device,
        state: dict[str, Any] | None,
    ) -> None:
        obs_size, move_size = _core.observation_size(), _core.MOVE_FEATURE_SIZE
        self.config, self.rules, self.eval_rules, self.out, self.device = config, rules, eval_rules, out, device
        torch.manual_seed(config.seed)
        self.net = QNetwork(obs_size, move_size, config.hidden).to(device)
        if config.init_from != "none" and state is None:  # (a resume takes the checkpoint's weights)
            self.net.load_state_dict(QNetwork.load(config.init_from).state_dict())
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.lr)
        self.at = _start(config, out, state, self.net, self.optimizer)
        self.version, self.samples = self.at["version"], self.at["samples"]
        self.metadata = {"variant": config.variant, "config": repr(dataclasses.asdict(config))}
        self.metadata.update(config.network_metadata())  # (the model files play as the actors did)
        self.replay = Replay(config.replay, obs_size, move_size, device) if config.replay else None
        self.generator = torch.Generator().manual_seed((config.seed + self.at["update"]) % 2**64)
        self.started = time.perf_counter() - self.at["elapsed_s"]
        # The update of the last checkpoint, and when it was written (or the run started).
        self.saved_at, self.saved_time = self.at["update"], time.monotonic()
        self.last_log: dict[str, Any] = {}
        self.last_eval: dict[str, Any] = {}
        self.average: dict[str, Any] = {}
        # The weights of the last evaluated models (CPU copies), for average_last.
        self.recent: list[dict[str, torch.Tensor]] = list(state.get("recent", [])) if state else []
        self.source: SampleSource | None = None

    def counts(self) -> dict[str, Any]:
        """The counts so far, the checkpoint's and the actors' since it together."""
        s = self.source
        return {
            "samples": self.samples,
            "decisions": self.at["decisions"] + (s.decisions if s else 0),
            "elapsed_s": time.perf_counter() - self.started,
            "lost_samples": self.at["lost_samples"] + (s.lost_samples if s else 0),
            "actor_restarts": self.at["actor_restarts"] + (s.restarts if s else 0),
        }

    def step(self, update: int, bar: Any) -> None:
        """Update `update`: fresh decisions, a learning step, the push, the log row and
        the evaluation that fall due."""
        config, source = self.config, self.source
        assert source is not None
        if config.snapshot_share and update > self.at["update"] + 1 and (update - 1) % config.snapshot_every == 0:
            source.refresh_snapshot(self.net, self.version, update)
        obs, move, target = (torch.from_numpy(a).to(self.device) for a in source.collect(update))
        batch = obs, move, target
        self.samples += len(target)
        if self.replay is not None:
            self.replay.add(*batch)
            batch = self.replay.sample(config.batch_size, self.generator)
        loss = _learn(self.net, self.optimizer, batch, config.learning_rate(update))
        if update % config.push_every == 0:
            self.version += 1
            source.push(self.net, self.version)
        if update % config.log_every == 0 or update == config.updates:
            counts = self.counts()
            rate = counts["decisions"] / counts["elapsed_s"] if counts["elapsed_s"] > 0 else 0.0
            self.last_log = {"update": update, "samples": self.samples, "loss": loss, "version": self.version}
            self.last_log |= {"teacher": config.teacher_prob(update), "decisions_per_s": rate}
            self.last_log |= {k: counts[k] for k in ("elapsed_s", "lost_samples", "actor_restarts")}
            _append_csv(self.out / "train.csv", self.last_log)
            bar.set_postfix(loss=f"{loss:.4f}")
        if update % config.eval_every == 0 or update == config.updates:
            self.last_eval = self.save_and_evaluate(update)
            bar.set_postfix(loss=f"{loss:.4f}", wp=f"{self.last_eval['wp']:.3f}")
            if update == config.updates and len(self.recent) >= 2:
                self.average = _save_average(config, self.eval_rules, self.out, self.recent, self.metadata, update)
        bar.update(1)

    def stop_early(self, update: int) -> None:
        """The last update of a run that max_minutes stops: saved and evaluated (unless it
        just was) and, with average_last, its last models averaged, as at `updates`."""
        if update % self.config.eval_every and update != self.config.updates:
            self.last_eval = self.save_and_evaluate(update)
        if update != self.config.updates and len(self.recent) >= 2:
            self.average = _save_average(self.config, self.eval_rules, self.out, self.recent, self.metadata, update)

    def save_and_evaluate(self, update: int) -> dict[str, Any]:
        """The model, its evaluation and the logs first, the checkpoint last: a resume
        starts from the checkpoint and drops the log rows after it."""
        config, out, net = self.config, self.out, self.net
        meta = {**self.metadata, "update": str(update), "version": str(self.version)}
        qnet = net.save(out / "model.safetensors", meta)
        row = _evaluate(config, self.eval_rules, _core.Bot.dmc(qnet, f"dmc:{out / 'model.safetensors'}"), update)
        _append_csv(out / "eval.csv", row)
        if config.average_last >= 2:
            self.recent.append({k: v.detach().cpu().clone() for k, v in net.state_dict().items()})
            del self.recent[: -config.average_last]
        self.checkpoint(update)
        plot_curve(out)
        return row

    def checkpoint(self, update: int) -> None:
        """checkpoint.pt at `update` (done: its log rows written), unless it is there already."""
        if self.saved_at != update:
            at = {"update": update, "version": self.version, **self.counts()}
            _save_checkpoint(self.out, self.config, self.net, self.optimizer, at, self.recent)
        self.saved_at, self.saved_time = update, time.monotonic()

    def checkpoint_due(self, update: int) -> bool:
        """Whether `checkpoint_minutes` have gone by since the last checkpoint (0: never due)."""
        minutes = self.config.checkpoint_minutes
        return minutes > 0 and update != self.saved_at and time.monotonic() - self.saved_time >= 60 * minutes
