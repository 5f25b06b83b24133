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
model file, docs/model_format.md), plays `eval_deals` duplicate deals against
`eval_opponent` (a built-in bot) through the arena (`dmc:OUT/model.safetensors`) and then
writes `checkpoint.pt`: the weights, Adam's state, the counters and the config as a plain
dict, read back with ``torch.load(..., weights_only=True)``. Logs: `train.csv` (update,
samples, loss, decisions/s, elapsed) and `eval.csv` (update, WP with its interval, ADP with
its interval); `curve.png` plots both. Every file is written whole (a temporary name, then
a rename), so an interrupt never leaves half a checkpoint or model.

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
train on), `lr` and `lr_end` (the schedule), `threads`, `device` and the logging and
evaluation settings (`log_every`, `eval_every`, `eval_deals`, `eval_opponent`); any other
difference (the variant, the network, the reward, the actors' and the batch's settings,
the seed) is refused, naming the settings. A fresh run (no resume) starts the folder's
logs and checkpoint over.
"""

from __future__ import annotations

import ast
import contextlib
import csv
import dataclasses
import io
import os
import signal
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .. import _core
from ..arena import arena, arena_rules
from ..config import shown
from ..outputs import output_file, prepare_out
from .config import MAX_COUNT, RESUME_MAY_CHANGE, TrainConfig
from .net import QNetwork
from .replay import Replay

# The files a run writes into `out`.
OUTPUTS = ("model.safetensors", "checkpoint.pt", "train.csv", "eval.csv", "curve.png")


def _device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device: cuda, but no CUDA device is available (use cpu or auto)")
    return torch.device(name)


def _append_csv(path: Path, row: dict[str, Any]) -> None:
    new = not path.exists()
    with open(path, "a", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
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
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"text.parse_math": False}):  # an opponent's name is drawn as given, "$" included
        fig = Figure(figsize=(10, 3.8), layout="constrained")
        FigureCanvasAgg(fig)
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


def _load_checkpoint(config: TrainConfig, out: Path) -> dict[str, Any]:
    """The checkpoint in `out`, checked whole against `config` before anything is
    changed; ValueError naming the file and the problem otherwise."""
    path = out / "checkpoint.pt"
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

    def bad(why: str) -> ValueError:
        return ValueError(f"--resume: '{path}' is not a checkpoint of this learner: {why}")

    if not isinstance(state, dict):
        raise bad(f"it holds a {type(state).__name__}, not a dict")
    for key in ("update", "version"):
        v = state.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= MAX_COUNT:
            raise bad(f"{key} is {shown(v)}, not a count")
    for key in ("samples", "decisions", "elapsed_s"):  # (an older learner's checkpoint has none)
        v = state.get(key, 0)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 <= v < 2**63:
            raise bad(f"{key} is {shown(v)}, not a count")
    if not isinstance(state.get("optimizer"), dict):
        raise bad("it holds no optimizer state")
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
    at = {"update": 0, "version": 0, "samples": 0, "decisions": 0.0, "elapsed_s": 0.0}
    if state is None:
        for name in ("train.csv", "eval.csv", "checkpoint.pt"):  # a fresh run starts the folder over
            (out / name).unlink(missing_ok=True)
        return at
    _restore(state, out, net, optimizer)
    at["update"], at["version"] = state["update"], state["version"]
    # The logs go on from the checkpoint: rows written after it are dropped (both logs
    # read before either is rewritten).
    logs = {name: _log_rows(out / name, at["update"]) for name in ("train.csv", "eval.csv")}
    for name, (_, text) in logs.items():
        if text is not None:
            with output_file(out / name, newline="") as f:
                f.write(text)
    rows = logs["train.csv"][0]
    if "samples" in state:  # the counts at the checkpoint
        at.update(samples=int(state["samples"]), decisions=float(state["decisions"]))
        at["elapsed_s"] = float(state["elapsed_s"])
    elif rows:  # an older checkpoint: the counts at the last log row
        at.update(samples=int(rows[-1]["samples"]), elapsed_s=float(rows[-1]["elapsed_s"]))
        at["decisions"] = float(rows[-1]["decisions_per_s"]) * at["elapsed_s"]
    return at


def _actor_groups(
    config: TrainConfig, rules: _core.Rules, net: QNetwork, version: int, start_update: int
) -> list[tuple[Any, int]]:
    """The C++ actors, one group per opponent (self-play, a bot), with the fresh
    decisions each collects an update; every group plays `rules` (one catalogue)."""
    return [
        (
            _core.DmcActors(
                rules,
                net.to_qnet(),
                version=version,
                num_envs=envs,
                seed=(config.seed + start_update + 1_000_003 * g) % 2**64,
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


def _save_checkpoint(out: Path, config: TrainConfig, net: QNetwork, optimizer: Any, at: dict[str, Any]) -> None:
    """checkpoint.pt, written whole: the weights, the optimizer's state, the config
    (a plain dict) and `at` (update, version, samples, decisions, elapsed_s)."""
    checkpoint = {
        **at,
        "net": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "optimizer": optimizer.state_dict(),
        "config": config.as_dict(),
    }
    with output_file(out / "checkpoint.pt", "wb") as f:
        torch.save(checkpoint, f)


@contextlib.contextmanager
def _stop_after_update() -> Iterator[list[bool]]:
    """Ctrl-C stops the run after the update under way (a KeyboardInterrupt raised at
    any point may be swallowed by a finalizer, and the run would go on); a second one
    stops it at once. Yields the flag list the loop checks (non-empty: stop). Only on
    the main thread, and only where Python's own handler is in place."""
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


def train(config: TrainConfig, out: str | os.PathLike, resume: bool = False, progress: bool = True) -> dict:
    """Trains as the module docstring says; returns the last log and evaluation rows.

    Every check (the settings, the memory, the outputs, the checkpoint to resume from)
    comes before anything is written; a ValueError names what failed."""
    from tqdm import tqdm

    rules = config.check()  # the variant, resolved once for the whole run
    eval_rules = arena_rules(rules)  # and the evaluations' (fixed seats), once too
    out = Path(out)
    device = _device(config.device)
    config.check_memory(device)
    state = _load_checkpoint(config, out) if resume else None
    prepare_out(out, list(OUTPUTS))  # every output writable, before anything is written
    obs_size, move_size = _core.observation_size(), _core.MOVE_FEATURE_SIZE
    torch.manual_seed(config.seed)
    net = QNetwork(obs_size, move_size, config.hidden).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.lr)
    at = _start(config, out, state, net, optimizer)
    start_update, version, samples = at["update"], at["version"], at["samples"]
    metadata = {"variant": config.variant, "config": repr(dataclasses.asdict(config))}
    groups = _actor_groups(config, rules, net, version, start_update)
    replay = Replay(config.replay, obs_size, move_size, device) if config.replay else None
    generator = torch.Generator().manual_seed((config.seed + start_update) % 2**64)
    started = time.perf_counter() - at["elapsed_s"]
    last_log: dict[str, Any] = {}
    last_eval: dict[str, Any] = {}

    def decisions() -> float:
        return at["decisions"] + sum(a.decisions for a, _ in groups)

    def save_and_evaluate(update: int) -> dict[str, Any]:
        # The model, its evaluation and the logs first, the checkpoint last: a resume
        # starts from the checkpoint and drops the log rows after it.
        qnet = net.save(out / "model.safetensors", {**metadata, "update": str(update), "version": str(version)})
        row = _evaluate(config, eval_rules, _core.Bot.dmc(qnet, f"dmc:{out / 'model.safetensors'}"), update)
        _append_csv(out / "eval.csv", row)
        counts = {"samples": samples, "decisions": decisions(), "elapsed_s": time.perf_counter() - started}
        _save_checkpoint(out, config, net, optimizer, {"update": update, "version": version, **counts})
        plot_curve(out)
        return row

    bar = tqdm(total=config.updates, initial=start_update, unit="update", disable=not progress, desc="dmc")
    with _stop_after_update() as stop:
        try:
            for update in range(start_update + 1, config.updates + 1):
                if stop:
                    raise KeyboardInterrupt
                fresh = [actors.collect(n) for actors, n in groups]
                samples += sum(len(b["target"]) for b in fresh)
                batch = tuple(
                    torch.from_numpy(np.concatenate([b[k] for b in fresh])).to(device)
                    for k in ("obs", "move", "target")
                )
                if replay is not None:
                    replay.add(*batch)
                    batch = replay.sample(config.batch_size, generator)
                loss = _learn(net, optimizer, batch, config.learning_rate(update))
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
                        "loss": loss,
                        "version": version,
                        "teacher": config.teacher_prob(update),
                        "decisions_per_s": decisions() / elapsed if elapsed > 0 else 0.0,
                        "elapsed_s": elapsed,
                    }
                    _append_csv(out / "train.csv", last_log)
                    bar.set_postfix(loss=f"{loss:.4f}")
                if update % config.eval_every == 0 or update == config.updates:
                    last_eval = save_and_evaluate(update)
                    bar.set_postfix(loss=f"{loss:.4f}", wp=f"{last_eval['wp']:.3f}")
                bar.update(1)
        finally:
            bar.close()
    return {"log": last_log, "eval": last_eval, "out": str(out)}
