"""Batch self-play: many deals in C++ over several threads, and their summary.

    import shuangkou as sk
    result = sk.selfplay(variant="baibian", games=100_000, agents="random", threads=2, seed=1)
    result["outcomes"]          # the summary is a dict (also written as summary.json by the CLI)
    result.arrays["scores"]     # numpy arrays of per-deal results: scores [games, 4], places, ...

Deal i is dealt from a seed derived from (seed, i) and its agents draw from
their own stream, so results are identical for any number of threads.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .. import _core
from ..agents import Agent, AgentLike, is_bot, resolve_agent, seat_labels
from ..util.checks import DEFAULT_SEED, int_arg
from ..util.records import ReplayWriter
from ..util.resources import check_memory
from . import runner
from .chunks import RunSpec
from .options import RunOptions, check_progress
from .ray_tasks import reach

OUTCOMES = _core.OUTCOMES  # outcome codes 0, 1, 2 (双扣, 单扣, 平扣): the core's names


class SelfPlayResult(dict):
    """The summary (a plain dict, JSON-ready) with the per-deal numpy arrays in `.arrays`.

    arrays: scores [n, 4] int64 (by seat), places [n, 4] int8 (seats by place),
    outcome [n] uint8 (0 double, 1 single, 2 draw), leader [n] int8,
    bombs [n, 4], max_stars [n, 4] and overtakes [n, 4] (plays over the partner's play on
    the table) uint8 (by seat), actions [n] and plays [n]
    uint16, bombs_by_stars [24] int64 (totals).
    """

    arrays: dict[str, np.ndarray]


def seat_agents(agents: AgentLike | Sequence[AgentLike]) -> list[AgentLike]:
    """Agents per seat from one entry (every seat), two (seats 0/2 and 1/3) or four, as a
    list or a comma-separated string. Each entry is an agent as `shuangkou.agents`
    describes: a built-in bot name ("search:400" with a budget), a batched callable
    `agent(obs, mask, seats) -> action ids`, a `shuangkou.Agent`, or "module:callable"."""
    if is_bot(agents) or isinstance(agents, Agent) or (callable(agents) and not isinstance(agents, str)):
        names: list[AgentLike] = [agents]
    elif isinstance(agents, Mapping):
        raise ValueError(f"agents: a name, a callable, an Agent or a list of them, got a {type(agents).__name__}")
    elif isinstance(agents, str):
        names = [a.strip() for a in agents.split(",")]
    else:
        try:
            names = list(agents)
        except TypeError:
            raise ValueError(f"agents: a name, a callable, an Agent or a list of them, got {agents!r}") from None
    if len(names) == 1:
        names *= 4
    elif len(names) == 2:
        names = [names[0], names[1], names[0], names[1]]
    elif len(names) != 4:
        raise ValueError(f"agents: give 1, 2 (team 0/2, team 1/3) or 4 (per seat) names, got {len(names)}")
    resolved: dict[tuple[str, Any], AgentLike] = {}  # one object per distinct entry: "mod:Cls" twice is one
    out = []
    for a in names:
        key = ("name", a) if isinstance(a, str) else ("object", id(a))
        if key not in resolved:
            resolved[key] = resolve_agent(a)
        out.append(resolved[key])
    return out


def selfplay(
    variant: Any = "baibian",
    games: int = 1000,
    agents: AgentLike | Sequence[AgentLike] = "random",
    threads: int | None = None,
    seed: int = DEFAULT_SEED,
    replays: int | str = 0,
    replay_path: str | os.PathLike | None = None,
    progress: Callable[[int], Any] | None = None,
    batch: int = 1024,
    ray: bool | str = False,
    chunk: int | None = None,
    **overrides: Any,
) -> SelfPlayResult:
    """Plays `games` deals and returns their summary (a dict) with per-deal arrays.

    variant: a preset name or a YAML file; overrides: any variant parameter. seed: the
    base seed (deal i is dealt from (seed, i); 0 by default, as on the command line).
    agents: one per seat, one per team or one for all (see `seat_agents`): built-in bot
    names, callables or `shuangkou.Agent` objects. threads: None or 0 for every core.
    replays: the first N deals (or "all") are written to replay_path as gzip JSON lines,
    records that `Game.from_json` replays, naming the seats' agents (`shuangkou replay`
    shows them). progress(done) is called between blocks of deals; a false value other
    than None (False, numpy's False, 0) stops early.

    With callables among the agents, `batch` deals run side by side in a vector env
    (built-in seats still play inside C++); each callable is called once per step with
    every decision of its seats across the batch. Deal i is still dealt from (seed, i),
    and the built-in seats play it as the C++ runner does, so the results do not depend
    on `batch` or `threads` for agents that decide from their inputs alone (a callable
    that draws from its own random stream sees its calls in a batch-dependent order).

    ray, chunk: play on Ray (True, "auto" or "HOST:PORT"; `RunOptions`, docs/ray.md), in
    chunks of `chunk` deals, with the one-machine result; ``summary["ray"]["nodes"]``
    says how many chunks each node ran.
    """
    games = int_arg(games, "games", 1, 2**62)
    check_memory(games)
    options = RunOptions.checked(threads, seed, batch, ray, chunk)
    rules = _core.Rules(variant, **overrides)  # resolved once (a bad variant fails here)
    names = seat_agents(agents)
    labels = seat_labels(names)  # (a bad name fails here, before anything runs)
    replays_n = _replay_count(replays, replay_path, games, names)
    check_progress(progress, "progress(done)")
    start = time.perf_counter()
    arrays, ray_info = _play_all(rules, RunSpec(names, games, replays_n), labels, options, replay_path, progress)
    summary = {
        "variant": variant if isinstance(variant, str) else rules.name,
        "params": rules.params,
        "games_requested": games,
        "seed": options.seed,
        "threads": options.threads_used(os.cpu_count()),
        "agents": labels,
        **summarize(arrays, labels, time.perf_counter() - start),
    }
    if ray_info is not None:
        summary["ray"] = ray_info
    result = SelfPlayResult(summary)
    result.arrays = arrays
    return result


def _play_all(
    rules: _core.Rules,
    run: RunSpec,
    labels: list[str],
    options: RunOptions,
    replay_path: Any,
    progress: Callable[[int], Any] | None,
) -> tuple[dict[str, np.ndarray], dict[str, Any] | None]:
    """The deals of a `selfplay` call, here or on Ray, with their replays written: the
    per-deal arrays and, on Ray, where the chunks ran."""
    # The cluster reached and the agents checked before the replay file is opened.
    ray_module = reach(options.ray, run.agents) if options.ray else None
    opened = bool(run.replays) and not _is_writer(replay_path)
    writer = ReplayWriter(replay_path) if opened else replay_path if run.replays else None
    seated = writer.for_seats(labels) if opened else writer  # (a caller's writer names the seats itself)

    def report(done: int, total: int) -> bool:  # False (numpy's too) stops; None goes on
        answer = None if progress is None else progress(done)
        return answer is None or bool(answer)

    try:
        runs, ray_info = runner.play(rules, [run], options, report, [seated.write if seated else None], ray_module)
    finally:
        if opened:
            writer.close()
    return runs[0], ray_info


def _is_writer(obj: Any) -> bool:
    """An open replay writer (ReplayWriter, or its for_seats view) given for replay_path:
    the caller keeps it and closes it."""
    return callable(getattr(obj, "write", None)) and callable(getattr(obj, "close", None))


def _replay_count(replays: Any, replay_path: Any, games: int, agents: list[AgentLike]) -> int:
    """The number of deals to record (-1: all) from `replays` and `replay_path`;
    ValueError naming what does not go together."""
    if replays == "all":
        count = -1
    elif not isinstance(replays, str):
        count = int_arg(replays, "replays", 0, games, f" (at most games={games}) or 'all'")
    else:
        raise ValueError(f"replays must be a count >= 0 or 'all', got {replays!r}")
    if count and replay_path is None:
        raise ValueError("replays requested: give replay_path (a .jsonl.gz file)")
    if replay_path is not None and not count:
        raise ValueError("replay_path given but replays is 0: ask for replays=N or 'all', or leave replay_path out")
    if replay_path is not None and not isinstance(replay_path, (str, os.PathLike)) and not _is_writer(replay_path):
        raise ValueError(f"replay_path: a file name, got {type(replay_path).__name__} {replay_path!r}")
    return count


def _stats(values: np.ndarray) -> dict[str, Any]:
    n = len(values)
    mean = float(values.mean()) if n else 0.0
    std = float(values.std(ddof=1)) if n > 1 else 0.0
    uniq, counts = np.unique(values, return_counts=True)
    return {
        "mean": mean,
        "std": std,
        "ci95": 1.96 * std / math.sqrt(n) if n > 1 else None,
        "min": int(values.min()) if n else None,
        "max": int(values.max()) if n else None,
        "histogram": {str(int(u)): int(c) for u, c in zip(uniq, counts)},
    }


def summarize(arrays: dict[str, np.ndarray], agents: Sequence[str], elapsed: float | None = None) -> dict[str, Any]:
    """The summary of per-deal arrays (see SelfPlayResult) for these agents per seat."""
    scores = arrays["scores"]
    n = len(scores)
    outcome = arrays["outcome"]
    places = arrays["places"]
    first_team = places[:, 0] % 2 if n else np.zeros(0, dtype=np.int8)
    actions = arrays["actions"].astype(np.int64)
    plays = arrays["plays"].astype(np.int64)
    by_agent: dict[str, Any] = {}
    for name in dict.fromkeys(agents):
        seats = [s for s in range(4) if agents[s] == name]
        by_agent[name] = {"seats": seats, **_stats(scores[:, seats].reshape(-1))}
    summary: dict[str, Any] = {
        "games": n,
        "outcomes": {o: (float(np.mean(outcome == i)) if n else 0.0) for i, o in enumerate(OUTCOMES)},
        "teams": {
            f"{a}_{a + 2}": {
                "seats": [a, a + 2],
                "first_finisher_share": float(np.mean(first_team == a)) if n else 0.0,
                "mean_score": float(scores[:, [a, a + 2]].sum(axis=1).mean()) if n else 0.0,
            }
            for a in (0, 1)
        },
        "scores": {
            "by_seat": [_stats(scores[:, s]) for s in range(4)],
            "by_agent": by_agent,
            "sum_per_deal": _stats(scores.sum(axis=1)),
        },
        "bombs": {
            "per_deal": float(arrays["bombs"].sum() / n) if n else 0.0,
            "by_stars": {str(k): int(c) for k, c in enumerate(arrays["bombs_by_stars"]) if c},
        },
        "length": {
            "actions": {
                "mean": float(actions.mean()) if n else 0.0,
                "min": int(actions.min()) if n else 0,
                "max": int(actions.max()) if n else 0,
            },
            "plays": {
                "mean": float(plays.mean()) if n else 0.0,
                "min": int(plays.min()) if n else 0,
                "max": int(plays.max()) if n else 0,
            },
        },
    }
    if elapsed is not None:
        summary["elapsed_s"] = elapsed
        summary["throughput"] = {
            "games_per_s": n / elapsed if elapsed > 0 else None,
            "decisions_per_s": float(actions.sum()) / elapsed if elapsed > 0 else None,
        }
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    """A short human-readable evaluation report of a summary."""
    lines = []
    agents = summary.get("agents", [])
    lines.append(
        f"{summary['games']:,} deals of {summary.get('variant', '?')} "
        f"(seed {summary.get('seed', '?')}, agents by seat: {', '.join(agents)})"
    )
    if "throughput" in summary:
        t = summary["throughput"]
        lines.append(
            f"  {summary['elapsed_s']:.2f} s on {summary.get('threads', '?')} threads: "
            f"{t['games_per_s']:,.0f} deals/s, {t['decisions_per_s']:,.0f} decisions/s"
        )
    o = summary["outcomes"]
    lines.append(f"  outcomes: double {o['double']:.1%}  single {o['single']:.1%}  draw {o['draw']:.1%}")
    for key, team in summary["teams"].items():
        lines.append(
            f"  seats {key.replace('_', '+')}: first out in {team['first_finisher_share']:.1%} of deals, "
            f"mean team score {team['mean_score']:+.3f}"
        )
    lines.append("  score per deal by agent (mean ± 95% CI):")
    for name, s in summary["scores"]["by_agent"].items():
        ci = s["ci95"] or 0.0
        lines.append(f"    {name:<10} seats {s['seats']}: {s['mean']:+.3f} ± {ci:.3f}  (range {s['min']}..{s['max']})")
    b = summary["bombs"]
    stars = ", ".join(f"{k}★ {v:,}" for k, v in b["by_stars"].items())
    lines.append(f"  bombs: {b['per_deal']:.2f} per deal ({stars})")
    a = summary["length"]
    lines.append(f"  length: {a['plays']['mean']:.1f} plays, {a['actions']['mean']:.1f} actions with passes per deal")
    return "\n".join(lines)
