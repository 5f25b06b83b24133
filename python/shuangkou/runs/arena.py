"""The arena: agents against each other over duplicate deals, with paired confidence
intervals and ratings.

    import shuangkou as sk
    result = sk.arena(variant="baibian", agents=["heuristic", "greedy", "random"], deals=1000, seed=1)
    result["pairs"][0]["wp"], result["pairs"][0]["wp_ci"]   # the summary is a dict (results.json)
    result.arrays[("heuristic", "greedy")]["score_diff"]     # per-deal numpy arrays

Duplicate format: for every pair of agents (A, B), deal i (dealt from (seed, i)) is
played twice with the same cards in the same seats, `team_formation: fixed`: once with
A at seats 0 and 2, once with A at seats 1 and 3. The cards' luck cancels in the pair's
total. Built-in bots and the bots' random streams see the same deal both times; the
results are identical for any thread count and batch size (for Python agents that
decide from their inputs alone).

Statistics, per pair: WP, the share of duplicate pairs A wins on the pair's total score
difference (ties count half), with a 95% Wilson score interval over the pairs (ties
make the true spread smaller than a binomial's, so the interval is conservative); ADP,
A's mean score difference per deal, with a 95% paired Student-t interval (the two deals
of a pair are one observation). With a single pair the intervals are None.
Ratings: a Bradley-Terry fit of every pair's wins (ties half) on an Elo scale (400 per
factor 10 of odds), centred at mean 0, with 95% intervals from the fit's curvature; each
pair adds one virtual tie so a clean sweep stays finite.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .. import _core
from ..agents import Agent, AgentLike, resolve_agent, unique_labels
from ..util.checks import DEFAULT_SEED, int_arg
from ..util.records import ReplayWriter
from ..util.resources import check_memory
from ..util.stats import bradley_terry, t975, wilson_interval
from . import runner
from .chunks import RunSpec
from .options import RunOptions, check_progress
from .ray_tasks import reach

__all__ = ["ArenaResult", "EVAL_SETS", "arena", "parse_deals"]

# Versioned evaluation deal sets: name -> (base seed, most deals). Deal i of a set is
# dealt from (its seed, i) like any other run, so "eval-v1:10000" is the first 10,000
# deals of eval-v1 under every variant. A set never changes once published; a new one
# gets a new name.
EVAL_SETS: dict[str, tuple[int, int]] = {"eval-v1": (0x5EED_2026_0001, 1_000_000)}

STATISTICS = (
    "WP: 95% Wilson score interval over the duplicate pairs (ties half); ADP: 95% paired Student-t interval; "
    "ratings: Bradley-Terry (Elo scale, mean 0, one virtual tie a pair)"
)


_DIGITS = re.compile(r"[0-9]+\Z", re.ASCII)


class ArenaResult(dict):
    """The summary (a plain dict, JSON-ready: results.json) with the per-deal numpy
    arrays in `.arrays`: for each pair (a, b), ``score_diff`` int64 [deals, 2] (A's
    team score minus B's, with A at seats 0/2, then at seats 1/3) and ``halves``, the
    two self-play results (A at seats 0/2, then B at seats 0/2) as `selfplay` gives
    them (scores, places, outcome, bombs, max_stars, overtakes, ...)."""

    arrays: dict[tuple[str, str], dict[str, Any]]


def parse_deals(deals: int | str, seed: int | None) -> tuple[int, int, str | None]:
    """(number of deals, base seed, eval set name or None) from `deals` = a count or
    'SET:N' (e.g. 'eval-v1:10000'); ValueError naming the problem."""
    if isinstance(deals, str):
        name, colon, count = deals.partition(":")
        if name not in EVAL_SETS:
            if _DIGITS.match(name.strip()) and not colon:
                return parse_deals(int(name), seed)
            raise ValueError(f"deals: a count or SET:N with SET one of {', '.join(EVAL_SETS)}, got {deals!r}")
        set_seed, most = EVAL_SETS[name]
        if not colon or not _DIGITS.match(count.strip()):
            raise ValueError(f"deals: give the number of deals of {name} as {name}:N, got {deals!r}")
        n = int_arg(int(count), "deals", 1, most, f" ({name} holds {most:,})")
        if seed is not None and seed != set_seed:
            raise ValueError(f"deals={deals!r} fixes the seed ({set_seed}); leave seed unset")
        return n, set_seed, name
    n = int_arg(deals, "deals", 1, 2**40)
    return n, int_arg(DEFAULT_SEED if seed is None else seed, "seed", 0, 2**64 - 1), None


def arena_rules(variant: Any, **overrides: Any) -> _core.Rules:
    """The rules an arena plays: the variant with `team_formation: fixed`; ValueError
    for a bad variant or parameter, or another team formation."""
    if str(overrides.get("team_formation", "fixed")) != "fixed":
        raise ValueError("the arena plays team_formation fixed (duplicate deals need seats that never move)")
    if isinstance(variant, _core.Rules) and not overrides and variant.params["team_formation"] == "fixed":
        return variant  # (as it is: a learner evaluating many times builds its rules once)
    return _core.Rules(variant, **{**overrides, "team_formation": "fixed"})


def check_arena_memory(deals: int, agents: int) -> None:
    """ValueError, before anything runs, when the results of every pair together (an
    arena keeps them all: 2 x deals a pair) would not fit in the memory available."""
    pairs = agents * (agents - 1) // 2
    check_memory(2 * deals * pairs, f"deals={deals:,} for each of {pairs} pairs of agents")


def _team_stats(half: dict[str, np.ndarray], seats: list[int]) -> dict[str, np.ndarray]:
    """Per deal, for the agent at `seats`: won first place, outcome, bombs, stars, overtakes."""
    first_team = half["places"][:, 0] % 2
    return {
        "first": first_team == seats[0] % 2,
        "bombs": half["bombs"][:, seats].sum(axis=1),
        "max_stars": half["max_stars"][:, seats].max(axis=1),
        "overtakes": half["overtakes"][:, seats].sum(axis=1),
        "points": half["scores"][:, seats].mean(axis=1),
    }


def _adp_half_width(per_deal: np.ndarray) -> float | None:
    n = len(per_deal)
    return t975(n - 1) * float(per_deal.std(ddof=1)) / math.sqrt(n) if n > 1 else None


def pair_summary(a: str, b: str, halves: tuple[dict, dict]) -> tuple[dict[str, Any], np.ndarray]:
    """The summary of one duplicate match and its per-deal score differences [deals, 2]."""
    h0, h1 = halves
    team = lambda h, s: h["scores"][:, s].sum(axis=1)  # noqa: E731
    diff = np.stack([team(h0, [0, 2]) - team(h0, [1, 3]), team(h1, [1, 3]) - team(h1, [0, 2])], axis=1)
    total = diff.sum(axis=1)
    n = len(total)
    outcome_w = (total > 0) + 0.5 * (total == 0)
    wp = float(outcome_w.mean())
    per_deal = total / 2.0
    adp = float(per_deal.mean())
    a_stats = [_team_stats(h0, [0, 2]), _team_stats(h1, [1, 3])]
    b_stats = [_team_stats(h0, [1, 3]), _team_stats(h1, [0, 2])]
    outcomes = np.concatenate([h0["outcome"], h1["outcome"]])

    def outcome_rates(stats: list[dict[str, np.ndarray]]) -> dict[str, float]:
        first = np.concatenate([s["first"] for s in stats])
        return {o: float(np.mean(first & (outcomes == i))) for i, o in enumerate(_core.OUTCOMES[:2])}

    def per_agent(stats: list[dict[str, np.ndarray]]) -> dict[str, float]:
        cat = {k: np.concatenate([s[k] for s in stats]) for k in stats[0]}
        return {
            "bombs_per_deal": float(cat["bombs"].mean()),
            "max_stars_per_deal": float(cat["max_stars"].mean()),
            "overtakes_per_deal": float(cat["overtakes"].mean()),
        }

    summary = {
        "a": a,
        "b": b,
        "deals": n,
        "wp": wp,
        "wp_ci": wilson_interval(wp, n) if n > 1 else None,
        "adp": adp,
        "adp_ci": [adp - half, adp + half] if (half := _adp_half_width(per_deal)) is not None else None,
        "pairs_won": {"a": int((total > 0).sum()), "b": int((total < 0).sum()), "tied": int((total == 0).sum())},
        "outcomes": {"a": outcome_rates(a_stats), "b": outcome_rates(b_stats), "draw": float(np.mean(outcomes == 2))},
        "by_agent": {"a": per_agent(a_stats), "b": per_agent(b_stats)},
        "points": {
            "a": float(sum(s["points"].sum() for s in a_stats)),
            "b": float(sum(s["points"].sum() for s in b_stats)),
        },
    }
    return summary, diff


def arena(
    variant: Any = "baibian",
    agents: Sequence[AgentLike] = ("heuristic", "greedy", "random"),
    deals: int | str = 1000,
    threads: int | None = None,
    seed: int | None = None,
    batch: int = 1024,
    progress: Callable[[int, int], Any] | None = None,
    replays: int | str = 0,
    replay_path: str | os.PathLike | None = None,
    ray: bool | str = False,
    chunk: int | None = None,
    **overrides: Any,
) -> ArenaResult:
    """Round robin of duplicate matches between `agents`; returns the summary (a dict,
    results.json's content) with per-deal arrays in `.arrays`.

    variant: a preset, a YAML file or a `Rules`; overrides: variant parameters
    (`team_formation` is always fixed). agents: two or more agents (built-in names such
    as "search:128", callables, `shuangkou.Agent` objects, "module:callable"). deals: per
    pair, a count (deals 0..deals-1 of `seed`, 0 when not given) or an evaluation set
    "eval-v1:N" (which fixes the seed). threads: None or 0 for every core. batch: deals side by side for
    Python agents. progress(done, total) is called now and then with the deals played so
    far over all pairs (each duplicate pair is two deals). replays: the first N deals (or
    "all") of each pair and half are written to replay_path (gzip JSON lines, records naming their
    seats' agents, as selfplay writes them; `shuangkou replay` shows them), for every kind of agent.
    ray, chunk: play on Ray as `selfplay` does (docs/ray.md): every half of every pair is cut
    into chunks of `chunk` deals, all sent at once; the results are the one-machine results,
    and ``result["ray"]["nodes"]`` counts the chunks each node ran.
    """
    if isinstance(agents, str):
        agents = [a.strip() for a in agents.split(",")]
    if isinstance(agents, (Mapping, Agent)) or callable(agents) or not isinstance(agents, Iterable):
        raise ValueError(f"agents: a list of two or more agents, got {type(agents).__name__} {agents!r}")
    resolved = [resolve_agent(a) for a in agents]
    if len(resolved) < 2:
        raise ValueError(f"arena needs at least two agents, got {len(resolved)}")
    labels = unique_labels(resolved)
    n, base_seed, eval_set = parse_deals(deals, seed)
    options = RunOptions.checked(threads, base_seed, batch, ray, chunk)
    rules = arena_rules(variant, **overrides)
    check_progress(progress, "progress(done, total)")
    check_arena_memory(n, len(resolved))
    replays = _replay_count(replays, replay_path, n, resolved)
    # (a dmc:PATH agent's network was read once, by resolve_agent: every pair and both
    # halves play it even if the file is rewritten meanwhile, as a training run does)
    # The cluster reached and the agents checked before the replay file is opened.
    ray_module = reach(options.ray, resolved) if options.ray else None
    writer = ReplayWriter(replay_path) if replays else None
    try:
        name = variant if isinstance(variant, str) else rules.name
        return _play_round_robin(
            name, rules, resolved, labels, n, eval_set, options, progress, replays, writer, ray_module
        )
    finally:
        if writer is not None:
            writer.close()


def _replay_count(replays: Any, replay_path: Any, n: int, resolved: list[AgentLike]) -> int:
    """The deals of each pair and half to record; ValueError naming what does not go together."""
    replays = n if replays == "all" else int_arg(replays, "replays", 0, n, f" (at most deals={n}) or 'all'")
    if bool(replays) != (replay_path is not None):
        raise ValueError("replays and replay_path go together: give both (a count and a .jsonl.gz file) or neither")
    return replays


def _play_round_robin(
    variant: str,
    rules: _core.Rules,
    resolved: list[AgentLike],
    labels: list[str],
    n: int,
    eval_set: str | None,
    options: RunOptions,
    progress: Callable[[int, int], Any] | None,
    replays: int = 0,
    writer: ReplayWriter | None = None,
    ray_module: Any = None,
) -> ArenaResult:
    """Plays every pair of `resolved` (labelled `labels`) over deals 0..n-1 of the
    options' seed, both halves of every pair as runs of one call to the runner; the
    first `replays` deals of each half go to `writer`."""
    start = time.perf_counter()
    pairs_ix = [(i, j) for i in range(len(resolved)) for j in range(i + 1, len(resolved))]
    # Each pair's two halves: (agents by seat, their labels), A in seats 0/2, then B.
    halves = [
        ([resolved[x], resolved[y]] * 2, [labels[x], labels[y]] * 2) for i, j in pairs_ix for x, y in ((i, j), (j, i))
    ]
    sinks = [writer.for_seats(seated).write if writer is not None else None for _, seated in halves]
    runs = [RunSpec(agents, n, replays) for agents, _ in halves]
    played, ray_info = runner.play(rules, runs, options, _reporting(progress), sinks, ray_module)
    pairs: list[dict[str, Any]] = []
    arrays: dict[tuple[str, str], dict[str, Any]] = {}
    for p, (i, j) in enumerate(pairs_ix):
        two = played[2 * p : 2 * p + 2]
        summary, diff = pair_summary(labels[i], labels[j], (two[0], two[1]))
        if replays:
            summary["lost_most"] = lost_most(diff, p, replays)
        pairs.append(summary)
        arrays[(labels[i], labels[j])] = {"score_diff": diff, "halves": two}
    played_with = {
        "seed": options.seed,
        "deals": n,
        "eval_set": eval_set,
        "threads": options.threads_used(os.cpu_count()),
        "elapsed_s": time.perf_counter() - start,
        "ray": ray_info,
    }
    return combine(variant, rules, labels, pairs, arrays, played_with)


# The deals of a pair that each agent lost by most, listed where replays were recorded.
LOST_MOST = 5


def lost_most(diff: np.ndarray, pair: int, recorded: int) -> dict[str, list[dict[str, Any]]]:
    """For each agent of pair number `pair`, the recorded duplicate deals it lost by most
    (score difference of the pair, A's view in `diff` [deals, 2]), each with the places
    of its two halves in the replay file: the file holds, pair after pair, half A-first
    then half B-first, `recorded` deals each (`shuangkou replay FILE --deal PLACE`)."""
    total = diff[:recorded].sum(axis=1)

    def listed(order: np.ndarray, sign: int) -> list[dict[str, Any]]:
        rows = []
        for i in order[:LOST_MOST].tolist():
            if sign * total[i] >= 0:
                break  # (only deals lost)
            places = [(2 * pair + half) * recorded + i for half in (0, 1)]
            rows.append({"deal": i, "lost_by": float(-sign * total[i]), "replay_places": places})
        return rows

    order = np.argsort(total, kind="stable")
    return {"a": listed(order, 1), "b": listed(order[::-1], -1)}


def _reporting(progress: Callable[[int, int], Any] | None) -> Callable[[int, int], bool] | None:
    """The arena's progress(done, total) as a Ray run's: called with the deals of every
    half so far; the arena never stops early, whatever it returns."""
    if progress is None:
        return None

    def report(done: int, total: int) -> bool:
        progress(done, total)
        return True

    return report


def combine(
    variant: str,
    rules: _core.Rules,
    labels: list[str],
    pairs: list[dict[str, Any]],
    arrays: dict[tuple[str, str], dict[str, Any]],
    meta: dict[str, Any],
) -> ArenaResult:
    """The round-robin summary of pair results (from one arena run, or several merged:
    pairs may differ in their number of deals): win-rate matrix, ratings, levels."""
    ratings = bradley_terry(labels, pairs)
    points = dict.fromkeys(labels, 0.0)
    for p in pairs:
        points[p["a"]] += p["points"]["a"]
        points[p["b"]] += p["points"]["b"]
    matrix = np.full((len(labels), len(labels)), np.nan)
    for p in pairs:
        ia, ib = labels.index(p["a"]), labels.index(p["b"])
        matrix[ia, ib], matrix[ib, ia] = p["wp"], 1 - p["wp"]
    result = ArenaResult(
        {
            "variant": variant,
            "params": rules.params,
            "seed": meta["seed"],
            "deals": meta["deals"],
            "eval_set": meta.get("eval_set"),
            "agents": labels,
            "pairs": pairs,
            "ratings": ratings,
            "wp_matrix": [[None if math.isnan(x) else float(x) for x in row] for row in matrix],
            "levels": {
                name: {"points": pts, **dict(zip(("level", "title"), _core.level_title(int(round(pts)))))}
                for name, pts in points.items()
            },
            "elapsed_s": meta.get("elapsed_s"),
            "threads": meta.get("threads"),
            "statistics": STATISTICS,
        }
    )
    if meta.get("ray") is not None:
        result["ray"] = meta["ray"]
    result.arrays = arrays
    return result
