"""Round 2 of expert iteration in baibian (experiments/expert_baibian.md): the network in
the loop. Short rollouts that the shipped network plays for a few actions and then
values (docs/labels.md) label positions, and the same rollouts check the guided
search's close choices (`dmc+search:N:PLIES`, docs/heuristic.md).

    python experiments/leaf_round.py --stage search            # is the search on the network stronger?
    python experiments/leaf_round.py --stage distill --model runs/distill_baibian_leaf/model.safetensors
    python experiments/leaf_round.py --stage labels            # what the two kinds of labels prefer
    python experiments/leaf_round.py --stage baseline          # the shipped dmc on the distillation's deals
    python experiments/leaf_round.py --stage search --deals 100 --search-deals 20 --out /tmp/leaf

--stage search plays the guided search with short rollouts of each --plies against the
shipped one (heuristic rollouts to the end) and against `heuristic`, on --deals deals of
seed 2 (neither eval-v1, seed 1 nor the labels' deals: the choice is made there), then
the best of them on eval-v1 against `heuristic` (--deals) and the frozen reference
`search` (--search-deals; 128 rollouts a decision, eval-v1's seed, this build).
--stage distill plays a distilled network (with the shipped prior) against `heuristic`
and the shipped `dmc` (--deals) and `search` (--search-deals) on eval-v1.
--stage labels compares what the short rollouts' labels and the heuristic's full rollouts
prefer on the same decisions' same candidates (the held-out shards: runs/labels_baibian_leaf
and runs/labels_baibian_leaf_full, configs/expert/label_baibian_leaf_full.yaml): the mean
relative value of a bomb, of the pass and of the other plays, and how often each is the
best-labelled; and the shipped network's held-out regret and agreement on the short
rollouts' labels (configs/expert/distill_baibian_leaf.yaml).
--stage baseline plays the shipped `dmc` against `heuristic` on the first --deals deals of
seed 1, those the distillation runs' evaluations play.
Each interval treats a duplicate pair as one unit. Writes OUT/round2_STAGE.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import shuangkou as sk
from expert_eval import pair

VARIANT = "baibian"
CHOICE_SEED = 2  # the deals the choice is made on
DISTILL_EVAL_SEED = 1  # the deals a distillation run's evaluations play (configs/expert/distill_*.yaml)
FIRST_BOMB_KIND = 6  # the move features' kind one-hot in Kind's order (core/pattern.h): bomb and after


def show(row: dict) -> None:
    lo, hi = row["wp_ci"]
    print(f"{row['a']} vs {row['b']}: {row['wp']:.3f} ({lo:.3f}-{hi:.3f}), {row['deals']} deals, {row['seconds']} s")


def search_stage(args: argparse.Namespace) -> dict:
    """The guided search with short rollouts, chosen on seed 2, measured on eval-v1."""
    choice = []
    for plies in args.plies:
        bot = f"dmc+search:{args.rollouts}:{plies}"
        for other in ("dmc+search", "heuristic"):
            choice.append({"plies": plies, **pair([bot, other], args.deals, args.threads, seed=CHOICE_SEED)})
            show(choice[-1])
    best = max(args.plies, key=lambda p: sum(r["wp"] for r in choice if r["plies"] == p))
    bot = f"dmc+search:{args.rollouts}:{best}"
    report = [
        pair([bot, "heuristic"], args.deals, args.threads),
        pair([bot, "search"], args.search_deals, args.threads),
    ]
    for row in report:
        show(row)
    return {"choice_seed": CHOICE_SEED, "choice": choice, "chosen": bot, "eval_v1": report}


def baseline_stage(args: argparse.Namespace) -> dict:
    """The shipped `dmc` against `heuristic` on the seed-1 deals that the distillation
    runs' own evaluations play (their --deals first), the start their figures compare with."""
    row = pair(["dmc", "heuristic"], args.deals, args.threads, seed=DISTILL_EVAL_SEED)
    show(row)
    return {"seed": DISTILL_EVAL_SEED, "pairs": [row]}


def distill_stage(args: argparse.Namespace) -> dict:
    """A distilled network with the shipped prior, on eval-v1."""
    bot = f"dmc:{args.model}"
    rows = [
        pair([bot, "heuristic"], args.deals, args.threads),
        pair([bot, "dmc"], args.deals, args.threads),
        pair([bot, "search"], args.search_deals, args.threads),
    ]
    for row in rows:
        show(row)
    return {"model": args.model, "eval_v1": rows}


def label_preferences(folder: str, shards: list[int] | None = None) -> dict:
    """The mean relative value (adv) of the bombs, the pass and the other candidates of a
    labelling run's `shards`, and how often each is the best-labelled where it is a candidate."""
    import numpy as np
    from shuangkou.expert.labels import read_labels

    labels = read_labels(folder, shards)
    slices = sk._core.Rules(VARIANT).move_feature_slices
    passes = labels.move[:, slices["is_pass"]].ravel() > 0.5
    bombs = ~passes & (np.argmax(labels.move[:, slices["kind"]], axis=1) >= FIRST_BOMB_KIND)
    starts = labels.offset[:-1]
    best = np.array([lo + int(np.argmax(labels.adv[lo:hi])) for lo, hi in zip(starts, labels.offset[1:])])
    out = {"folder": folder, "decisions": len(starts), "mean_adv_se": float(labels.adv_se.mean())}
    for name, rows in (("bomb", bombs), ("pass", passes), ("other", ~bombs & ~passes)):
        present = np.add.reduceat(rows.astype(np.int64), starts) > 0
        out[name] = {
            "mean_adv": float(labels.adv[rows].mean()),
            "best_where_candidate": float(rows[best][present].mean()),
        }
    return out


def labels_stage(args: argparse.Namespace) -> dict:
    """What the short rollouts' labels prefer beside the heuristic's full rollouts, and the
    shipped network's held-out figures on the former."""
    import torch
    from shuangkou.dmc.distill import LabelData, holdout_scores
    from shuangkou.dmc.net import QNetwork
    from shuangkou.dmc.train_config import TrainConfig

    config = TrainConfig.from_yaml("configs/expert/distill_baibian_leaf.yaml")
    data = LabelData(config.distill, torch.device("cpu"))
    shipped = QNetwork.load("python/shuangkou/models/dmc_baibian.safetensors")
    held = list(range(config.distill.holdout_shards))
    scores = holdout_scores(shipped, data.holdout, data.fresh, config.distill)
    result = {
        "short": label_preferences("runs/labels_baibian_leaf", held),
        "full": label_preferences("runs/labels_baibian_leaf_full"),
        "shipped_holdout": {
            k: None if isinstance(v, float) and v != v else v for k, v in scores.items()
        },  # (NaN: none)
    }
    print(json.dumps(result, indent=1))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stage", choices=("search", "distill", "labels", "baseline"), required=True)
    parser.add_argument("--plies", type=int, nargs="+", default=[0, 4], help="short rollouts' plies to compare")
    parser.add_argument("--rollouts", type=int, default=64, help="rollouts a searched decision (the shipped 64)")
    parser.add_argument("--model", help="--stage distill: the distilled model file")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--search-deals", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("experiments/expert_baibian/round2"))
    args = parser.parse_args()
    if args.stage == "distill" and not args.model:
        parser.error("--stage distill needs --model")
    start = time.perf_counter()
    stages = {"search": search_stage, "distill": distill_stage, "labels": labels_stage, "baseline": baseline_stage}
    result = stages[args.stage](args)
    result["minutes"] = round((time.perf_counter() - start) / 60, 1)
    result["build"] = sk._core.ARCH
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"round2_{args.stage}.json"
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {path} ({result['minutes']} min)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
