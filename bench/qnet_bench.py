"""Speed of Deep Monte-Carlo's parts: the Q network's forward pass (sk.QNet, Eigen, one
thread), the C++ actors (1 and all threads) and the PyTorch learner's update.

    python bench/qnet_bench.py --write experiments/benchmarks.md

The network and the actors are measured in both builds of the module, each in its
own process (SHUANGKOU_CPU=baseline: x86-64-v2; SHUANGKOU_CPU=v3: x86-64-v3 with AVX2
and FMA, which the package loads by itself where the CPU has them; shuangkou/_cpu.py).
One decision: the observation part once and k legal moves in one matrix product
(docs/model_format.md), called from Python (the call itself costs about a
microsecond). Default network: 445 observation floats, 44 move floats, hidden
(256, 128). The learner (needs torch) is measured once: Adam steps on batches of
4096 decisions, in samples a second.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import replace_section  # noqa: E402

BEGIN = "<!-- qnet:begin -->"
END = "<!-- qnet:end -->"
KS = (10, 25, 60)


def random_net(sk, hidden):
    obs_size, move_size = sk._core.observation_size(), sk._core.MOVE_FEATURE_SIZE
    rng = np.random.default_rng(0)
    shapes = sk.QNet.tensor_shapes(obs_size, move_size, hidden)
    return sk.QNet(obs_size, move_size, hidden, {n: rng.normal(0, 0.05, s).astype(np.float32) for n, s in shapes})


def measure_build(hidden: list[int], seconds: float) -> dict:
    """Forward pass and actors in the build this process loaded."""
    import shuangkou as sk

    net, rng = random_net(sk, hidden), np.random.default_rng(1)
    sizes = [sk._core.observation_size(), sk._core.MOVE_FEATURE_SIZE]
    out = {"arch": sk._core.ARCH, "sizes": sizes, "forward": {}, "actors": {}, "macs": {}}
    for k in KS:
        obs = rng.random(sk._core.observation_size(), dtype=np.float32)
        moves = rng.random((k, sk._core.MOVE_FEATURE_SIZE), dtype=np.float32)
        for _ in range(100):
            net.q_values(obs, moves)
        best = 0.0
        for _ in range(3):
            n, t = 0, time.perf_counter()
            end = t + seconds / 3
            while time.perf_counter() < end:
                for _ in range(100):
                    net.q_values(obs, moves)
                n += 100
            best = max(best, n / (time.perf_counter() - t))
        out["forward"][k], out["macs"][k] = best, net.multiply_adds(k)
    for threads in sorted({1, os.cpu_count() or 1}):
        actors = sk._core.DmcActors("baibian", net, num_envs=256, seed=1, threads=threads)
        actors.collect(5_000)  # warm up (per-thread buffers)
        before, t = actors.decisions, time.perf_counter()
        actors.collect(60_000)
        out["actors"][threads] = (actors.decisions - before) / (time.perf_counter() - t)
    return out


def measure_learner(hidden: list[int], batch: int = 4096, steps: int = 30) -> float | None:
    """Samples a second through the learner's update (forward, MSE, backward, Adam)."""
    try:
        import torch
    except ImportError:
        return None
    import shuangkou as sk
    from shuangkou.dmc.net import QNetwork

    torch.manual_seed(0)
    net = QNetwork(sk._core.observation_size(), sk._core.MOVE_FEATURE_SIZE, hidden)
    opt = torch.optim.Adam(net.parameters(), lr=3e-4)
    obs = torch.rand(batch, sk._core.observation_size())
    move = torch.rand(batch, sk._core.MOVE_FEATURE_SIZE)
    target = torch.sign(torch.rand(batch) - 0.5)
    best = 0.0
    for rep in range(4):
        t = time.perf_counter()
        for _ in range(steps):
            loss = torch.nn.functional.mse_loss(net(obs, move), target)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        if rep:  # the first round warms up
            best = max(best, steps * batch / (time.perf_counter() - t))
    return best


def run_build(which: str, args) -> dict | None:
    env = {**os.environ, "SHUANGKOU_CPU": which}
    cmd = [sys.executable, __file__, "--measure", "--hidden", args.hidden, "--seconds", str(args.seconds)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"{which}: not measured ({p.stderr.strip().splitlines()[-1] if p.stderr.strip() else p.returncode})")
        return None
    return json.loads(p.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hidden", default="256,128")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--write", default=None, help="replace the section in this Markdown file")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # one build, JSON out
    args = parser.parse_args()
    hidden = [int(h) for h in args.hidden.split(",")]
    if args.measure:
        print(json.dumps(measure_build(hidden, args.seconds)))
        return 0
    builds = [b for b in (run_build("baseline", args), run_build("v3", args)) if b]
    base = builds[0]
    names = [b["arch"] for b in builds]
    ratio = len(builds) == 2
    head = "| | " + " | ".join(names) + (" | ratio |" if ratio else " |")
    rule = "| --- | " + " | ".join("---:" for _ in builds) + (" | ---: |" if ratio else " |")

    def row(label, values):
        cells = " | ".join(f"{v:,.0f}" for v in values)
        return f"| {label} | {cells}" + (f" | {values[1] / values[0]:.2f} |" if ratio else " |")

    lines = [
        BEGIN,
        "",
        f"`python bench/qnet_bench.py` on {platform.processor() or platform.machine()} "
        f"({os.cpu_count()} cores): network {base['sizes'][0]} + {base['sizes'][1]} -> {args.hidden} -> 1, "
        "each build in its own process.",
        "",
        "Forward pass, one thread, decisions per second (multiply-adds a decision: "
        + ", ".join(f"{base['macs'][str(k)]:,} at k = {k}" for k in KS)
        + "):",
        "",
        head,
        rule,
    ]
    lines += [row(f"k = {k} legal moves", [b["forward"][str(k)] for b in builds]) for k in KS]
    lines += [
        "",
        "The C++ actors (`sk._core.DmcActors`, 256 deals side by side, every seat played by this network, "
        "epsilon 0.01, baibian), decisions per second including the game, the observations and the move "
        "features (decisions with a single legal move skip the network):",
        "",
        head,
        rule,
    ]
    lines += [row(f"{t} thread{'s' if t != '1' else ''}", [b["actors"][t] for b in builds]) for t in base["actors"]]
    learner = measure_learner(hidden)
    if learner is not None:
        import torch

        lines += [
            "",
            f"The learner (PyTorch {torch.__version__}, CPU, {torch.get_num_threads()} threads): "
            f"{learner:,.0f} samples/s through an update (batches of 4096: forward, MSE, backward, Adam).",
        ]
    lines += ["", END]
    text = "\n".join(lines)
    print(text)
    if args.write:
        replace_section(args.write, BEGIN, END, text, "## Q network forward pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
