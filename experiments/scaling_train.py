"""DMC training with Ray actors against this machine's actors: the figures for experiments/scaling.md.

    python experiments/scaling_train.py                 # about four minutes on 2 cores
    python experiments/scaling_train.py --seconds 20    # shorter training runs

Measures, on a local Ray (every process on 127.0.0.1, as many CPUs as the machine has):

- the cost of a weight push: `ray.put` of the model file's bytes once, then every Ray
  actor taking them (`set_network`, waited for), against the one-machine push
  (`QNet` copies handed to the C++ actors), for the smoke network and the recipe's;
- the cost of bringing a batch of decisions back: the round trip of a batch request
  less the seconds the actor spent playing it (the object store, the numpy arrays and
  the call), for the smoke config's batch (1,024 decisions an update in all);
- the throughput of a short training run of the smoke config (no teacher, so the rate
  stays level; the learner on this process's CPU) with this machine's actors and with
  1 and 2 Ray actors of one CPU each: decisions the actors made and updates the learner
  took a second, from the log rows after the first (the start-up left out).

Prints markdown tables (and --json writes the figures).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import shuangkou as sk
import yaml
from shuangkou import _core
from shuangkou.dmc.learner import train
from shuangkou.dmc.net import QNetwork
from shuangkou.dmc.ray_actors import RayActors
from shuangkou.dmc.sources import LocalActors
from shuangkou.dmc.train_config import TrainConfig
from shuangkou.runs.ray_cluster import start_local

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "configs" / "train" / "smoke.yaml"
RUNS = [(1, 1), (2, 1), (1, 2)]  # (Ray actors, CPUs each) of the training runs
NETWORKS = {"smoke [64, 32]": (64, 32), "recipe [256, 128]": (256, 128)}


def smoke(**change) -> TrainConfig:
    """The smoke config without its teacher (a steady rate) and with a short evaluation."""
    data = yaml.safe_load(SMOKE.read_text(encoding="utf-8"))
    data |= {"teacher": "none", "teacher_start": 0.0, "teacher_updates": 0, "eval_deals": 10}
    return TrainConfig.from_dict({**data, **change})


def median_ms(samples: list[float]) -> float:
    return 1e3 * statistics.median(samples)


def pushes(ray, repeat: int) -> list[list[str]]:
    """The table of push costs, a row a network."""
    rows = []
    for name, hidden in NETWORKS.items():
        config = smoke(hidden=list(hidden), ray={"actors": 2, "cpus_per_actor": 1})
        rules = config.check()
        net = QNetwork(_core.observation_size(), _core.MOVE_FEATURE_SIZE, hidden)
        local = LocalActors(config, rules, net, 0, 0)
        t_local = []
        for v in range(repeat):
            start = time.perf_counter()
            local.push(net, v + 1)
            t_local.append(time.perf_counter() - start)
        local.close()
        with RayActors(ray, config, rules, net, 0, 0) as source:
            t_put, t_all = [], []
            for v in range(repeat):
                start = time.perf_counter()
                ref = ray.put((net.to_qnet().to_bytes(), v + 1))
                t_put.append(time.perf_counter() - start)
                ray.get([s.handle.set_network.remote(ref) for s in source.slots])
                t_all.append(time.perf_counter() - start)
        size = len(net.to_qnet().to_bytes())
        rows.append(
            [
                name,
                f"{size / 1024:,.0f} KiB",
                f"{median_ms(t_local):.2f}",
                f"{median_ms(t_put):.2f}",
                f"{median_ms(t_all):.2f}",
            ]
        )
    return rows


def transfers(ray, repeat: int) -> list[list[str]]:
    """The table of batch costs: one Ray actor, the smoke config's batch, played then fetched."""
    rows = []
    for actors in (1, 2):
        config = smoke(ray={"actors": actors, "cpus_per_actor": 1})
        rules = config.check()
        net = QNetwork(_core.observation_size(), _core.MOVE_FEATURE_SIZE, config.hidden)
        with RayActors(ray, config, rules, net, 0, 0) as source:
            sizes = [[n for _, _, n in part] for part in source.split]
            trips, played, fetched, n = [], [], [], []
            for _ in range(repeat):
                start = time.perf_counter()
                refs = [s.handle.collect.remote(sz, 0.0) for s, sz in zip(source.slots, sizes)]
                ray.wait(refs, num_returns=len(refs), fetch_local=False)
                ready = time.perf_counter()
                batches = ray.get(refs)
                done = time.perf_counter()
                trips.append(done - start)
                fetched.append(done - ready)
                played.append(max(b["collect_s"] for b in batches))
                n.append(sum(len(b["target"]) for b in batches))
            size = sum(b["obs"].nbytes + b["move"].nbytes + b["target"].nbytes for b in batches)
        overhead = [t - p for t, p in zip(trips, played)]
        rows.append(
            [
                str(actors),
                f"{statistics.median(n):,.0f}",
                f"{size / 2**20:.1f} MiB",
                f"{median_ms(played):.1f}",
                f"{median_ms(trips):.1f}",
                f"{median_ms(overhead):.1f}",
                f"{median_ms(fetched):.2f}",
            ]
        )
    return rows


def rates(out: Path) -> tuple[float, float, float]:
    """Decisions made, samples learnt and updates a second of a run's train.csv, from its
    first row to its last (the start-up left out)."""
    with open(out / "train.csv", encoding="utf-8") as f:
        log = list(csv.DictReader(f))
    first, last = log[0], log[-1]
    span = float(last["elapsed_s"]) - float(first["elapsed_s"])
    made = float(last["decisions_per_s"]) * float(last["elapsed_s"])
    made -= float(first["decisions_per_s"]) * float(first["elapsed_s"])
    samples = int(last["samples"]) - int(first["samples"])
    return made / span, samples / span, (int(last["update"]) - int(first["update"])) / span


def throughput(seconds: float) -> list[list[str]]:
    """The table of short training runs: this machine's actors, then Ray actors."""
    runs = [(f"this machine's actors ({os.cpu_count()} threads)", None)]
    runs += [(f"Ray, {a} actor{'s' if a > 1 else ''} of {c} CPU{'s' if c > 1 else ''}", (a, c)) for a, c in RUNS]
    rows, base = [], None
    with tempfile.TemporaryDirectory() as tmp:
        probe = smoke(updates=40, log_every=10, eval_every=40)  # the rate of this machine, to size the runs
        train(probe, Path(tmp) / "probe", progress=False)
        updates = max(40, int(seconds * rates(Path(tmp) / "probe")[2]) // 10 * 10)
        for name, actors in runs:
            section = {"actors": actors[0], "cpus_per_actor": actors[1]} if actors else None
            config = smoke(updates=updates, log_every=updates // 10, eval_every=updates, ray=section)
            out = Path(tmp) / f"run{len(rows)}"
            train(config, out, progress=False, ray=actors is not None)
            made, samples, ups = rates(out)
            base = base or made
            rows.append([name, f"{updates}", f"{made:,.0f}", f"{samples:,.0f}", f"{ups:.1f}", f"{made / base:.2f}"])
    return rows


def table(header: list[str], rows: list[list[str]], right: int) -> list[str]:
    align = ["---"] * (len(header) - right) + ["---:"] * right
    return [f"| {' | '.join(header)} |", f"| {' | '.join(align)} |", *[f"| {' | '.join(r)} |" for r in rows]]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=45, help="about how long each training run takes")
    p.add_argument("--repeat", type=int, default=20, help="pushes and batches each measured (the median shown)")
    p.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = p.parse_args()
    ray = start_local()
    try:
        push_rows = pushes(ray, args.repeat)
        batch_rows = transfers(ray, args.repeat)
        rate_rows = throughput(args.seconds)
    finally:
        ray.shutdown()
    lines = [
        f"Measured by `python experiments/scaling_train.py` on {time.strftime('%Y-%m-%d')} "
        f"({platform.machine()}, {os.cpu_count()} cores, shuangkou {sk.__version__}, Ray {ray.__version__}), "
        "a local Ray on 127.0.0.1; medians of "
        f"{args.repeat}.",
        "",
        "A weight push (ms): to the C++ actors of this machine; `ray.put` of the model file's bytes; "
        "the put and two Ray actors taking the weights (waited for).",
        "",
        *table(["network", "model file", "one machine", "ray.put", "put + 2 actors have them"], push_rows, 4),
        "",
        "A batch of the smoke config's update (1,024 decisions asked in all, split between the actors; "
        "a collection returns whole deals, so a little more): ms the actors played it, ms from the "
        "request to the arrays in the driver, the difference (the cost of Ray), and ms of the `ray.get` "
        "of batches already made.",
        "",
        *table(
            ["Ray actors", "decisions", "arrays", "played", "round trip", "Ray's cost", "get of a ready batch"],
            batch_rows,
            6,
        ),
        "",
        "Short training runs of the smoke config without its teacher (the learner in the driver, "
        "`ahead: 1`): decisions the actors made, decisions the learner got and updates, a second, "
        "from the first log row to the last.",
        "",
        *table(["actors", "updates", "decisions/s", "samples/s", "updates/s", "vs this machine"], rate_rows, 5),
    ]
    print("\n".join(lines))
    if args.json:
        data = {"pushes": push_rows, "batches": batch_rows, "throughput": rate_rows}
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
