"""Deep Monte-Carlo for one rule set, trained and evaluated: experiments/dmc_VARIANT.md.

    python experiments/dmc_train.py --variant baibian      # train (configs/train/dmc_baibian.yaml), evaluate, report
    python experiments/dmc_train.py --variant jj --no-train   # evaluate the finished run in runs/dmc_jj
    python experiments/dmc_train.py --variant jj --ship       # ... and copy its weights into the package

Training writes runs/dmc_VARIANT/ (model.safetensors, train.csv, eval.csv, curve.png,
and with average_last model_average.safetensors and average.json). The model the
run's own evaluation rates higher, the last or the averaged one (average.json: the
same deals), is the run's result. It then plays --deals duplicate deals of the
fixed evaluation set eval-v1 against every built-in bot but dmc (--search-deals against
the slow search bot) through the arena (WP with its 95% Wilson interval, ADP with its
paired t interval); the other model plays heuristic there too, and outside baibian the
result plays the baibian network. The report, its learning curve and the arena's results go to
experiments/dmc_VARIANT.md and experiments/dmc_VARIANT/. --ship copies the result to
python/shuangkou/models/dmc_VARIANT.safetensors: the network the built-in agent `dmc`
plays in that rule set (docs/dmc_model.md).
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
from shuangkou.runs.arena_report import outcomes_table, pairs_table

ROOT = Path(__file__).resolve().parents[1]
# Every built-in bot but dmc; search (slow) plays --search-deals, the others --deals.
OPPONENTS = ["heuristic", "greedy", "random", "simple", "search"]
# What a run is asked for: (WP against heuristic, at most so many minutes of training).
TARGETS = {"baibian": (0.70, 120)}
OTHER_TARGET = (0.55, 60)


def warm_start_alone(config_init: str, run: Path) -> tuple[Path, str]:
    """The network a run is set against, without a heuristic prior and gate (docs/dmc_model.md),
    written into the run's folder, and its name: the config's init_from file where it has
    one, else the shipped baibian network (the built-in dmc before a rule set had its own)."""
    source = Path(config_init) if config_init != "none" else ROOT / "python/shuangkou/models/dmc_baibian.safetensors"
    name = source.stem.removeprefix("dmc_")
    path = run / f"{name}_alone.safetensors"
    net = sk.QNet.load(str(source))
    path.write_bytes(net.with_metadata({"heuristic_prior": None, "search_gap": None}).to_bytes())
    return path, f"the {name} network"


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


def choose_model(run: Path) -> tuple[Path, Path | None]:
    """The run's result and the other model: with average.json, the one of the last and
    the averaged model that the run's own final evaluation (the same deals) rates higher
    by WP; else model.safetensors and None."""
    last = run / "model.safetensors"
    if not last.exists():
        raise SystemExit(f"{last}: no model (train first, or give --run)")
    if not (run / "average.json").exists():
        return last, None
    averaged = run / "model_average.safetensors"
    avg = json.loads((run / "average.json").read_text(encoding="utf-8"))
    final = list(csv.DictReader(open(run / "eval.csv", encoding="utf-8")))[-1]
    return (averaged, last) if float(avg["wp"]) > float(final["wp"]) else (last, averaged)


def choice_lines(run: Path, model: Path, compared: dict | None) -> list[str]:
    """The report's lines on the averaged model against the last one."""
    if compared is None:
        return []
    avg = json.loads((run / "average.json").read_text(encoding="utf-8"))
    final = list(csv.DictReader(open(run / "eval.csv", encoding="utf-8")))[-1]
    lo, hi = compared["wp_ci"]
    return [
        f"The run ended by averaging the weights of its last {avg['models_averaged']} evaluated models "
        f"(one every {avg['eval_every']:,} updates). On the run's own final evaluation ({final['deals']} "
        f"duplicate deals against heuristic) the averaged model won {float(avg['wp']):.3f} and the last "
        f"{float(final['wp']):.3f}, so `{model.name}` is the result. Over eval-v1 below, "
        f"`{compared['a']}` wins {compared['wp']:.3f} ({lo:.3f}–{hi:.3f}) against heuristic.",
        "",
    ]


def plot(run: Path, out: Path, target: float) -> None:
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
    b.axhline(target, color="grey", lw=0.8, ls="--", label=f"target {target:.2f}")
    b.set_ylim(0, 1)
    b.set_xlabel("minutes")
    b.set_ylabel(f"WP over {ev[0]['deals']} duplicate deals (95% CI)")
    b.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def run_arguments(
    doc: str, config: str | None, run: str | None, config_help: str, run_help: str
) -> argparse.ArgumentParser:
    """The options every training-and-evaluation script here takes (this one and
    dmc_ablation.py): --config, --run, --no-train, --deals, --out."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=config, help=config_help)
    parser.add_argument("--run", default=run, help=run_help)
    parser.add_argument("--no-train", action="store_true", help="evaluate the finished run in --run")
    parser.add_argument("--deals", type=int, default=10_000, help="duplicate deals of eval-v1 per opponent")
    parser.add_argument("--out", default=str(ROOT / "experiments"))
    return parser


def main() -> int:
    parser = run_arguments(
        __doc__,
        None,
        None,
        "the training config (default configs/train/dmc_VARIANT.yaml)",
        "the training run's folder (default runs/dmc_VARIANT)",
    )
    parser.add_argument("--variant", default="baibian", help="a preset: configs/train/dmc_VARIANT.yaml")
    parser.add_argument("--search-deals", type=int, default=1000, help="duplicate deals against the search bot")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--ship", action="store_true", help="copy the model into the package (the agent dmc)")
    args = parser.parse_args()
    from shuangkou.dmc.learner import TrainConfig, train

    variant = args.variant
    name = f"dmc_{variant}"
    config_path = Path(args.config or ROOT / "configs" / "train" / f"{name}.yaml")
    run, out = Path(args.run or f"runs/{name}"), Path(args.out)
    config = TrainConfig.from_yaml(config_path)
    if config.variant != variant:
        raise SystemExit(f"{config_path}: trains {config.variant}, not --variant {variant}")
    target, budget = TARGETS.get(variant, OTHER_TARGET)
    started = time.time()
    if not args.no_train:
        train(config, run)
    model, other = choose_model(run)
    rows = read_train(run)
    last = rows[-1]
    results = []
    for opponent in OPPONENTS:
        t = time.perf_counter()
        deals = args.search_deals if opponent == "search" else args.deals
        r = sk.arena(variant, agents=[f"dmc:{model}", opponent], deals=f"eval-v1:{deals}", threads=args.threads)
        results.append((r, time.perf_counter() - t))
        p = r["pairs"][0]
        print(f"dmc vs {opponent}: WP {p['wp']:.3f} {p['wp_ci']}, ADP {p['adp']:+.2f} {p['adp_ci']}", file=sys.stderr)
    (out / name).mkdir(parents=True, exist_ok=True)
    for csv_name in ("train.csv", "eval.csv"):
        shutil.copy(run / csv_name, out / name / csv_name)
    plot(run, out / name / "curve.png", target)
    pairs = [r["pairs"][0] for r, _ in results]
    for p in pairs:
        p["a"] = "dmc"
    compared = None
    if other is not None:  # the model not chosen, against heuristic on the same deals
        r = sk.arena(variant, agents=[f"dmc:{other}", "heuristic"], deals=f"eval-v1:{args.deals}", threads=args.threads)
        compared = r["pairs"][0] | {"a": other.name}
    baibian = None
    if variant != "baibian":  # what training here gained over the network it started from
        start_file, start_name = warm_start_alone(config.init_from, run)
        shipped = f"dmc:{start_file}?variant=any"  # (the network alone, as the one trained here plays)
        r = sk.arena(variant, [f"dmc:{model}", shipped], deals=f"eval-v1:{args.deals}", threads=args.threads)
        baibian = r["pairs"][0] | {"a": "dmc", "b": start_name}
        r = sk.arena(variant, [shipped, "heuristic"], deals=f"eval-v1:{args.deals}", threads=args.threads)
        pairs.append(r["pairs"][0] | {"a": start_name})
        pairs.insert(0, baibian)
    json.dump(
        {"model": model.name, "pairs": pairs, "other": compared, "config": config.__dict__},
        open(out / name / "results.json", "w"),
        indent=1,
    )
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    meta = sk.QNet.load(str(model)).metadata
    evals = list(csv.DictReader(open(run / "eval.csv", encoding="utf-8")))
    minutes = float(last["elapsed_s"]) / 60
    heur = next(p for p in pairs if p["a"] == "dmc" and p["b"] == "heuristic")
    verdict = "met" if heur["wp"] >= target else "not met"
    lines = [
        f"# Deep Monte-Carlo for {variant}: training on 2 cores, the network of the built-in `dmc` there",
        "",
        f"Generated by `python experiments/dmc_train.py --variant {variant}{' --no-train' if args.no_train else ''}` on "
        f"{datetime.date.today().isoformat()} ({platform.machine()}, {os.cpu_count()} cores, "
        f"shuangkou {sk.__version__}, build {sk._core.ARCH}).",
        "",
        "## Command and budget",
        "",
        "```bash",
        f"python -m shuangkou.train --config configs/train/{name}.yaml --out runs/{name}",
        "```",
        "",
        f"- Wall clock: **{minutes:.1f} minutes** of training for {int(last['update']):,} updates and "
        f"{int(last['samples']):,} decisions collected (target: at most {budget} minutes on this 2-core machine), "
        f"plus {len(evals)} evaluations of {evals[0]['deals']} duplicate deals inside it.",
        f"- Throughput: {int(last['samples']) / float(last['elapsed_s']):,.0f} training decisions a second of "
        "wall clock over the run, the learner's updates and the evaluations included (acting and learning "
        "alternate on the same 2 cores).",
        f"- The config (configs/train/{name}.yaml): `{json.dumps(config.__dict__)}`.",
        "",
        "## Learning curve",
        "",
        f"![loss and WP against heuristic over the run]({name}/curve.png)",
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
        f"## The final agent over {args.deals:,} duplicate deals of eval-v1 ({args.search_deals:,} against search)",
        "",
        f"Model `{model.name}` (update {meta.get('update', '?')}, "
        + (
            f"the mean of the last {meta['averaged']} evaluated models' weights, "
            if "averaged" in meta
            else f"weights version {meta.get('version', '?')}, "
        )
        + f"sha256 `{digest}`), shipped as the network of the built-in agent `dmc` in {variant}.",
        "",
        *choice_lines(run, model, compared),
    ]
    lines += pairs_table(pairs)
    lines += ["", *outcomes_table(pairs)]
    lines += [
        "",
        "| opponent | seconds for the evaluation |",
        "| --- | ---: |",
        *[f"| {o} | {s:.0f} |" for o, (_, s) in zip(OPPONENTS, results)],
        *(
            [
                "",
                f"In {variant}, the network trained here is set against {baibian['b']} alone (its warm start, "
                "or the built-in `dmc` before this rule set had a network), which also plays heuristic on the "
                "same deals above.",
            ]
            if baibian
            else []
        ),
        "",
        f"Target WP ≥ {target:.2f} against heuristic: **{verdict}** ({heur['wp']:.3f}, 95% CI "
        f"{heur['wp_ci'][0]:.3f}-{heur['wp_ci'][1]:.3f}).",
        "",
        "<!-- discussion -->",
        "",
    ]
    report = out / f"{name}.md"
    keep = ""
    if report.exists() and "<!-- discussion -->" in report.read_text(encoding="utf-8"):
        keep = report.read_text(encoding="utf-8").split("<!-- discussion -->", 1)[1].lstrip("\n")
    report.write_text("\n".join(lines) + keep, encoding="utf-8")
    if args.ship:
        shutil.copy(model, ROOT / "python" / "shuangkou" / "models" / f"{name}.safetensors")
    print(f"wrote {report} in {time.time() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
