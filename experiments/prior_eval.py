"""The heuristic prior of the shipped networks (docs/dmc_model.md): a network whose model
file's metadata gives `heuristic_prior` adds that constant to the Q of the heuristic's
choice, so the heuristic's play stands unless the network rates another higher by more.
This chooses each rule set's prior and measures it: experiments/heuristic_prior.md.

    python experiments/prior_eval.py --variant baibian --guided --write
    python experiments/prior_eval.py --variant jj --choose-deals 500 --deals 200 --search-deals 20 --out /tmp/p
    python experiments/prior_eval.py --plot          # experiments/heuristic_prior/choice.png

1. The prior is chosen on --choose-deals duplicate deals of seed 1 (neither eval-v1 nor
   the labels' deals): the network with each of PRIORS against `heuristic`, the best WP.
2. --write puts it into the shipped model file (python/shuangkou/models/dmc_V.safetensors;
   the weights unchanged), with --guided the calibrated gate (`search_gap`) too. The
   network alone is the same file without the prior.
3. On eval-v1 (the report set; each interval treats a duplicate pair as one unit): the
   network with its prior against every built-in bot and against the network alone, the
   network alone against `heuristic` and `search` in the same run; with --guided also its
   guided search, the gate calibrated to search 43% of its decisions, as the shipped
   network's did (experiments/dmc_search.md); decisions a second on one thread, with and
   without the prior, alternated. The reference `search` is the frozen bot of 128 rollouts
   a decision, eval-v1's seed and this build.
Writes OUT/V.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import shuangkou as sk
from expert_eval import calibrate, pair, speed, write_result
from shuangkou import _core

PRIORS = (0.0, 0.03, 0.05, 0.07, 0.1, 0.15)
MODELS = Path(sk.__file__).parent / "models"


def with_prior(source: Path, prior: float | None, path: Path) -> Path:
    """A copy of `source` whose metadata gives `prior` (None: no heuristic_prior key)."""
    net = _core.QNet.load(str(source))
    path.write_bytes(net.with_metadata({"heuristic_prior": None if prior is None else f"{prior:g}"}).to_bytes())
    return path


def choose(variant: str, source: Path, deals: int, work: Path) -> dict:
    """Each prior's WP against heuristic on `deals` duplicate deals of seed 1; the best."""
    rows = []
    for prior in PRIORS:
        model = with_prior(source, prior, work / f"{variant}_choose.safetensors")
        r = sk.arena(variant, agents=[f"dmc:{model}", "heuristic"], deals=deals, seed=1)
        p = r["pairs"][0]
        rows.append({"prior": prior, "wp": p["wp"], "wp_ci": p["wp_ci"], "adp": p["adp"]})
        print(json.dumps(rows[-1]), flush=True)
    best = max(rows, key=lambda row: row["wp"])
    return {"deals": deals, "seed": 1, "rows": rows, "chosen": best["prior"]}


def pairs(variant: str, new: str, alone: str, args: argparse.Namespace, out: dict) -> list[dict]:
    """The eval-v1 pairs (the guided search's too with --guided)."""
    wanted = [([new, b], args.deals) for b in ("heuristic", "greedy", "simple", "random")]
    wanted += [([new, alone], args.deals), ([alone, "heuristic"], args.deals)]
    wanted += [([new, "search"], args.search_deals), ([alone, "search"], args.search_deals)]
    if args.guided:
        out["calibration"] = calibrate(new.removeprefix("dmc:"), 0.43, 100, Path(args.work), variant)
        guided = f"dmc:{out['calibration']['model']}+search"
        wanted += [([guided, "heuristic"], args.guided_deals), ([guided, "search"], args.search_deals)]
    rows = []
    for agents, deals in wanted:
        rows.append(pair(agents, deals, args.threads, variant))
        print(json.dumps(rows[-1]), flush=True)
    return rows


def guided_only(args: argparse.Namespace, shipped: Path, out: Path) -> dict:
    """--guided-only: adds the guided search's pairs to an earlier run's OUT/V.json (whose
    prior the shipped file already holds), the gate calibrated as above."""
    result = json.loads(out.read_text(encoding="utf-8"))
    prior = _core.QNet.load(str(shipped)).metadata.get("heuristic_prior")
    if prior is None or float(prior) != result["model"]["prior"]:
        raise SystemExit(f"{shipped} does not hold the prior of {out} (run it with --write first)")
    result["calibration"] = calibrate(str(shipped), 0.43, 100, Path(args.work), args.variant)
    guided = f"dmc:{result['calibration']['model']}+search"
    for agents, deals in (([guided, "heuristic"], args.guided_deals), ([guided, "search"], args.search_deals)):
        result["pairs"].append(pair(agents, deals, args.threads, args.variant))
        print(json.dumps(result["pairs"][-1]), flush=True)
    if args.write:
        shipped.write_bytes(Path(result["calibration"]["model"]).read_bytes())
    result["shipped"] = {"file": str(shipped), "sha256": hashlib.sha256(shipped.read_bytes()).hexdigest()}
    return result


def plot(out_dir: Path) -> None:
    """--plot: each rule set's WP against heuristic by prior (the choosing deals) into choice.png."""
    from shuangkou.util.figures import agg_figure

    fig = agg_figure(6.4, 4.2)
    ax = fig.add_subplot()
    for path in sorted(out_dir.glob("*.json")):
        rows = json.loads(path.read_text(encoding="utf-8"))["choice"]["rows"]
        xs, ys = [r["prior"] for r in rows], [r["wp"] for r in rows]
        err = [[r["wp"] - r["wp_ci"][0] for r in rows], [r["wp_ci"][1] - r["wp"] for r in rows]]
        ax.errorbar(xs, ys, yerr=err, fmt="o-", capsize=3, label=path.stem, alpha=0.85)
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("heuristic_prior (added to the Q of the heuristic's choice)")
    ax.set_ylabel("WP against heuristic (3,000 seed-1 deals, 95% CI)")
    ax.set_title("The shipped networks with a prior on the heuristic's play")
    ax.legend(fontsize=8)
    fig.savefig(out_dir / "choice.png", dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", help="a preset with a shipped network: baibian, qianbian, jj")
    parser.add_argument("--plot", action="store_true", help="only draw OUT/choice.png from OUT/*.json")
    parser.add_argument("--choose-deals", type=int, default=3_000, help="seed-1 deals a prior")
    parser.add_argument("--deals", type=int, default=10_000, help="eval-v1 pairs without search")
    parser.add_argument("--search-deals", type=int, default=500, help="eval-v1 pairs against search")
    parser.add_argument("--guided-deals", type=int, default=2_000, help="eval-v1: the guided search vs heuristic")
    parser.add_argument("--guided", action="store_true", help="also measure the guided search (dmc+search)")
    parser.add_argument("--write", action="store_true", help="write the chosen prior into the shipped model file")
    parser.add_argument("--guided-only", action="store_true", help="add --guided's pairs to an earlier run's json")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--work", default="runs/prior", help="where the model files measured go")
    parser.add_argument("--out", default=str(Path(__file__).parent / "heuristic_prior"))
    args = parser.parse_args()
    v, work, out_dir = args.variant, Path(args.work), Path(args.out)
    if args.plot or not v:
        return plot(out_dir) if args.plot else parser.error("--variant is needed (or --plot)")
    work.mkdir(parents=True, exist_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    shipped = MODELS / f"dmc_{v}.safetensors"
    if args.guided_only:
        result = guided_only(args, shipped, out_dir / f"{v}.json")
        write_result(out_dir / f"{v}.json", result)
        return 0
    start = time.perf_counter()
    result = {
        "variant": v,
        "build": _core.ARCH,
        "version": sk.__version__,
        "choice": choose(v, shipped, args.choose_deals, work),
    }
    prior = result["choice"]["chosen"]
    new = with_prior(shipped, prior, shipped if args.write else work / f"{v}_prior.safetensors")
    alone = with_prior(shipped, None, work / f"{v}_alone.safetensors")
    result["model"] = {"file": str(new), "prior": prior, "sha256": hashlib.sha256(new.read_bytes()).hexdigest()}
    result["pairs"] = pairs(v, f"dmc:{new}", f"dmc:{alone}", args, result)
    if args.write and args.guided:  # the shipped file gets the calibrated gate too: what was measured
        new.write_bytes(Path(result["calibration"]["model"]).read_bytes())
    result["shipped"] = {"file": str(new), "sha256": hashlib.sha256(new.read_bytes()).hexdigest()}
    result["speed"] = [speed(f"dmc:{m}", 1000, v) | {"model": m.name} for m in (alone, new, alone, new)]
    result["seconds"] = round(time.perf_counter() - start, 1)
    write_result(out_dir / f"{v}.json", result)
    print(json.dumps({k: result[k] for k in ("model", "speed", "seconds")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
