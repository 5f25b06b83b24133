"""Files of an arena run: results.json, pairs.csv, the plots and report.md.

    from shuangkou.runs.arena_report import write_report
    write_report(sk.arena(...), "runs/arena1")

Plots need matplotlib (a dependency of the package; imported here only, without pyplot:
the figures draw on their own Agg canvas and leave the backend alone).
"""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..util.figures import agg_figure, plain_text
from ..util.outputs import output_file, prepare_out
from .arena import ArenaResult

FILES = ("results.json", "pairs.csv", "winrate.png", "score_diff.png", "report.md")

CSV_COLUMNS = (
    "a", "b", "deals", "wp", "wp_lo", "wp_hi", "adp", "adp_lo", "adp_hi", "pairs_won_a", "pairs_won_b",
    "pairs_tied", "a_double", "a_single", "b_double", "b_single", "draw", "a_bombs_per_deal", "b_bombs_per_deal",
    "a_max_stars_per_deal", "b_max_stars_per_deal", "a_overtakes_per_deal", "b_overtakes_per_deal",
)  # fmt: skip


def _csv_row(p: dict[str, Any]) -> list[Any]:
    o, g = p["outcomes"], p["by_agent"]
    return [
        p["a"], p["b"], p["deals"], p["wp"], *(p["wp_ci"] or ["", ""]), p["adp"], *(p["adp_ci"] or ["", ""]),
        p["pairs_won"]["a"],
        p["pairs_won"]["b"], p["pairs_won"]["tied"], o["a"]["double"], o["a"]["single"], o["b"]["double"],
        o["b"]["single"], o["draw"], g["a"]["bombs_per_deal"], g["b"]["bombs_per_deal"],
        g["a"]["max_stars_per_deal"], g["b"]["max_stars_per_deal"], g["a"]["overtakes_per_deal"],
        g["b"]["overtakes_per_deal"],
    ]  # fmt: skip


def wrap(text: str, chars: int) -> str:
    """`text` broken into lines of at most `chars` characters (each line of `text` on its
    own), after a space or one of / : _ , . where it can (an agent's path, a variant
    file; never inside a number: "WP 0.973" keeps "0.973" whole), inside a word only
    where a word alone is longer."""
    return "\n".join(_fill(line, max(1, chars)) for line in text.split("\n"))


def _fill(line: str, chars: int) -> str:
    lines, cur = [], ""
    for piece in re.split(r"(?<=[ /:_,])|(?<=\.)(?!\d)", line):
        while piece:
            if cur and len(cur) + len(piece.rstrip()) > chars:
                lines.append(cur.rstrip())
                cur, piece = "", piece.lstrip(" ")
                continue
            if len(cur) + len(piece.rstrip()) <= chars:
                cur, piece = cur + piece, ""
            else:  # a word longer than a line
                lines.append(piece[:chars])
                piece = piece[chars:]
    return "\n".join([*lines, cur.rstrip()] if cur.strip() or not lines else lines)


def fits(width_in: float, fontsize: float) -> int:
    """About how many characters of DejaVu Sans (0.6 em wide at most, mostly less) fit
    `width_in` inches at `fontsize` points."""
    return max(12, int(width_in * 72 / (0.6 * fontsize)))


def by_rating(result: ArenaResult) -> list[str]:
    """The agents, best rated first (ties in their order in the result)."""
    ratings = result["ratings"]
    return sorted(result["agents"], key=lambda a: -ratings[a]["rating"])


def deals_text(result: ArenaResult) -> str:
    """How many deals the pairs played: "10,000 duplicate deals a pair", or "500–10,000
    duplicate deals a pair" where the pairs (merged from several runs) played different
    numbers."""
    counts = sorted({int(p["deals"]) for p in result["pairs"]}) or [int(result["deals"])]
    n = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,}–{counts[-1]:,}"
    return f"{n} duplicate deals a pair"


def winrate_figure(result: ArenaResult) -> Any:
    """The win-rate heatmap as a matplotlib Figure: row agent's WP against the column
    agent, the agents best rated first (Bradley-Terry), a labelled colour bar."""
    with plain_text():  # labels are drawn as given, "$" included
        agents = result["agents"]
        labels = by_rating(result)
        order = [agents.index(a) for a in labels]
        raw = np.array([[np.nan if x is None else x for x in row] for row in result["wp_matrix"]], dtype=float)
        m = raw[np.ix_(order, order)]
        # Sized by its labels: long names (a dmc:PATH agent) are wrapped and get room.
        ylabels = [wrap(a, 28) for a in labels]
        xlabels = [wrap(a, 20) for a in labels]
        ychars = max(len(t) for a in ylabels for t in a.split("\n"))
        xchars = max(len(t) for a in xlabels for t in a.split("\n"))
        xlines = max(a.count("\n") + 1 for a in xlabels)
        char = 0.6 * 10 / 72  # a tick label's character, inches
        heat = 0.4 + 0.9 * len(labels)
        left = max(0.4 + char * ychars, 0.87 * char * xchars - heat / (2 * len(labels)) + 0.2)
        width = max(left + heat + 1.3, 4.8)
        height = heat + 1.0 + 0.5 * char * xchars + 0.18 * xlines
        fig = agg_figure(width, height)
        ax = fig.add_subplot()
        im = ax.imshow(m, vmin=0, vmax=1, cmap="RdBu")
        ax.set_xticks(range(len(labels)), xlabels, rotation=30, ha="right", rotation_mode="anchor")
        ax.set_yticks(range(len(labels)), ylabels)
        ax.set_xlabel("column agent")
        ax.set_ylabel("row agent (best rated first)")
        for i in range(len(labels)):
            for j in range(len(labels)):
                if not np.isnan(m[i, j]):
                    ax.text(
                        j,
                        i,
                        f"{m[i, j]:.2f}",
                        ha="center",
                        va="center",
                        color="black" if 0.25 < m[i, j] < 0.75 else "white",
                    )
        title = f"{result['variant']}: WP of row vs column\n{deals_text(result)}"
        fig.suptitle(wrap(title, fits(width - 0.3, 12)), fontsize=12)
        bar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        bar.set_label("WP of row vs column")
    return fig


def plot_winrate(result: ArenaResult, path: str | os.PathLike | IO[bytes]) -> None:
    """winrate.png: the heatmap of `winrate_figure`."""
    winrate_figure(result).savefig(path, dpi=110, format="png")


def score_diff_figure(result: ArenaResult) -> Any:
    """A's score difference per deal as a matplotlib Figure, one panel a pair: a
    histogram over the duplicate pairs of the mean of each pair's two deals, with the
    pair's ADP (the report's number, its mean) marked."""
    with plain_text():  # labels are drawn as given, "$" included
        pairs = result["pairs"]
        cols = min(3, len(pairs))
        rows = (len(pairs) + cols - 1) // cols
        panel = 4.6
        fig = agg_figure(panel * cols, 0.6 + 3.3 * rows)
        axes = fig.subplots(rows, cols, squeeze=False)
        for ax, p in zip(axes.flat, pairs):
            per_deal = result.arrays[(p["a"], p["b"])]["score_diff"].sum(axis=1) / 2.0  # (steps of 1/2)
            lo, hi = np.percentile(per_deal, [0.5, 99.5])
            lo, hi = np.floor(lo * 2) / 2, np.ceil(hi * 2) / 2
            step = max(0.5, np.ceil((hi - lo) / 40 * 2) / 2)
            ax.hist(np.clip(per_deal, lo, hi), bins=np.arange(lo - 0.25, hi + step, step), color="#3b75af")
            ax.axvline(0, color="black", lw=0.8)
            ax.axvline(p["adp"], color="#c03d3e", lw=1.2, label=f"ADP {p['adp']:+.2f}")
            ax.set_title(wrap(f"{p['a']} vs {p['b']}: WP {p['wp']:.3f}", fits(panel - 0.2, 10)), fontsize=10)
            xlabel = f"{p['a']}'s score minus {p['b']}'s per deal\n(mean of a duplicate pair's two deals)"
            ax.set_xlabel(wrap(xlabel, fits(panel - 0.6, 8)), fontsize=8)
            ax.set_ylabel("duplicate pairs", fontsize=8)
            ax.legend(fontsize=8)
        for ax in list(axes.flat)[len(pairs) :]:
            ax.axis("off")
        title = f"{result['variant']}: score differences per deal\n{deals_text(result)}"
        fig.suptitle(wrap(title, fits(panel * cols - 0.3, 12)), fontsize=12)
    return fig


def plot_score_diff(result: ArenaResult, path: str | os.PathLike | IO[bytes]) -> None:
    """score_diff.png: the histograms of `score_diff_figure`."""
    score_diff_figure(result).savefig(path, dpi=110, format="png")


def cell(text: str) -> str:
    """Text for a markdown table cell: a "|" in an agent's name must not open a column."""
    return text.replace("|", "\\|")


def interval(ci: list[float] | None, fmt: str, sep: str) -> str:
    """An interval as text; 'no interval' where there is none (a single duplicate pair)."""
    return "no interval" if ci is None else f"{ci[0]:{fmt}}{sep}{ci[1]:{fmt}}"


def pairs_table(pairs: list[dict[str, Any]], deals_column: bool = False) -> list[str]:
    """Markdown rows: each pair's WP and ADP with their intervals and the pairs won
    (with `deals_column`, each pair's number of duplicate deals too)."""
    deals_head, deals_rule = (" deals |", " ---: |") if deals_column else ("", "")
    lines = [
        f"| A | B |{deals_head} WP of A (95% CI) | ADP of A (95% CI) | pairs won A / B / tied |",
        f"| --- | --- |{deals_rule} ---: | ---: | ---: |",
    ]
    for p in pairs:
        w = p["pairs_won"]
        deals = f" {p['deals']:,} |" if deals_column else ""
        lines.append(
            f"| {cell(p['a'])} | {cell(p['b'])} |{deals} {p['wp']:.3f} ({interval(p['wp_ci'], '.3f', '–')}) | "
            f"{p['adp']:+.2f} ({interval(p['adp_ci'], '+.2f', ' to ')}) | {w['a']} / {w['b']} / {w['tied']} |"
        )
    return lines


def outcomes_table(pairs: list[dict[str, Any]]) -> list[str]:
    """Markdown rows: outcome shares by team, bombs, most stars and overtakes per deal."""
    lines = [
        "| A | B | A double | A single | B double | B single | draw | bombs A / B | most stars A / B "
        "| overtakes A / B |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for p in pairs:
        o, g = p["outcomes"], p["by_agent"]
        lines.append(
            f"| {cell(p['a'])} | {cell(p['b'])} | {o['a']['double']:.1%} | {o['a']['single']:.1%} | {o['b']['double']:.1%} | "
            f"{o['b']['single']:.1%} | {o['draw']:.1%} | {g['a']['bombs_per_deal']:.2f} / {g['b']['bombs_per_deal']:.2f}"
            f" | {g['a']['max_stars_per_deal']:.2f} / {g['b']['max_stars_per_deal']:.2f} | "
            f"{g['a']['overtakes_per_deal']:.2f} / {g['b']['overtakes_per_deal']:.2f} |"
        )
    return lines


def ratings_table(result: ArenaResult) -> list[str]:
    """Markdown rows: ratings with intervals, points and level titles, best first."""
    lines = ["| agent | rating (95% CI) | points | level (等级) |", "| --- | ---: | ---: | --- |"]
    for name, r in sorted(result["ratings"].items(), key=lambda kv: -kv[1]["rating"]):
        lv = result["levels"][name]
        lines.append(
            f"| {cell(name)} | {r['rating']:+.0f} ({r['ci'][0]:+.0f} to {r['ci'][1]:+.0f}) | {lv['points']:,.0f} | "
            f"{lv['level']} {lv['title']} |"
        )
    return lines


def markdown(result: ArenaResult, plots: bool = True, replays: str = "replays.jsonl.gz") -> str:
    """The report: pairs with intervals, outcome rates, bombs, overtakes, ratings, levels,
    and with replays the deals each agent lost by most (`replays`: the file, as the
    commands that open them name it)."""
    lines = [
        f"# Arena: {result['variant']}",
        "",
        deals_text(result)
        + (f" (evaluation set {result['eval_set']})" if result.get("eval_set") else f", seed {result['seed']}")
        + f"; agents: {', '.join(result['agents'])}. {result['statistics']}.",
        "",
        *pairs_table(result["pairs"]),
        "",
        "Outcomes (share of deals the agent's team won by 双扣 double or 单扣 single; 平扣 draws), "
        "bombs and most stars of one bomb per deal (the agent's two seats), and plays made over the "
        "partner's play on the table per deal:",
        "",
        *outcomes_table(result["pairs"]),
        "",
        "Ratings (Bradley-Terry, Elo scale, mean 0) and each agent's level title (等级) from its points:",
        "",
        *ratings_table(result),
    ]
    lines += lost_most_lines(result["pairs"], replays)
    if plots:
        lines += ["", "![win rates](winrate.png)", "", "![score differences](score_diff.png)"]
    return "\n".join(lines) + "\n"


def lost_most_lines(pairs: list[dict], replays: str) -> list[str]:
    """The deals each agent lost by most (arenas with replays), with the commands that
    open both halves of each in the viewer."""
    rows = []
    for p in pairs:
        for side, other in (("a", "b"), ("b", "a")):
            for d in p.get("lost_most", {}).get(side, []):
                mine, theirs = d["replay_places"] if side == "a" else d["replay_places"][::-1]
                rows.append(
                    f"| {p[side]} | {p[other]} | {d['deal']} | {d['lost_by']:.0f} | "
                    f"`shuangkou replay {replays} --deal {mine}` | `--deal {theirs}` |"
                )
    if not rows:
        return []
    return [
        "",
        "Deals each agent lost by most (by how many points its team's score over the duplicate pair fell "
        "short of the other's), among the recorded ones, with the commands that open the half in which it "
        "sat in seats 0 and 2, and the other half:",
        "",
        "| agent | against | deal | lost by | open it | its other half |",
        "| --- | --- | ---: | ---: | --- | --- |",
        *rows,
    ]


def write_report(result: ArenaResult, out: str | os.PathLike, force: bool = False) -> list[Path]:
    """Writes results.json, pairs.csv, winrate.png, score_diff.png and report.md into
    `out` (made if missing); returns their paths. A folder that holds any of them (an
    earlier report) is refused with a ValueError, nothing written, unless `force`
    (then they are replaced). Each file is written whole or not at all
    (shuangkou.outputs.output_file); an OSError names the file that failed."""
    out = Path(out)
    prepare_out(out, FILES, what="out", force=force, hint="pass force=True to replace it")
    paths = [out / f for f in FILES]
    with output_file(paths[0]) as f:
        f.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    with output_file(paths[1], newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for p in result["pairs"]:
            w.writerow(_csv_row(p))
    with output_file(paths[2], "wb") as f:
        plot_winrate(result, f)
    with output_file(paths[3], "wb") as f:
        plot_score_diff(result, f)
    with output_file(paths[4]) as f:
        f.write(markdown(result))
    return paths
