"""Decisions per second of the Q network's forward pass (sk.QNet, Eigen), one thread.

    python bench/qnet_bench.py --write experiments/benchmarks.md

One decision: the observation part once and k legal moves in one matrix product
(docs/model_format.md), called from Python (the call itself costs about a
microsecond). Default network: 445 observation floats, 44 move floats, hidden
(256, 128). Reported for k = 10, 25 and 60, with the multiply-adds of each.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np
import shuangkou as sk

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import replace_section  # noqa: E402

BEGIN = "<!-- qnet:begin -->"
END = "<!-- qnet:end -->"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hidden", default="256,128")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--write", default=None)
    args = parser.parse_args()
    hidden = [int(h) for h in args.hidden.split(",")]
    obs_size, move_size = sk._core.observation_size(), sk._core.MOVE_FEATURE_SIZE
    rng = np.random.default_rng(0)
    shapes = sk.QNet.tensor_shapes(obs_size, move_size, hidden)
    net = sk.QNet(obs_size, move_size, hidden, {n: rng.normal(0, 0.05, s).astype(np.float32) for n, s in shapes})
    lines = [
        BEGIN,
        "",
        f"`python bench/qnet_bench.py` on {platform.processor() or platform.machine()}, one thread, the "
        f"package's default build (x86-64-v2): network {obs_size} + {move_size} -> {args.hidden} -> 1.",
        "",
        "| legal moves k | multiply-adds a decision | decisions/s | GFLOP/s |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for k in (10, 25, 60):
        obs = rng.random(obs_size, dtype=np.float32)
        moves = rng.random((k, move_size), dtype=np.float32)
        for _ in range(100):
            net.q_values(obs, moves)
        best = 0.0
        for _ in range(3):
            n, t = 0, time.perf_counter()
            end = t + args.seconds / 3
            while time.perf_counter() < end:
                for _ in range(100):
                    net.q_values(obs, moves)
                n += 100
            best = max(best, n / (time.perf_counter() - t))
        macs = net.multiply_adds(k)
        lines.append(f"| {k} | {macs:,} | {best:,.0f} | {2 * macs * best / 1e9:.1f} |")
        print(lines[-1], file=sys.stderr)
    lines += [
        "",
        "The C++ actors (`sk._core.DmcActors`, 256 deals side by side, every seat played by this network, "
        "epsilon 0.01, baibian): decisions per second including the game, the observations and the move "
        "features (decisions with a single legal move skip the network).",
        "",
        "| threads | decisions/s |",
        "| ---: | ---: |",
    ]
    for threads in sorted({1, os.cpu_count() or 1}):
        actors = sk._core.DmcActors("baibian", net, num_envs=256, seed=1, threads=threads)
        actors.collect(5_000)  # warm up (per-thread buffers)
        before, t = actors.decisions, time.perf_counter()
        actors.collect(60_000)
        rate = (actors.decisions - before) / (time.perf_counter() - t)
        lines.append(f"| {threads} | {rate:,.0f} |")
        print(lines[-1], file=sys.stderr)
    lines += ["", END]
    text = "\n".join(lines)
    print(text)
    if args.write:
        replace_section(args.write, BEGIN, END, text, "## Q network forward pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
