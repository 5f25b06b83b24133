"""Deep Monte-Carlo for baibian, trained and evaluated: experiments/dmc_baibian.md.

    python experiments/dmc_baibian.py                      # train (configs/train/dmc_baibian.yaml), evaluate, report
    python experiments/dmc_baibian.py --run runs/dmc_baibian --no-train   # evaluate a finished run
    python experiments/dmc_baibian.py --ship               # ... and copy its weights into the package

Training writes runs/dmc_baibian/ (model.safetensors, train.csv, eval.csv, curve.png).
The final model then plays --deals duplicate deals of the fixed evaluation set eval-v1
against each of heuristic, greedy and random through the arena (WP with its 95% Wilson
interval, ADP with its paired t interval). The report, its learning curve and the
arena's results go to experiments/dmc_baibian.md and experiments/dmc_baibian/.
--ship copies the model to python/shuangkou/models/dmc_baibian.safetensors, the
weights of the built-in agent `dmc` (docs/dmc_model.md).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import hashlib
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

import shuangkou as sk
from shuangkou.arena_report import outcomes_table, pairs_table

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "train" / "dmc_baibian.yaml"
OPPONENTS = ["heuristic", "greedy", "random"]


def read_train(run: Path) -> list[dict]:
    """train.csv with samples and elapsed_s counted on across resumes (a learner before
    this version restarted both at a resume: they are accumulated here)."""
    rows = list(csv.DictReader(open(run / "train.csv", encoding="utf-8")))
    offset_s, offset_n, prev_s, prev_n = 0.0, 0, 0.0, 0
    for r in rows:
        s, n = float(r["elapsed_s"]), int(r["samples"])
        if s + offset_s < prev_s:  # restarted
            offset_s, offset_n = prev_s, prev_n
        r["elapsed_s"], r["samples"] = s + offset_s, n + offset_n
        prev_s, prev_n = r["elapsed_s"], r["samples"]
    return rows


def plot(run: Path, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    train = read_train(run)
    ev = list(csv.DictReader(open(run / "eval.csv", encoding="utf-8")))
    t_of = {int(r["update"]): float(r["elapsed_s"]) / 60 for r in train}
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    a.plot([float(r["elapsed_s"]) / 60 for r in train], [float(r["loss"]) for r in train], color="#3b75af", lw=0.8)
    a.set_xlabel("minutes")
    a.set_ylabel("loss (MSE of Q against the return)")
    x = [t_of.get(int(r["update"]), float("nan")) for r in ev]
    b.plot(x, [float(r["wp"]) for r in ev], marker="o", color="#c03d3e", label="WP against heuristic")
    b.fill_between(x, [float(r["wp_lo"]) for r in ev], [float(r["wp_hi"]) for r in ev], alpha=0.2, color="#c03d3e")
    b.axhline(0.5, color="black", lw=0.8)
    b.axhline(0.7, color="grey", lw=0.8, ls="--", label="target 0.70")
    b.set_ylim(0, 1)
    b.set_xlabel("minutes")
    b.set_ylabel(f"WP over {ev[0]['deals']} duplicate deals (95% CI)")
    b.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(CONFIG))
    parser.add_argument("--run", default="runs/dmc_baibian", help="the training run's folder")
    parser.add_argument("--no-train", action="store_true", help="evaluate the finished run in --run")
    parser.add_argument("--deals", type=int, default=10_000, help="duplicate deals of eval-v1 per opponent")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "experiments"))
    parser.add_argument("--ship", action="store_true", help="copy the model into the package (the agent dmc)")
    args = parser.parse_args()
    from shuangkou.dmc.learner import TrainConfig, train

    run, out = Path(args.run), Path(args.out)
    config = TrainConfig.from_yaml(args.config)
    started = time.time()
    if not args.no_train:
        train(config, run)
    model = run / "model.safetensors"
    if not model.exists():
        raise SystemExit(f"{model}: no model (train first, or give --run)")
    rows = read_train(run)
    last = rows[-1]
    results = []
    for opponent in OPPONENTS:
        t = time.perf_counter()
        r = sk.arena("baibian", agents=[f"dmc:{model}", opponent], deals=f"eval-v1:{args.deals}", threads=args.threads)
        results.append((r, time.perf_counter() - t))
        p = r["pairs"][0]
        print(f"dmc vs {opponent}: WP {p['wp']:.3f} {p['wp_ci']}, ADP {p['adp']:+.2f} {p['adp_ci']}", file=sys.stderr)
    (out / "dmc_baibian").mkdir(parents=True, exist_ok=True)
    for name in ("train.csv", "eval.csv"):
        shutil.copy(run / name, out / "dmc_baibian" / name)
    plot(run, out / "dmc_baibian" / "curve.png")
    pairs = [r["pairs"][0] for r, _ in results]
    for p in pairs:
        p["a"] = "dmc"
    json.dump({"pairs": pairs, "config": config.__dict__}, open(out / "dmc_baibian" / "results.json", "w"), indent=1)
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    meta = sk.QNet.load(str(model)).metadata
    evals = list(csv.DictReader(open(run / "eval.csv", encoding="utf-8")))
    minutes = float(last["elapsed_s"]) / 60
    heur = pairs[0]
    verdict = "met" if heur["wp"] >= 0.70 else "not met"
    lines = [
        "# Deep Monte-Carlo for baibian: training on 2 cores, the shipped `dmc` agent",
        "",
        f"Generated by `python experiments/dmc_baibian.py{' --no-train' if args.no_train else ''}` on "
        f"{datetime.date.today().isoformat()} ({platform.machine()}, {os.cpu_count()} cores, "
        f"shuangkou {sk.__version__}, build {sk._core.ARCH}).",
        "",
        "## Command and budget",
        "",
        "```bash",
        f"python -m shuangkou.train --config configs/train/dmc_baibian.yaml --out {args.run}",
        "```",
        "",
        f"- Wall clock: **{minutes:.1f} minutes** of training for {int(last['update']):,} updates and "
        f"{int(last['samples']):,} decisions collected (target: at most 2 hours on this 2-core machine), "
        f"plus {len(evals)} evaluations of {evals[0]['deals']} duplicate deals inside it.",
        f"- Throughput: {int(last['samples']) / float(last['elapsed_s']):,.0f} training decisions a second of "
        "wall clock over the run, the learner's updates and the evaluations included (acting and learning "
        "alternate on the same 2 cores).",
        f"- The config (configs/train/dmc_baibian.yaml): `{json.dumps(config.__dict__)}`.",
        "",
        "## Learning curve",
        "",
        "![loss and WP against heuristic over the run](dmc_baibian/curve.png)",
        "",
        "| update | minutes | WP against heuristic | 95% CI | ADP |",
        "| ---: | ---: | ---: | --- | ---: |",
    ]
    t_of = {int(r["update"]): float(r["elapsed_s"]) / 60 for r in rows}
    for e in evals:
        u = int(e["update"])
        lines.append(
            f"| {u:,} | {t_of.get(u, float('nan')):.1f} | {float(e['wp']):.3f} | "
            f"{float(e['wp_lo']):.3f}-{float(e['wp_hi']):.3f} | {float(e['adp']):+.2f} |"
        )
    lines += [
        "",
        f"## The final agent over {args.deals:,} duplicate deals of eval-v1",
        "",
        f"Model `{model.name}` (update {meta.get('update', '?')}, weights version {meta.get('version', '?')}, "
        f"sha256 `{digest}`), shipped as the built-in agent `dmc`.",
        "",
    ]
    lines += pairs_table(pairs)
    lines += ["", *outcomes_table(pairs)]
    lines += [
        "",
        "| opponent | seconds for the evaluation |",
        "| --- | ---: |",
        *[f"| {o} | {s:.0f} |" for o, (_, s) in zip(OPPONENTS, results)],
        "",
        f"Target WP ≥ 0.70 against heuristic: **{verdict}** ({heur['wp']:.3f}, 95% CI "
        f"{heur['wp_ci'][0]:.3f}-{heur['wp_ci'][1]:.3f}).",
        "",
        "<!-- discussion -->",
        "",
    ]
    report = out / "dmc_baibian.md"
    keep = ""
    if report.exists() and "<!-- discussion -->" in report.read_text(encoding="utf-8"):
        keep = report.read_text(encoding="utf-8").split("<!-- discussion -->", 1)[1].lstrip("\n")
    report.write_text("\n".join(lines) + keep, encoding="utf-8")
    if args.ship:
        shutil.copy(model, ROOT / "python" / "shuangkou" / "models" / "dmc_baibian.safetensors")
    print(f"wrote {report} in {time.time() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
