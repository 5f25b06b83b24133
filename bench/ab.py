"""Two builds of the package measured side by side, alternately, in one run.

    python bench/ab.py --before OLD/python --after python [--rounds 3]

A build is a folder holding the `shuangkou` package (its compiled module beside it),
put first on PYTHONPATH; both run under this interpreter. Each round runs every probe
once per build, the two builds in turn, so both see the same machine load; the table
gives each probe's median over the rounds and the ratio after / before (above 1:
faster after). The probes cover the layers a refactor of the core touches: self-play, the
vector env, the bots, the Q network and the DMC actors.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (unit, code printing one number: that many units a second)
SETUP = "import sys, time; sys.path.insert(0, {here!r}); import numpy as np, shuangkou as sk; T = time.perf_counter\n"
PROBES: dict[str, tuple[str, str]] = {
    "self-play, random, 2 threads": (
        "deals/s",
        "t = T(); sk.selfplay('baibian', games=100_000, agents='random', threads=2); print(100_000 / (T() - t))",
    ),
    "self-play, heuristic, 2 threads": (
        "deals/s",
        "t = T(); sk.selfplay('baibian', games=10_000, agents='heuristic', threads=2); print(10_000 / (T() - t))",
    ),
    "bot dmc (shipped), 1 thread": (
        "deals/s",
        "t = T(); sk.selfplay('baibian', games=300, agents='dmc', threads=1); print(300 / (T() - t))",
    ),
    "bot search:32, 2 threads": (
        "deals/s",
        "t = T(); sk.selfplay('baibian', games=16, agents=['search:32', 'heuristic'], threads=2); print(16 / (T() - t))",
    ),
    "vector env, 1,024 envs, 2 threads": (
        "steps/s",
        "from env_bench import vector_steps; t = T(); s, _ = vector_steps(3, 'baibian', 2); print(s / (T() - t))",
    ),
    "Q network, 25 moves a decision": (
        "decisions/s",
        "net = sk.QNet.load('{model}'); obs = np.zeros(sk._core.observation_size(), np.float32); "
        "mv = np.zeros((25, net.move_size), np.float32); n = 20_000; t = T()\n"
        "for _ in range(n): net.q_values(obs, mv)\n"
        "print(n / (T() - t))",
    ),
    "DMC actors, 64 envs, 2 threads": (
        "samples/s",
        "net = sk.QNet.load('{model}'); a = sk._core.DmcActors('baibian', net, num_envs=64, threads=2, seed=1); "
        "a.collect(2000); t = T(); n = len(a.collect(50_000)['target']); print(n / (T() - t))",
    ),
}


def measure(path: str, code: str) -> float:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(path), "OMP_WAIT_POLICY": "passive"}
    model = os.path.join(os.path.abspath(path), "shuangkou", "models", "dmc_baibian.safetensors")
    script = SETUP.format(here=HERE) + code.format(model=model)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd="/")
    if out.returncode:
        raise SystemExit(f"probe failed under {path}:\n{out.stderr[-2000:]}")
    return float(out.stdout.split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the package folder of the build before the change")
    parser.add_argument("--after", default=os.path.join(HERE, "..", "python"), help="the build after it")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="probes whose names hold one of these ';'-separated words")
    args = parser.parse_args()
    names = [n for n in PROBES if not args.only or any(w and w in n for w in args.only.split(";"))]
    results: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        for name in names:
            for label, path in (("before", args.before), ("after", args.after)):
                value = measure(path, PROBES[name][1])
                results.setdefault((name, label), []).append(value)
                print(f"round {r + 1}: {name}, {label}: {value:,.1f}", file=sys.stderr)
    print(f"| probe | unit | before | after | after / before (median of {args.rounds}) |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name in names:
        b = statistics.median(results[(name, "before")])
        a = statistics.median(results[(name, "after")])
        spread = max(results[(name, "after")]) / min(results[(name, "after")]) - 1
        print(f"| {name} | {PROBES[name][0]} | {b:,.1f} | {a:,.1f} | {a / b:.3f} (after's spread {spread:.0%}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
