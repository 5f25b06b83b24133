"""The cost of playing Shuangkou through OpenSpiel, against the package's own loops.

    python experiments/openspiel_cost.py                       # 300 deals of baibian
    python experiments/openspiel_cost.py --variant qianbian --deals 500 --repeats 5

Uniformly random play of the same number of deals, side by side in one run:

- ``pyspiel``: ``pyspiel.load_game("python_shuangkou(variant=...)")``, ``new_initial_state()``,
  each chance node sampled from ``chance_outcomes()``, then a uniformly random legal action
  (``legal_actions()``, ``apply_action``) to the end;
- ``pyspiel + observation``: the same, reading ``observation_tensor()`` of the player to act
  at each decision (what a learner reads);
- ``sk.Game``: ``shuangkou.Game(rules, seed=i)``, then ``legal_action_ids()`` and
  ``apply_action`` with a uniformly random legal id, from Python;
- ``sk.selfplay``: ``shuangkou.selfplay(variant, games=N, agents="random", threads=1)``, the
  whole loop in C++ (one thread).

Each row is the median of ``--repeats`` timings. Prints a markdown table: deals per second,
microseconds per action, and each loop's time relative to ``sk.Game``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from importlib.metadata import version

import numpy as np


def pyspiel_deals(variant: str, deals: int, seed: int, observe: bool) -> int:
    """Plays `deals` random deals through pyspiel; returns the number of player actions."""
    import pyspiel

    game = pyspiel.load_game(f"python_shuangkou(variant={variant})")
    rng = np.random.default_rng(seed)
    actions = 0
    for _ in range(deals):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
                continue
            if observe:
                state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            actions += 1
    return actions


def game_deals(variant: str, deals: int, seed: int) -> int:
    """Plays `deals` random deals with shuangkou.Game from Python; returns the number of actions."""
    import shuangkou as sk

    rules = sk.Rules(variant)
    rng = np.random.default_rng(seed)
    actions = 0
    for i in range(deals):
        game = sk.Game(rules, seed=seed * 1_000_003 + i)
        while not game.is_over():
            ids = game.legal_action_ids()
            game.apply_action(int(ids[int(rng.integers(len(ids)))]))
            actions += 1
    return actions


def selfplay_deals(variant: str, deals: int, seed: int) -> int:
    """Plays `deals` random deals with shuangkou.selfplay on one thread; returns the number of actions."""
    import shuangkou as sk

    result = sk.selfplay(variant, games=deals, agents="random", threads=1, seed=seed)
    return int(np.sum(result.arrays["actions"]))


def timed(fn: Callable[[], int], repeats: int) -> tuple[float, int]:
    """(median seconds, actions of the last run) of `repeats` runs of fn."""
    times, actions = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        actions = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), actions


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", default="baibian", help="a preset (default baibian)")
    p.add_argument("--deals", type=int, default=300, help="deals per loop and repeat (default 300)")
    p.add_argument("--repeats", type=int, default=3, help="timings per loop; the median is shown (default 3)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    try:
        import shuangkou.integrations.openspiel  # noqa: F401 - registers python_shuangkou
    except ImportError as e:
        p.error(str(e))
    v, n, s = args.variant, args.deals, args.seed
    loops: list[tuple[str, Callable[[], int]]] = [
        ("pyspiel", lambda: pyspiel_deals(v, n, s, observe=False)),
        ("pyspiel + observation", lambda: pyspiel_deals(v, n, s, observe=True)),
        ("sk.Game", lambda: game_deals(v, n, s)),
        ("sk.selfplay (C++, 1 thread)", lambda: selfplay_deals(v, n, s)),
    ]
    rows = [(name, *timed(fn, args.repeats)) for name, fn in loops]
    base = next(sec for name, sec, _ in rows if name == "sk.Game")
    print(f"{n} random deals of {v}, median of {args.repeats}; Python {platform.python_version()}, ", end="")
    print(f"open_spiel {version('open_spiel')}, numpy {np.__version__}, {platform.machine()}")
    print()
    print("| loop | seconds | deals/s | actions/deal | µs/action | time vs sk.Game |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, sec, actions in rows:
        per_action = f"{sec / actions * 1e6:.1f}" if actions else "–"
        per_deal = f"{actions / n:.0f}" if actions else "–"
        print(f"| {name} | {sec:.3f} | {n / sec:,.0f} | {per_deal} | {per_action} | ×{sec / base:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
