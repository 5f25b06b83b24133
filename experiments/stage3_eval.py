"""Stage 3 of expert iteration (experiments/expert_baibian.md): Deep Monte-Carlo
fine-tuning of the shipped network with its heuristic prior inside the actors' policy
(configs/train/dmc_VARIANT_prior.yaml), in baibian beside its control, the same minutes
without the prior (configs/train/dmc_baibian_more.yaml), measured on eval-v1.

    python experiments/stage3_eval.py                       # baibian: experiments/expert_baibian/
    python experiments/stage3_eval.py --variant jj --guided # runs/dmc_jj_prior: experiments/expert_jj/
    python experiments/stage3_eval.py --deals 200 --search-deals 20 --out /tmp/s3
    python experiments/stage3_eval.py --runs runs/dmc_baibian_prior2,runs/dmc_baibian_prior2_pool --no-alone \
        --also dmc:experiments/exploit/new-dmc-prior.safetensors --out experiments/expert_baibian/again

Each run's result is the one of its last and averaged models that its own final
evaluation (seed-3 deals, neither eval-v1 nor the labels' deals) rates higher (a run
that max_minutes stopped before the learner averaged there gets its average here, from
its checkpoint). On eval-v1,
each interval treating a duplicate pair as one unit:
  - every candidate against `heuristic` and the shipped `dmc` (--deals) and against the
    frozen reference `search` (--search-deals; 128 rollouts a decision, eval-v1's seed,
    this build), and each --also bot (--also-deals); the candidates: the prior run's
    network with its prior and alone, the control's network with the shipped prior added
    and alone (--no-alone: none alone), the shipped network;
  - with --guided, the guided search of the best run with its prior, its gate calibrated
    to search --search-share of its decisions (43%, as the shipped baibian one's), against
    `heuristic` (a fifth of --deals) and `search` (--search-deals).
The choices are made on other deals (--choice-deals of seed CHOICE_SEED, neither eval-v1
nor a run's or the labels' deals), so that eval-v1's figures are not those that chose:
the shipped file and each run with its prior against `heuristic`, and each run against
the shipped `dmc`; the best run is the one that wins most against `heuristic` there.
Writes OUT/stage3.json. Then --ship copies that candidate's file, its gate calibrated,
over the shipped one: refused unless OUT/stage3.json measured this rule set and the file
now shipped, the calibrated file is unchanged since, and the candidate beat the shipped
file on the choosing deals both against `heuristic` and head to head.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import time
from pathlib import Path

import shuangkou as sk
from dmc_train import choose_model
from expert_eval import calibrate, in_repo, pair, write_result
from prior_eval import with_prior

ROOT = Path(__file__).resolve().parents[1]
OPPONENTS = ("heuristic", "dmc", "search")  # every candidate's, in the table's order
# The deals that choose a run and decide its shipping: neither eval-v1 (0x5EED20260001), the
# labels' (0x1ABE2026000N), nor the training runs' (seeds 1, 3 and 4).
CHOICE_SEED = 5


def shipped(variant: str) -> Path:
    """The network file shipped for `variant`, in this checkout."""
    return ROOT / "python" / "shuangkou" / "models" / f"dmc_{variant}.safetensors"


def average_if_missing(run: Path) -> None:
    """A run that max_minutes stopped before the learner averaged its last models there too
    (it does since) gets the average now: from its checkpoint's last evaluated models,
    saved and evaluated on the run's own deals as the learner does at its last update."""
    if (run / "average.json").exists():
        return
    import torch
    from shuangkou.dmc.learner import TrainConfig, _save_average
    from shuangkou.runs.arena import arena_rules

    state = torch.load(run / "checkpoint.pt", weights_only=True)
    config = TrainConfig.from_dict(state["config"])
    if len(state.get("recent", [])) >= 2:
        meta = {"variant": config.variant, "config": repr(dataclasses.asdict(config)), **config.network_metadata()}
        _save_average(config, arena_rules(config.check()), run, state["recent"], meta, int(state["update"]))


def candidates(runs: list[Path], work: Path, variant: str, alone: bool = True) -> dict[str, str]:
    """The model files measured, by name (with `alone`, each network without its prior too)."""
    ship = shipped(variant)
    prior = float(sk.QNet.load(str(ship)).metadata["heuristic_prior"])
    out = {"shipped": str(ship)}
    if alone:
        out["shipped alone"] = str(with_prior(ship, None, work / "shipped_alone.safetensors"))
    for run in runs:
        average_if_missing(run)
        model, _ = choose_model(run)
        out[run.name] = str(with_prior(model, prior, work / f"{run.name}.safetensors"))
        if alone:
            out[f"{run.name} alone"] = str(with_prior(model, None, work / f"{run.name}_alone.safetensors"))
    return out


def table(result: dict) -> str:
    """The report's table: each candidate's WP (95% interval) against each opponent."""
    opponents = list(dict.fromkeys([*OPPONENTS] + [r["b"] for r in result["pairs"]]))
    lines = ["| candidate | " + " | ".join(f"vs `{b}`" for b in opponents) + " |"]
    lines.append("| --- |" + " ---: |" * len(opponents))
    for name in dict.fromkeys(r["candidate"] for r in result["pairs"]):
        cells = []
        for b in opponents:
            r = next((r for r in result["pairs"] if r["candidate"] == name and r["b"] == b), None)
            ci = f" ({r['wp_ci'][0]:.3f}–{r['wp_ci'][1]:.3f})" if r and r.get("wp_ci") else ""  # (none for few deals)
            cells.append(f"{r['wp']:.3f}{ci}, {r['deals']:,}" if r else "")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def sha256(path: Path) -> str:
    """The file's sha256, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def guided_candidate(result: dict) -> str:
    """The candidate whose guided search a stage3.json measured (its "+search" rows)."""
    return next(r["candidate"] for r in result["pairs"] if r["candidate"].endswith("+search"))[: -len("+search")]


def ship_refusal(result: dict, variant: str, target: Path) -> str | None:
    """Why a stage3.json's guided candidate may not replace `target`, the shipped file of
    `variant`; None when it may."""
    if result.get("variant") != variant:
        return f"it measured {result.get('variant')}, not {variant}"
    if "calibration" not in result:
        return "it has no guided candidate: run it with --guided first"
    if sha256(target) != result["sha256"]["shipped"]:
        return f"{target} is not the file measured as shipped"
    model = in_repo(result["calibration"]["model"])
    if not model.exists() or sha256(model) != result["calibration"].get("sha256"):
        return f"{model} is not the file it calibrated: measure it again"
    if "choice" not in result:
        return "it chose on eval-v1 (it has no choosing deals): measure it again"
    best = guided_candidate(result)
    wp = {(r["candidate"], r["b"]): r["wp"] for r in result["choice"]["pairs"]}
    if wp[best, "heuristic"] <= wp["shipped", "heuristic"]:
        return f"{best} won {wp[best, 'heuristic']} against heuristic on the choosing deals, not above the shipped file's {wp['shipped', 'heuristic']}"
    if wp[best, "dmc"] <= 0.5:
        return f"{best} won {wp[best, 'dmc']} against the shipped dmc on the choosing deals, not above 0.5"
    return None


def ship_candidate(out: Path, variant: str) -> dict:
    """Copy OUT/stage3.json's guided candidate (the fine-tune with its prior, its gate
    calibrated) over the shipped file of `variant`; refused, naming why and copying
    nothing, unless it measured that rule set and that file, its calibrated file is
    unchanged, and the candidate beat the shipped file against `heuristic` and head to
    head on the choosing deals (a stage3.json without them is refused)."""
    result = json.loads((out / "stage3.json").read_text(encoding="utf-8"))
    target = shipped(variant)
    why = ship_refusal(result, variant, target)
    if why:
        raise SystemExit(f"{out / 'stage3.json'}: {why}")
    data = in_repo(result["calibration"]["model"]).read_bytes()
    target.write_bytes(data)
    return {"shipped": guided_candidate(result), "file": str(target), "bytes": len(data), "sha256": sha256(target)}


def shipped_rows(args: argparse.Namespace, work: Path) -> dict:
    """The model card's other rows for the file shipped in args.variant: it against
    greedy, simple, random and its network alone (--deals), and that network alone against
    heuristic (--deals) and search (--search-deals): stage3_bots.json's content."""
    v = args.variant
    ship = shipped(v)
    work.mkdir(parents=True, exist_ok=True)
    alone = f"dmc:{with_prior(ship, None, work / 'bots_alone.safetensors')}"
    rows = [pair([f"dmc:{ship}", b], args.deals, args.threads, v) for b in ("greedy", "simple", "random", alone)]
    rows.append(pair([alone, "heuristic"], args.deals, args.threads, v))
    rows.append(pair([alone, "search"], args.search_deals, args.threads, v))
    return {"sha256": sha256(ship), "pairs": rows}


def choice(files: dict[str, str], fine_tunes: list[str], args: argparse.Namespace) -> dict:
    """The choosing pairs on --choice-deals deals of CHOICE_SEED: the shipped file and each
    fine-tune (with its prior) against `heuristic`, each fine-tune against the shipped `dmc`."""
    rows = []
    for name in ["shipped", *fine_tunes]:
        for b in ("heuristic",) if name == "shipped" else ("heuristic", "dmc"):
            row = pair([f"dmc:{files[name]}", b], args.choice_deals, args.threads, args.variant, seed=CHOICE_SEED)
            rows.append({"candidate": name, **row})
            print(json.dumps(rows[-1]), flush=True)
    return {"seed": CHOICE_SEED, "pairs": rows}


def measure(args: argparse.Namespace, runs: list[str], work: Path) -> dict:
    """Every candidate of `runs` against each opponent on eval-v1, the choosing pairs, and
    with --guided the best one's guided search, its gate calibrated: stage3.json's content."""
    v = args.variant
    for bot in args.also:  # (before hours of play, not after)
        if bot in OPPONENTS:
            raise SystemExit(f"--also {bot}: every candidate plays it already")
        try:
            sk.Bot(bot)
        except ValueError as e:
            raise SystemExit(f"--also {bot}: {e}") from None
    work.mkdir(parents=True, exist_ok=True)
    files = candidates([ROOT / r for r in runs], work, v, alone=not args.no_alone)
    rows = []
    against = [(b, args.search_deals if b == "search" else args.deals) for b in OPPONENTS]
    for name, f in files.items():
        for b, deals in against + [(bot, args.also_deals) for bot in args.also]:
            if name == "shipped" and b == "dmc":
                continue
            rows.append({"candidate": name, **pair([f"dmc:{f}", b], deals, args.threads, v)})
            print(json.dumps(rows[-1]), flush=True)
    sha = {name: sha256(Path(f)) for name, f in files.items()}
    fine_tunes = [Path(r).name for r in runs]  # with their prior
    result: dict = {
        "variant": v,
        "files": files,
        "sha256": sha,
        "pairs": rows,
        "choice": choice(files, fine_tunes, args),
    }
    if args.guided:
        ranked = [r for r in result["choice"]["pairs"] if r["b"] == "heuristic" and r["candidate"] in fine_tunes]
        best = max(ranked, key=lambda r: r["wp"])["candidate"]
        result["calibration"] = calibrate(files[best], args.search_share, 100, work, v)
        result["calibration"]["sha256"] = sha256(Path(result["calibration"]["model"]))
        guided = f"dmc:{result['calibration']['model']}+search"
        for b, deals in (("heuristic", args.deals // 5), ("search", args.search_deals)):
            result["pairs"].append({"candidate": f"{best}+search", **pair([guided, b], deals, args.threads, v)})
            print(json.dumps(result["pairs"][-1]), flush=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default="baibian", help="the rule set (a preset)")
    parser.add_argument(
        "--runs",
        help="the runs, comma-separated (default: runs/dmc_VARIANT_prior, and in baibian runs/dmc_baibian_more)",
    )
    parser.add_argument("--search-share", type=float, default=0.43, help="the guided search's share searched")
    parser.add_argument("--deals", type=int, default=10_000, help="pairs without search")
    parser.add_argument("--search-deals", type=int, default=1_000, help="pairs against search")
    parser.add_argument("--choice-deals", type=int, default=10_000, help="the choosing pairs (deals of CHOICE_SEED)")
    parser.add_argument("--guided", action="store_true", help="the best candidate's guided search too")
    parser.add_argument("--no-alone", action="store_true", help="not the networks without their prior")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        help="another opponent (a bot's name, a file read from the working folder; repeatable)",
    )
    parser.add_argument("--also-deals", type=int, default=2_000, help="pairs against each --also opponent")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--table", action="store_true", help="print OUT/stage3.json's table and stop")
    parser.add_argument(
        "--bots",
        action="store_true",
        help="only the shipped file against greedy, simple, random and its network alone, and that network alone against heuristic and search (--search-deals): OUT/stage3_bots.json",
    )
    parser.add_argument("--ship", action="store_true", help="ship OUT/stage3.json's guided candidate and stop")
    parser.add_argument("--out", help="default: experiments/expert_VARIANT")
    parser.add_argument("--work", help="the model files measured (default: runs/stage3_models/VARIANT)")
    args = parser.parse_args()
    v = args.variant
    runs = args.runs or f"runs/dmc_{v}_prior" + (",runs/dmc_baibian_more" if v == "baibian" else "")
    out, start = Path(args.out or ROOT / "experiments" / f"expert_{v}"), time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    work = Path(args.work or ROOT / "runs" / "stage3_models" / v)
    work.mkdir(parents=True, exist_ok=True)
    if args.table:
        print(table(json.loads((out / "stage3.json").read_text(encoding="utf-8"))))
        return 0
    if args.ship:
        print(json.dumps(ship_candidate(out, v), indent=1))
        return 0
    if args.bots:  # the model card's other rows, for the file shipped
        result = shipped_rows(args, work)
        write_result(out / "stage3_bots.json", result)
        print(json.dumps(result["pairs"], indent=1))
        return 0
    result = measure(args, runs.split(","), work)
    result["seconds"] = round(time.perf_counter() - start, 1)
    write_result(out / "stage3.json", result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
