"""Runs of deals on this machine: a run is a list of agents by seat and a count of deals
(`RunSpec`); `play_chunk` plays deals first..first+games-1 of a run with the C++ runner
(built-in agents) or a vector env stepping Python agents, and `concat_results` joins
chunks. `runner.play` sends runs here or to Ray (ray_tasks.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _core
from ..agents import AgentLike, decide, is_bot, reset_agent, seat_labels


@dataclass
class RunSpec:
    """One run: `games` deals played by `agents` (one per seat, resolved); the first
    `replays` deals (-1: all) are recorded."""

    agents: Sequence[AgentLike]
    games: int
    replays: int = 0


def play_chunk(
    rules: _core.Rules,
    agents: list[AgentLike],
    first: int,
    games: int,
    seed: int,
    threads: int,
    batch: int,
    replays: int,
    on_records: Callable[[list[str]], Any] | None,
    report: Callable[[int], bool] | None = None,
) -> dict[str, np.ndarray]:
    """Deals first..first+games-1 of `seed` played by `agents` (one per seat, resolved) on
    this machine: the per-deal arrays, in deal order. The first `replays` of them (-1:
    all) go to on_records as JSON records (Game.to_json), in deal order, a block at a time:
    from the C++ runner for built-in agents, from the vector env's finished games for
    Python agents."""
    if all(is_bot(a) for a in agents):
        return _core.run_selfplay(
            rules,
            games,
            agents,
            threads=threads,
            seed=seed,
            replays=replays,
            on_records=on_records,
            progress=report,
            first=first,
        )
    wanted = games if replays < 0 else min(replays, games)
    recorder = _Recorder(wanted, on_records) if wanted and on_records is not None else None
    return _play_batched(rules, games, agents, threads, seed, batch, report or (lambda done: True), first, recorder)


class _Recorder:
    """The records of a batched run's first `wanted` deals, handed on in deal order as
    soon as every deal before them has finished (the envs finish deals out of order)."""

    def __init__(self, wanted: int, sink: Callable[[list[str]], Any]) -> None:
        self.wanted, self.sink, self.next = wanted, sink, 0
        self.waiting: dict[int, str] = {}

    def add(self, core: Any, envs: list[int], deals: np.ndarray) -> None:
        """Keeps the records of the deals (indexes within the run) that envs just finished."""
        for j, deal in zip(envs, deals.tolist()):
            if deal < self.wanted:
                self.waiting[deal] = core.finished_game(j).to_json()
        ready = []
        while self.next in self.waiting:
            ready.append(self.waiting.pop(self.next))
            self.next += 1
        if ready:
            self.sink(ready)


def _play_batched(
    rules: _core.Rules,
    games: int,
    agents: list[AgentLike],
    threads: int,
    seed: int,
    batch: int,
    report: Callable[[int], bool],
    first: int = 0,
    recorder: _Recorder | None = None,
) -> dict[str, np.ndarray]:
    """Self-play with callables: a vector env whose callable seats are external, playing
    deals first..first+games-1 of `seed`; the result arrays are in deal order. The
    recorder (if any) gets the finished deals' records."""
    bots = [a if is_bot(a) else None for a in agents]
    # Each external agent is called once a step with the decisions of all its seats.
    external: list[tuple[AgentLike, list[int]]] = []
    for seat, a in enumerate(agents):
        if is_bot(a):
            continue
        for entry in external:
            if entry[0] is a:
                entry[1].append(seat)
                break
        else:
            external.append((a, [seat]))
    labels = seat_labels(agents)
    who = {id(a): f"agent {labels[seats[0]]} (seats {', '.join(map(str, seats))})" for a, seats in external}
    for a, _ in external:
        reset_agent(a, rules, who[id(a)])
    # `deals` mode: the envs together play deals 0..games-1 of `seed`, each dealt and
    # played (bots included) exactly as in the C++ runner, whatever the batch size.
    core = _core.VectorEnvCore(rules, min(batch, games), seed, threads, bots, "score", True, games, first)
    core.reset()
    parts: list[tuple[np.ndarray, dict[str, np.ndarray]]] = []  # (deal indices, their results)
    collected = 0
    next_report = 8192
    while collected < games:
        seats = core.current_player
        actions = np.zeros(core.num_envs, dtype=np.int32)
        for agent, agent_seats in external:
            rows = np.flatnonzero(np.isin(seats, agent_seats))  # idle envs (-1) are nobody's
            if len(rows):
                actions[rows] = decide(agent, core, rows, rules, who[id(agent)])
        core.step(actions)
        done = np.flatnonzero(core.dones)
        if len(done):
            indices = np.asarray(core.finished_indices(done.tolist()))
            if recorder is not None:
                recorder.add(core, done.tolist(), indices)  # (indexes within the run)
            parts.append((indices, core.finished_results(done.tolist())))
            collected += len(done)
            if collected >= next_report or collected >= games:
                next_report += 8192
                if not report(collected):
                    break
    if not parts:
        return core.finished_results([])
    order = np.argsort(np.concatenate([ix for ix, _ in parts]), kind="stable")
    return concat_results([r for _, r in parts], order)


def concat_results(parts: list[dict[str, np.ndarray]], order: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Per-deal arrays of several parts as one: each array concatenated (then taken in
    `order` where given), the bomb totals summed."""
    out = {}
    for k in parts[0]:
        if k == "bombs_by_stars":
            out[k] = np.sum([r[k] for r in parts], axis=0)
        else:
            joined = np.concatenate([r[k] for r in parts])
            out[k] = joined if order is None else joined[order]
    return out
