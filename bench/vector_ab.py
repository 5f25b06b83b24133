"""VectorEnv steps/s of two builds of the package, measured alternately in one run.

    python bench/vector_ab.py --before OLD/venv/bin/python --after .venv/bin/python --rounds 3

Each round runs bench/env_bench.py's VectorEnv measurement (1,024 envs of baibian,
random legal actions chosen in numpy, 3 s) once per build and thread count, so the
two builds see the same machine load; the table gives the median over rounds. The
measurement works with either step() signature (4-tuple before the gymnasium-shaped
VectorEnv, 5-tuple after).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE = (
    "import sys, time; sys.path.insert(0, {here!r}); from env_bench import vector_steps; "
    "t = time.perf_counter(); steps, inside = vector_steps({seconds}, 'baibian', {threads}); "
    "print(steps / (time.perf_counter() - t), steps / inside)"
)


def measure(python: str, threads: int, seconds: float) -> tuple[float, float]:
    code = PROBE.format(here=HERE, seconds=seconds, threads=threads)
    python = os.path.abspath(python) if os.sep in python else python  # it runs from /
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, cwd="/").stdout
    total, inside = map(float, out.split())
    return total, inside


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="python of the build before the change")
    parser.add_argument("--after", default=sys.executable, help="python of the build after it")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    threads_list = sorted({1, os.cpu_count() or 1})
    results: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for r in range(args.rounds):
        for threads in threads_list:
            for label, python in (("before", args.before), ("after", args.after)):
                results.setdefault((label, threads), []).append(measure(python, threads, args.seconds))
                print(
                    f"round {r + 1}: {label}, {threads} thread(s): {results[(label, threads)][-1][0]:,.0f}",
                    file=sys.stderr,
                )
    print("| threads | before: steps/s (in step()) | after: steps/s (in step()) | after / before |")
    print("| ---: | ---: | ---: | ---: |")
    for threads in threads_list:
        b = [statistics.median(x[i] for x in results[("before", threads)]) for i in (0, 1)]
        a = [statistics.median(x[i] for x in results[("after", threads)]) for i in (0, 1)]
        print(f"| {threads} | {b[0]:,.0f} ({b[1]:,.0f}) | {a[0]:,.0f} ({a[1]:,.0f}) | {a[0] / b[0]:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
