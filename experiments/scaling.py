"""Self-play and the arena on Ray against the plain one-machine run: experiments/scaling.md.

    python experiments/scaling.py            # about two minutes on 2 cores
    python experiments/scaling.py --games 50000 --out /tmp/scaling.md

Measures, on a local Ray of 1 and then 2 workers (one CPU each, every process on
127.0.0.1), the throughput of `sk.selfplay(..., ray=True)` and `sk.arena(..., ray=True)`
beside the same calls without Ray on 1 and 2 threads, each result checked equal to the
plain run's; and the overhead a chunk costs (a run of one-deal chunks of random play,
whose deals take microseconds). Prints the tables and writes them into the report
between its generated-part markers (the discussion after them is kept). The training
figures come from experiments/scaling_train.py.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
import shuangkou as sk
from shuangkou.runs.ray_cluster import start_local

HERE = Path(__file__).resolve().parent
BEGIN, END = "<!-- generated: scaling.py -->", "<!-- end of generated part -->"


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)


def measure(args: argparse.Namespace) -> tuple[list[list[str]], list[list[str]]]:
    import ray

    sp = dict(variant="baibian", games=args.games, agents=["heuristic", "greedy"], seed=1)
    ar = dict(variant="baibian", agents=["heuristic", "greedy"], deals=args.games // 4, seed=1)
    rows = []
    base, t_sp1 = timed(lambda: sk.selfplay(threads=1, **sp))
    base_ar, t_ar1 = timed(lambda: sk.arena(threads=1, **ar))
    _, t_sp2 = timed(lambda: sk.selfplay(threads=2, **sp))
    _, t_ar2 = timed(lambda: sk.arena(threads=2, **ar))
    deals_ar = 2 * ar["deals"]
    rows.append(["plain, 1 thread", f"{args.games / t_sp1:,.0f}", f"{deals_ar / t_ar1:,.0f}", "-", "-"])
    rows.append(["plain, 2 threads", f"{args.games / t_sp2:,.0f}", f"{deals_ar / t_ar2:,.0f}", "-", "-"])
    overhead = []
    for workers in (1, 2):
        start_local(num_cpus=workers)
        try:
            sk.selfplay("classic", games=8, agents="random", ray=True, chunk=1)  # workers started
            r, t_sp = timed(lambda: sk.selfplay(ray=True, threads=1, **sp))
            a, t_ar = timed(lambda: sk.arena(ray=True, threads=1, **ar))
            assert same(base, r), "Ray self-play differs from the plain run"
            assert [p["wp"] for p in a["pairs"]] == [p["wp"] for p in base_ar["pairs"]], "Ray arena differs"
            rows.append(
                [
                    f"Ray, {workers} worker{'s' if workers > 1 else ''}",
                    f"{args.games / t_sp:,.0f}",
                    f"{deals_ar / t_ar:,.0f}",
                    f"{r['ray']['chunks']} x {r['ray']['chunk']:,}",
                    f"{t_sp1 / t_sp:.2f}",
                ]
            )
            n = args.overhead_chunks
            plain = timed(lambda n=n: sk.selfplay("classic", games=n, agents="random", threads=1))[1]
            chunked = timed(lambda n=n: sk.selfplay("classic", games=n, agents="random", ray=True, chunk=1))[1]
            overhead.append(
                [
                    str(workers),
                    f"{n:,}",
                    f"{chunked:.2f}",
                    f"{plain:.3f}",
                    f"{1e3 * (chunked - plain) / n:.2f}",
                    f"{1e3 * (chunked - plain) / n * workers:.2f}",
                ]
            )
        finally:
            ray.shutdown()
    return rows, overhead


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=40_000, help="self-play deals a run (the arena plays a quarter)")
    p.add_argument("--overhead-chunks", type=int, default=1_000, help="one-deal chunks of the overhead run")
    p.add_argument("--out", type=Path, default=HERE / "scaling.md")
    args = p.parse_args()
    rows, overhead = measure(args)
    lines = [
        BEGIN,
        "",
        f"Measured by `python experiments/scaling.py` on {time.strftime('%Y-%m-%d')} "
        f"({platform.machine()}, {sk.__version__}): baibian, heuristic against greedy, "
        f"{args.games:,} self-play deals and {args.games // 4:,} duplicate arena deals a run "
        "(the arena plays each twice). Ray runs used a local Ray of one CPU a worker, "
        "tasks of 1 CPU, the default chunk size; each gave the plain run's arrays exactly.",
        "",
        "| run | self-play deals/s | arena deals/s | self-play chunks | speed-up over 1 thread |",
        "| --- | ---: | ---: | ---: | ---: |",
        *[f"| {' | '.join(r)} |" for r in rows],
        "",
        "The cost of a chunk: one-deal chunks of random play (a deal takes about 20 µs), "
        "against the same deals without Ray on one thread.",
        "",
        "| workers | chunks | Ray s | plain s | ms a chunk (wall) | ms a chunk of worker time |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        *[f"| {' | '.join(r)} |" for r in overhead],
        "",
        END,
    ]
    table = "\n".join(lines)
    print(table)
    old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    if BEGIN in old and END in old:
        text = old[: old.index(BEGIN)] + table + old[old.index(END) + len(END) :]
    else:
        text = "# Scaling out with Ray\n\n" + table + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
