"""The one way runs reach the core: `play` sends runs of resolved agents to this machine
(chunks.py) or to Ray (ray_tasks.py), and gives back each run's per-deal arrays in deal
order, with their records handed to each run's sink. `selfplay` and the arena both call
it, once per call, after resolving their agents once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _core
from .chunks import RunSpec, play_chunk
from .options import RunOptions
from .ray_tasks import play_runs

Sink = Callable[[list[str]], Any]


def play(
    rules: _core.Rules,
    runs: Sequence[RunSpec],
    options: RunOptions,
    progress: Callable[[int, int], bool] | None = None,
    on_records: Sequence[Sink | None] | None = None,
    ray_module: Any = None,
) -> tuple[list[dict[str, np.ndarray]], dict[str, Any] | None]:
    """Every run's per-deal arrays and, on Ray, where its chunks ran (None here).

    progress(done, total) gets the deals of all runs finished so far; a false value other
    than None stops early (on this machine, the run under way ends there and the runs
    after it are not played). ray_module: the cluster the caller reached (`reach`), so
    that it is not reached twice."""
    if options.ray:
        return play_runs(rules, runs, options, progress, on_records, ray_module)
    total, before, stopped = sum(r.games for r in runs), 0, False
    out = []
    for k, r in enumerate(runs):

        def report(done: int, before: int = before) -> bool:
            nonlocal stopped
            answer = None if progress is None else progress(before + done, total)
            stopped = answer is not None and not answer
            return not stopped

        sink = on_records[k] if on_records else None
        o = options
        out.append(play_chunk(rules, list(r.agents), 0, r.games, o.seed, o.threads, o.batch, r.replays, sink, report))
        before += r.games
        if stopped:
            break
    return out, None
