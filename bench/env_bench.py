"""Steps per second of the environments, in one run beside a PettingZoo classic env.

    python bench/env_bench.py --seconds 5 --write experiments/benchmarks.md

Rows: the PettingZoo AEC env (random masked actions, and PettingZoo's own
performance_benchmark), the Gymnasium env (one learner seat, heuristic opponents
played inside C++), the VectorEnv (1,024 envs, 1 and all threads; the random
legal-action choice in numpy is included and also reported apart), and
PettingZoo's connect_four_v3 as the classic-env yardstick. A step is one action
of one player.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import statistics
import sys
import time
from importlib import metadata

import numpy as np
import shuangkou as sk

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import replace_section  # noqa: E402

BEGIN = "<!-- envs:begin -->"
END = "<!-- envs:end -->"


def aec_steps(make, seconds: float) -> float:
    env = make()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                mask = obs["action_mask"]
                action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
            steps += 1
            if steps % 256 == 0 and time.perf_counter() > end:
                break
        env.reset()
    return steps


def gym_steps(seconds: float, variant: str) -> float:
    import gymnasium

    env = gymnasium.make("shuangkou/Shuangkou-v0", variant=variant, opponents="heuristic")
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    steps = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        mask = env.unwrapped.action_masks()
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        if term or trunc:
            env.reset()
    return steps


def vector_steps(seconds: float, variant: str, threads: int, num_envs: int = 1024) -> tuple[float, float]:
    env = sk.VectorEnv(num_envs=num_envs, variant=variant, seed=0, num_threads=threads)
    _, info = env.reset()
    rng = np.random.default_rng(0)
    steps = 0
    in_step = 0.0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        off = info["legal_offsets"]
        counts = np.diff(off)
        actions = info["legal_ids"][off[:-1] + (rng.random(num_envs) * counts).astype(np.int64)]
        t = time.perf_counter()
        info = env.step(actions)[-1]  # the same position in the 4-tuple of older versions and the 5-tuple
        in_step += time.perf_counter() - t
        steps += num_envs
    return steps, in_step


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--variant", default="baibian")
    parser.add_argument("--write", default=None, help="markdown file whose envs section to replace")
    args = parser.parse_args()
    from pettingzoo.classic import connect_four_v3

    cores = os.cpu_count() or 1

    def med(fn):
        rates = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            n = fn()
            rates.append(n / (time.perf_counter() - start))
        return statistics.median(rates)

    rows = []
    rows.append(
        (
            f"shuangkou AEC env ({args.variant}), random masked actions",
            1,
            med(lambda: aec_steps(lambda: sk.env(args.variant), args.seconds)),
        )
    )
    rows.append(
        (
            "PettingZoo connect_four_v3 (classic), random masked actions",
            1,
            med(lambda: aec_steps(connect_four_v3.env, args.seconds)),
        )
    )
    rows.append(
        (
            f"shuangkou Gymnasium env ({args.variant}), 3 heuristic seats in C++",
            1,
            med(lambda: gym_steps(args.seconds, args.variant)),
        )
    )
    for threads in sorted({1, cores}):
        runs = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            steps, in_step = vector_steps(args.seconds, args.variant, threads)
            runs.append((steps / (time.perf_counter() - start), steps / in_step))
        rows.append(
            (
                f"shuangkou VectorEnv ({args.variant}, 1,024 envs), with numpy action choice",
                threads,
                statistics.median(r[0] for r in runs),
            )
        )
        rows.append(
            (
                f"shuangkou VectorEnv ({args.variant}, 1,024 envs), inside step() only",
                threads,
                statistics.median(r[1] for r in runs),
            )
        )
    perf = io.StringIO()
    with contextlib.redirect_stdout(perf):
        from pettingzoo.test import performance_benchmark

        performance_benchmark(sk.env(args.variant))
    perf_text = " ".join(perf.getvalue().split())

    lines = [
        BEGIN,
        "",
        f"Machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}; "
        f"pettingzoo {metadata.version('pettingzoo')}, gymnasium {metadata.version('gymnasium')}. "
        f"Command: `python bench/env_bench.py --seconds {args.seconds:g} --repeats {args.repeats} "
        f"--write experiments/benchmarks.md` (medians of {args.repeats} runs, one process). "
        "Every step produces an observation (445 float32) and an action mask; the VectorEnv also "
        "the per-move feature rows.",
        "",
        "| environment | threads | steps/s |",
        "| --- | ---: | ---: |",
    ]
    for name, threads, rate in rows:
        lines.append(f"| {name} | {threads} | {rate:,.0f} |")
    aec = rows[0][2]
    c4 = rows[1][2]
    lines += [
        "",
        f"Ratio AEC env / connect_four_v3: {aec / c4:.2f}× (Shuangkou's observation and mask are far "
        "larger than connect four's 6×7×2 board).",
        "",
        f"PettingZoo `performance_benchmark` on the AEC env printed: {perf_text}",
        "",
        END,
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        replace_section(args.write, BEGIN, END, text, "## Environments")
        print(f"wrote {args.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
