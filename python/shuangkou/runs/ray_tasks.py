"""Self-play and arena runs on a Ray cluster (``sk.selfplay(..., ray=...)``,
``sk.arena(..., ray=...)``; docs/ray.md).

A run (deals 0..n-1 of a seed, played by one agent a seat) is cut into chunks of
consecutive deals. Each chunk is a Ray task that declares `threads` CPUs and runs the
one-machine batch runner (`selfplay.play_chunk`) on them; deal i is still dealt from
(seed, i), so the chunks' arrays, put back in deal order, are exactly the one-machine
result, whatever the chunk size, the cluster or the order chunks finish in. Every run of
a job (the arena's two halves of every pair) goes out at once, so the whole cluster works
on the whole job; one progress callback counts the deals of every chunk finished.

A task whose worker process dies, or whose node leaves the cluster, runs again elsewhere
(Ray's task retries); being deterministic, it gives the same arrays.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _core
from ..agents import AgentLike, agent_label, is_bot
from ..errors import clip
from .chunks import RunSpec, concat_results, play_chunk
from .options import RunOptions
from .ray_cluster import connect, node_cpus, worker_setup

RETRIES = 5  # runs of a chunk after its worker or node died
CHUNKS_PER_WORKER = 4  # the default chunk size gives each worker about this many chunks
DROP_WAIT_S = 2.0  # how long a run that raised or stopped collects its cancelled chunks


def _play(
    rules: _core.Rules,
    agents: list[AgentLike],
    first: int,
    games: int,
    seed: int,
    threads: int,
    batch: int,
    replays: int,
) -> tuple[dict[str, np.ndarray], list[str], str]:
    """A Ray task: deals first..first+games-1, their first `replays` records, and the id
    of the node that played them."""
    import ray

    worker_setup(threads)
    records: list[str] = []
    arrays = play_chunk(rules, agents, first, games, seed, threads, batch, replays, records.extend if replays else None)
    return arrays, records, ray.get_runtime_context().get_node_id()


def check_shippable(agents: Sequence[AgentLike], ray: Any) -> None:
    """Makes the Python agents travel by value (the code of the module that defines each,
    so the workers need not import it: a script, a notebook, a test file), then
    ValueError naming the first agent that cannot be pickled for the workers (a network
    held in memory, a closure over a lock or an open file...)."""
    seen: set[int] = set()
    for a in agents:
        if id(a) in seen:
            continue
        seen.add(id(a))
        if not is_bot(a):
            target = getattr(a, "fn", a)  # a "module:callable" agent: the callable it names
            name = getattr(target, "__module__", None)  # a function's, or an object's class's
            module = sys.modules.get(name) if name else None
            if module is not None and name != "__main__" and not name.startswith(("shuangkou.", "builtins")):
                ray.cloudpickle.register_pickle_by_value(module)
        try:
            ray.cloudpickle.dumps(a)
        except Exception as e:  # noqa: BLE001 - any pickling failure of user objects
            kind = "built-in bot" if is_bot(a) else "agent"
            raise ValueError(
                f"{kind} {agent_label(a)} cannot be sent to the Ray workers: pickling it failed "
                f"({type(e).__name__}: {e})"
            ) from None


def reach(ray: bool | str, agents: Sequence[AgentLike]) -> Any:
    """Connects to the Ray that `ray` names and checks that `agents` can be sent to its
    workers (`check_shippable`); returns the ray module. A run on Ray calls it before it
    touches any output (a replay file, an --out folder), so that a cluster that cannot be
    reached (ConnectionError) or an agent that cannot travel (ValueError) leaves them as
    they were."""
    ray_module = connect(ray)
    check_shippable(agents, ray_module)
    return ray_module


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def task_failure(error: Any) -> BaseException:
    """What a chunk's failure (a ray.exceptions.RayTaskError) is raised as here: the
    exception the task raised (its cause: the AgentError naming the agent, a ValueError...),
    whose message is one line, rather than Ray's wrapper (the remote stack frames, in
    colour). A RuntimeError with the last line of Ray's message, colour codes removed,
    where Ray brought no cause back."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, Exception):
        return cause
    lines = [line.strip() for line in _ANSI.sub("", str(error)).splitlines() if line.strip()]
    return RuntimeError(f"a Ray task failed: {clip(lines[-1] if lines else type(error).__name__, 300)}")


def _drop(ray_module: Any, pending: list[Any]) -> None:
    """Cancels the chunks still out and collects, for a moment, what they end with (a
    cancellation, or the error of another chunk that failed meanwhile), so that Ray does
    not print them as unhandled errors after the run has raised or stopped."""
    for f in pending:
        ray_module.cancel(f, force=True)
    if not pending:
        return
    ended, _ = ray_module.wait(pending, num_returns=len(pending), timeout=DROP_WAIT_S)
    for f in ended:
        try:
            ray_module.get(f)
        except Exception:  # noqa: BLE001, S110 - the run has its outcome already; these are dropped
            pass


def default_chunk(total_games: int, threads: int) -> int:
    """Deals a chunk: about CHUNKS_PER_WORKER chunks for each worker the cluster can run
    at once (at least 1 deal, at most 100,000)."""
    workers = max(1, int(sum(node_cpus().values()) // max(threads, 1)))
    return max(1, min(100_000, math.ceil(total_games / (CHUNKS_PER_WORKER * workers))))


def play_runs(
    rules: _core.Rules,
    runs: Sequence[RunSpec],
    options: RunOptions,
    progress: Callable[[int, int], bool] | None = None,
    on_records: Sequence[Callable[[list[str]], Any] | None] | None = None,
    ray_module: Any = None,
) -> tuple[list[dict[str, np.ndarray]], dict[str, Any]]:
    """Plays every run on Ray (options.ray): the per-deal arrays of each run (deal order)
    and a report of where the chunks ran: {"address", "chunk", "chunks", "nodes": {node
    id: chunks}, "stopped_early"}.

    A task declares and plays on options.threads CPUs (0: 1). progress(done, total) gets
    the deals of all runs finished so far; a false value other than None stops early,
    keeping each run's deals up to its first unfinished chunk. on_records[k] receives run
    k's records, in deal order. ray_module: what `reach` returned, where the caller
    reached the cluster already (None: reached here)."""
    if ray_module is None:
        ray_module = reach(options.ray, [a for r in runs for a in r.agents])
    threads = options.threads or 1
    total = sum(r.games for r in runs)
    chunk = options.chunk or default_chunk(total, threads)
    futures, sizes = _submit(ray_module, rules, runs, options.seed, threads, options.batch, chunk)
    results, nodes, stopped = _collect(ray_module, futures, sizes, progress, total)
    out = [_assemble(rules, parts, on_records[k] if on_records else None) for k, parts in enumerate(results)]
    info = {
        "address": ray_module.get_runtime_context().gcs_address,
        "chunk": chunk,
        "chunks": sum(len(s) for s in sizes),
        "nodes": nodes,
        "stopped_early": stopped,
    }
    return out, info


def _submit(
    ray_module: Any, rules: _core.Rules, runs: Sequence[RunSpec], seed: int, threads: int, batch: int, chunk: int
) -> tuple[dict[Any, tuple[int, int]], list[list[int]]]:
    """Sends every chunk of every run as a Ray task: the futures (-> (run, chunk index))
    and the deals of each run's chunks."""
    task = ray_module.remote(num_cpus=threads, max_retries=RETRIES)(_play)
    rules_ref = ray_module.put(rules)
    futures: dict[Any, tuple[int, int]] = {}
    sizes: list[list[int]] = []
    for k, r in enumerate(runs):
        agents_ref = ray_module.put(list(r.agents))
        sizes.append([])
        wanted = r.games if r.replays < 0 else r.replays
        for c, first in enumerate(range(0, r.games, chunk)):
            count = min(chunk, r.games - first)
            recorded = max(0, min(first + count, wanted) - first)
            futures[task.remote(rules_ref, agents_ref, first, count, seed, threads, batch, recorded)] = (k, c)
            sizes[k].append(count)
    return futures, sizes


def _collect(
    ray_module: Any,
    futures: dict[Any, tuple[int, int]],
    sizes: list[list[int]],
    progress: Callable[[int, int], bool] | None,
    total: int,
) -> tuple[list[list[Any]], dict[str, int], bool]:
    """Each chunk's (arrays, records) as it finishes, the chunks each node ran, and
    whether progress stopped the run early (the chunks not yet back are dropped)."""
    results: list[list[Any]] = [[None] * len(s) for s in sizes]
    nodes: dict[str, int] = {}
    pending, done = list(futures), 0
    try:
        while pending:
            ready, pending = ray_module.wait(pending, num_returns=1)
            for f in ready:
                k, c = futures[f]
                try:
                    arrays, records, node = ray_module.get(f)
                except ray_module.exceptions.RayTaskError as e:
                    raise task_failure(e) from None
                results[k][c] = (arrays, records)
                nodes[node] = nodes.get(node, 0) + 1
                done += sizes[k][c]
            answer = None if progress is None else progress(done, total)
            if answer is not None and not answer:
                return results, nodes, True
    finally:
        _drop(ray_module, pending)
    return results, nodes, False


def _assemble(rules: _core.Rules, parts: list[Any], sink: Callable[[list[str]], Any] | None) -> dict[str, np.ndarray]:
    """A run's arrays from its chunks, up to its first unfinished one (a run stopped
    early ends there), its records handed to `sink` in deal order."""
    kept = []
    for part in parts:
        if part is None:
            break
        kept.append(part)
    if sink is not None:
        for _, records in kept:
            if records:
                sink(records)
    return concat_results([a for a, _ in kept]) if kept else _empty(rules)


def _empty(rules: _core.Rules) -> dict[str, np.ndarray]:
    """The arrays of a run of no deals."""
    return _core.run_selfplay(rules, 0, ["random"] * 4)
