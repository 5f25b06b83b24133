"""Random-play throughput of Shuangkou beside its nearest peers, in one run.

    pip install ".[bench]"        # open_spiel and rlcard (optional)
    python bench/peers.py --seconds 5 --write experiments/benchmarks.md

Measures on this machine, in this process:
  * ours: random-play deals/s and decisions/s per variant, 1 thread and all threads
    (the C++ self-play runner), plus thread scaling and bytes per live game;
  * OpenSpiel `dou_dizhu` random rollouts: a Python loop over pyspiel, and the C++
    loop of `pyspiel.evaluate_bots` with uniform random bots;
  * RLCard `doudizhu` random rollouts (`env.run` with RandomAgent).
and prints (or writes into the marked section of a markdown file) a table with ratios.
Dou Dizhu is a smaller game: 54 cards and 3 players against Shuangkou's 108 and 4.
A decision is one action of a player (a play or a pass; in Dou Dizhu also a bid).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from importlib import metadata

import shuangkou as sk

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import replace_section  # noqa: E402

BEGIN = "<!-- peers:begin -->"
END = "<!-- peers:end -->"


def timed(fn, seconds: float, repeats: int) -> list[tuple[float, float]]:
    """Runs fn(seconds) `repeats` times; fn returns (games, decisions). Rates per run."""
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        games, decisions = fn(seconds)
        dt = time.perf_counter() - start
        out.append((games / dt, decisions / dt))
    return out


def ours(variant: str, threads: int):
    def run(seconds: float):
        # Size a run to about `seconds` from a short probe.
        probe = sk.selfplay(variant=variant, games=2000, agents="random", threads=threads, seed=7)
        per_game = probe["elapsed_s"] / 2000
        games = max(2000, int(seconds / per_game))
        r = sk.selfplay(variant=variant, games=games, agents="random", threads=threads, seed=11)
        return games, int(r.arrays["actions"].astype("int64").sum())

    return run


def openspiel_python(seconds: float):
    import pyspiel

    game = pyspiel.load_game("dou_dizhu")
    rng = random.Random(0)
    games = decisions = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        games += 1
    return games, decisions


def openspiel_cpp(seconds: float):
    import pyspiel

    game = pyspiel.load_game("dou_dizhu")
    bots = [pyspiel.make_uniform_random_bot(p, 1 + p) for p in range(3)]
    games = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, games)
        games += 1
    # evaluate_bots does not report its decisions: count them on a sample.
    return games, games * _dou_dizhu_decisions_per_game()


_DDZ_DECISIONS = None


def _dou_dizhu_decisions_per_game() -> float:
    global _DDZ_DECISIONS
    if _DDZ_DECISIONS is None:
        games, decisions = openspiel_python(1.0)
        _DDZ_DECISIONS = decisions / games
    return _DDZ_DECISIONS


def rlcard_env(seconds: float):
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("doudizhu", config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    games = decisions = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        trajectories, _ = env.run(is_training=False)
        # Each player's trajectory alternates state, action, ..., state.
        decisions += sum((len(t) - 1) // 2 for t in trajectories)
        games += 1
    return games, decisions


def median_rates(runs):
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def version(pkg: str) -> str:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "not installed"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="length of one timed run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per row (the median is reported)")
    parser.add_argument("--variants", default=",".join(sk.preset_names()), help="comma-separated variants")
    parser.add_argument("--write", default=None, help="markdown file whose peers section to replace")
    args = parser.parse_args()

    cores = os.cpu_count() or 1
    rows = []  # (label, game, threads, games/s, decisions/s)
    for v in args.variants.split(","):
        for threads in sorted({1, cores}):
            g, d = median_rates(timed(ours(v, threads), args.seconds, args.repeats))
            rows.append((f"shuangkou {v}", "Shuangkou, 108 cards, 4 players", threads, g, d))
            print(f"ours {v} x{threads}: {g:,.0f} deals/s {d:,.0f} decisions/s", file=sys.stderr)
    peers = []
    try:
        g, d = median_rates(timed(openspiel_python, args.seconds, args.repeats))
        peers.append(("OpenSpiel dou_dizhu, Python loop over pyspiel", g, d))
        g, d = median_rates(timed(openspiel_cpp, args.seconds, args.repeats))
        peers.append(("OpenSpiel dou_dizhu, C++ evaluate_bots (uniform random bots)", g, d))
    except ImportError:
        print("open_spiel not installed: skipped", file=sys.stderr)
    try:
        g, d = median_rates(timed(rlcard_env, args.seconds, args.repeats))
        peers.append(("RLCard doudizhu, env.run with RandomAgent", g, d))
    except ImportError:
        print("rlcard not installed: skipped", file=sys.stderr)
    for label, g, d in peers:
        print(f"{label}: {g:,.0f} games/s {d:,.0f} decisions/s", file=sys.stderr)

    one = {r[0]: r for r in rows if r[2] == 1}
    allt = {r[0]: r for r in rows if r[2] == cores}
    lines = [
        BEGIN,
        "",
        f"Machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}; "
        f"shuangkou {sk.__version__}, open_spiel {version('open_spiel')}, rlcard {version('rlcard')}. "
        f"Command: `python bench/peers.py --seconds {args.seconds:g} --repeats {args.repeats} --write experiments/benchmarks.md` "
        f"(medians of {args.repeats} runs of {args.seconds:g} s, all in one process).",
        "",
        "Dou Dizhu (the peers' game) is smaller than Shuangkou: 54 cards and 3 players against 108 cards",
        "and 4 players, so a Dou Dizhu game has fewer decisions; compare decisions/s first.",
        "",
        "| engine | threads | games/s | decisions/s |",
        "| --- | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(f"| {r[0]} | {r[2]} | {r[3]:,.0f} | {r[4]:,.0f} |")
    for label, g, d in peers:
        lines.append(f"| {label} | 1 | {g:,.0f} | {d:,.0f} |")
    if peers:
        ref = one.get("shuangkou baibian") or next(iter(one.values()))
        lines += [
            "",
            f"Ratios, ours ({ref[0]}, 1 thread) over each peer (1 thread):",
            "",
            "| peer | games/s ratio | decisions/s ratio |",
            "| --- | ---: | ---: |",
        ]
        for label, g, d in peers:
            lines.append(f"| {label} | {ref[3] / g:,.0f}× | {ref[4] / d:,.0f}× |")
    lines += [
        "",
        f"Thread scaling 1 → {cores} (decisions/s):",
        "",
        f"| variant | 1 thread | {cores} threads | speed-up |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, r1 in one.items():
        rn = allt.get(name, r1)
        lines.append(f"| {name.split()[-1]} | {r1[4]:,.0f} | {rn[4]:,.0f} | {rn[4] / r1[4]:.2f}× |")
    lines += [
        "",
        f"Memory per live game: the compact state (`GameState`) is {sk._core.GAME_STATE_BYTES} bytes; "
        f"the self-play runner keeps one per thread plus an {sk._core.DEAL_RESULT_BYTES}-byte result per deal. "
        f"A vector-env slot adds its observation ({sk._core.observation_size()} float32s), mask "
        "(one byte per action id) and recent-action buffer.",
        "",
        END,
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        replace_section(args.write, BEGIN, END, text, "## Random play beside peers")
        print(f"wrote {args.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
