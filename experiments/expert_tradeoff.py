"""The round-0 trade-off of experiments/expert_baibian.md: each distilled network's
held-out regret (the labels' own measure, on fresh worlds) against its WP against
`heuristic` on the checkpoint-choosing deals (seed 1, 1,000 duplicate deals), beside
the shipped network's.

    python experiments/expert_tradeoff.py      # reads experiments/expert_baibian/*/ and writes tradeoff.png

The shipped network's point was measured with the same code (its regret by
shuangkou.dmc.distill.holdout_scores on the same held-out shards, its WP by the arena
on the same deals): the figures are in SHIPPED below.
"""

from __future__ import annotations

import csv
from pathlib import Path

from shuangkou.util.figures import agg_figure

HERE = Path(__file__).parent / "expert_baibian"
RUNS = {  # folder -> label
    "distill_baibian": "distilled (win)",
    "distill_anchor_100": "anchored, weight 100",
    "distill_anchor_1000": "anchored, weight 1000",
}
SHIPPED = {"regret": 0.0503, "wp": 0.568, "wp_lo": 0.537, "wp_hi": 0.598}


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main() -> None:
    fig = agg_figure(6.4, 4.4)
    ax = fig.add_subplot()
    for folder, label in RUNS.items():
        ev = {r["update"]: r for r in rows(HERE / folder / "eval.csv")}
        ho = {r["update"]: r for r in rows(HERE / folder / "holdout.csv")}
        xs = [float(ho[u]["regret"]) for u in ev if u in ho]
        ys = [float(ev[u]["wp"]) for u in ev if u in ho]
        ax.plot(xs, ys, "o-", label=label, alpha=0.8)
    ax.errorbar(
        [SHIPPED["regret"]],
        [SHIPPED["wp"]],
        yerr=[[SHIPPED["wp"] - SHIPPED["wp_lo"]], [SHIPPED["wp_hi"] - SHIPPED["wp"]]],
        fmt="s",
        color="black",
        label="shipped dmc",
    )
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("held-out regret (win reward, fresh worlds; lower: closer to the labels)")
    ax.set_ylabel("WP against heuristic (seed-1 deals)")
    ax.set_title("Round 0: following the labels more loses more")
    ax.legend(fontsize=8)
    fig.savefig(HERE / "tradeoff.png", dpi=110)


if __name__ == "__main__":
    main()
