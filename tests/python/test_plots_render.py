"""Plots, the arena's progress bar and the text renderer read at a glance (issue 21):
labelled axes, one name and number for one quantity, titles inside the figure, agents
in rating order, plural-aware text."""

from __future__ import annotations

import copy
import csv
import re

import pytest
import shuangkou as sk
from cli_util import run_cli
from shuangkou.envs.render import card_names, render_game
from shuangkou.runs.arena import ArenaResult
from shuangkou.runs.arena_report import markdown, plot_score_diff, plot_winrate, score_diff_figure, winrate_figure

PNG = b"\x89PNG\r\n\x1a\n"
LONG_NAMES = {
    "heuristic": "dmc:runs/baibian_a_long_training_run/model.safetensors",
    "greedy": "agents_for_tests:a_python_agent_with_a_long_name",
    "random": "search:256",
}
LONG_VARIANT = "configs/variants/house_rules_of_a_long_named_club.yaml"


@pytest.fixture(scope="module")
def one_pair() -> ArenaResult:
    return sk.arena("baibian", agents=["heuristic", "greedy"], deals=40, seed=0)


@pytest.fixture(scope="module")
def three_pairs() -> ArenaResult:
    # listed worst first, so the input order is not the rating order
    return sk.arena("baibian", agents=["random", "greedy", "heuristic"], deals=40, seed=0)


def relabelled(result: ArenaResult, names: dict[str, str], variant: str) -> ArenaResult:
    """`result` with its agents renamed and another variant name (long texts for layout)."""
    out = ArenaResult(copy.deepcopy(dict(result)))
    out["variant"] = variant
    out["agents"] = [names[a] for a in result["agents"]]
    for p in out["pairs"]:
        p["a"], p["b"] = names[p["a"]], names[p["b"]]
    out["ratings"] = {names[k]: v for k, v in result["ratings"].items()}
    out["levels"] = {names[k]: v for k, v in result["levels"].items()}
    out.arrays = {(names[a], names[b]): v for (a, b), v in result.arrays.items()}
    return out


def assert_inside(fig) -> None:
    """Every artist of `fig` (titles, labels, legends) lies inside the canvas."""
    fig.canvas.draw()
    box = fig.get_tightbbox(fig.canvas.get_renderer())  # inches
    w, h = fig.get_size_inches()
    slack = 0.02
    where = f"drawn over {box.bounds} (x, y, width, height), the figure is {w} x {h} inches"
    assert box.x0 >= -slack and box.y0 >= -slack, where
    assert box.x1 <= w + slack and box.y1 <= h + slack, where
    for text in [fig._suptitle, *(ax.title for ax in fig.axes)]:
        if text is not None and text.get_text():
            ext = text.get_window_extent(fig.canvas.get_renderer())
            assert ext.x0 >= 0 and ext.x1 <= fig.bbox.width, f"{text.get_text()!r} is cut off: {ext}"
            assert ext.y0 >= 0 and ext.y1 <= fig.bbox.height, f"{text.get_text()!r} is cut off: {ext}"


# ---------------------------------------------------------------------- score_diff.png
def test_score_diff_shows_the_reports_adp_by_its_name(one_pair):
    p = one_pair["pairs"][0]
    fig = score_diff_figure(one_pair)
    ax = fig.axes[0]
    handles, labels = ax.get_legend_handles_labels()
    assert labels == [f"ADP {p['adp']:+.2f}"]  # the report's name and number ...
    assert f"| {p['adp']:+.2f} (" in markdown(one_pair)  # ... as the report prints it
    assert handles[0].get_xdata()[0] == pytest.approx(p["adp"])  # drawn where it is
    texts = [t.get_text() for t in fig.findobj(match=lambda a: hasattr(a, "get_text"))]
    assert not [t for t in texts if re.search(r"mean [+-]", t)], texts  # (no second name, no pair total)
    # the histogram is of the same quantity: per deal, one count a duplicate pair
    heights = [b.get_height() for b in ax.patches]
    assert sum(heights) == p["deals"]
    per_deal = one_pair.arrays[("heuristic", "greedy")]["score_diff"].sum(axis=1) / 2
    assert per_deal.mean() == pytest.approx(p["adp"])
    assert "per deal" in ax.get_xlabel()


def test_score_diff_axes_are_labelled(three_pairs):
    fig = score_diff_figure(three_pairs)
    panels = [ax for ax in fig.axes if ax.axison]
    assert len(panels) == 3
    for ax in panels:
        assert ax.get_ylabel() == "duplicate pairs"
        assert ax.get_xlabel()


@pytest.mark.parametrize("which", ["one_pair", "three_pairs"])
@pytest.mark.parametrize("long", [False, True], ids=["names", "long_names"])
def test_score_diff_titles_fit_the_figure(which, long, request):
    result = request.getfixturevalue(which)
    if long:
        result = relabelled(result, LONG_NAMES, LONG_VARIANT)
    assert_inside(score_diff_figure(result))


# ------------------------------------------------------------------------ winrate.png
def test_winrate_agents_in_rating_order(three_pairs):
    r = three_pairs
    best_first = sorted(r["agents"], key=lambda a: -r["ratings"][a]["rating"])
    assert best_first != r["agents"]  # (else the test shows nothing)
    ax = winrate_figure(r).axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == best_first
    assert [t.get_text() for t in ax.get_xticklabels()] == best_first
    wp = {(p["a"], p["b"]): p["wp"] for p in r["pairs"]}
    wp.update({(b, a): 1 - w for (a, b), w in list(wp.items())})
    cells = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}
    assert len(cells) == 6
    for (i, j), text in cells.items():
        assert text == f"{wp[(best_first[i], best_first[j])]:.2f}"
    assert "best rated first" in ax.get_ylabel()


def test_winrate_colour_bar_is_labelled(one_pair):
    fig = winrate_figure(one_pair)
    assert len(fig.axes) == 2  # the heatmap and its colour bar
    assert "WP" in fig.axes[1].get_ylabel()


def test_titles_give_the_pairs_deal_counts_when_they_differ(three_pairs):
    """Pairs merged from several runs (the arena report's slow pairs play fewer deals)."""
    same = winrate_figure(three_pairs)._suptitle.get_text()
    assert f"{three_pairs['deals']:,} duplicate deals a pair" in same.replace("\n", " ")
    merged = copy.deepcopy(three_pairs)
    merged["pairs"][0]["deals"] = 7
    for fig in (winrate_figure(merged), score_diff_figure(merged)):
        assert f"7–{three_pairs['deals']:,} duplicate deals a pair" in fig._suptitle.get_text().replace("\n", " ")
    assert f"7–{three_pairs['deals']:,} duplicate deals a pair" in markdown(merged)


@pytest.mark.parametrize("which", ["one_pair", "three_pairs"])
@pytest.mark.parametrize("long", [False, True], ids=["names", "long_names"])
def test_winrate_fits_the_figure(which, long, request):
    result = request.getfixturevalue(which)
    if long:
        result = relabelled(result, LONG_NAMES, LONG_VARIANT)
    assert_inside(winrate_figure(result))


def test_plots_write_pngs_and_leave_pyplot_alone(one_pair, tmp_path):
    import matplotlib

    backend = matplotlib.get_backend()
    plot_winrate(one_pair, tmp_path / "w.png")
    plot_score_diff(one_pair, tmp_path / "s.png")
    assert (tmp_path / "w.png").read_bytes()[:8] == PNG
    assert (tmp_path / "s.png").read_bytes()[:8] == PNG
    assert matplotlib.get_backend() == backend


# -------------------------------------------------------------------------- curve.png
def _write_logs(out, evals: int = 4) -> None:
    with open(out / "train.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["update", "samples", "loss", "version", "teacher", "decisions_per_s", "elapsed_s"])
        for u in range(10, 101, 10):
            w.writerow([u, 64 * u, 1 / u, u // 4, 0.0, 1000.0, u / 10])
    if evals:
        with open(out / "eval.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["update", "opponent", "deals", "wp", "wp_lo", "wp_hi", "adp", "adp_lo", "adp_hi"])
            for k in range(1, evals + 1):
                wp = 0.3 + 0.05 * k
                w.writerow([25 * k, "heuristic", 200, wp, wp - 0.05, wp + 0.05, k - 2, k - 3, k - 1])


def test_curve_panels_are_labelled(tmp_path):
    pytest.importorskip("torch")
    from shuangkou.dmc.learner import curve_figure, plot_curve

    _write_logs(tmp_path)
    with open(tmp_path / "train.csv", encoding="utf-8") as f:
        train = list(csv.DictReader(f))
    with open(tmp_path / "eval.csv", encoding="utf-8") as f:
        evals = list(csv.DictReader(f))
    fig = curve_figure(train, evals)
    loss, wp = fig.axes
    assert loss.get_title() and loss.get_ylabel() and loss.get_xlabel() == "update"
    assert wp.get_ylabel().startswith("WP")
    assert "heuristic" in wp.get_title() and "200 duplicate deals" in wp.get_title()
    legend = [t.get_text() for t in wp.get_legend().get_texts()]
    assert "95% interval" in legend and "WP" in legend
    assert_inside(fig)
    plot_curve(tmp_path)
    assert (tmp_path / "curve.png").read_bytes()[:8] == PNG


def test_curve_before_any_evaluation(tmp_path):
    pytest.importorskip("torch")
    from shuangkou.dmc.learner import plot_curve

    _write_logs(tmp_path, evals=0)
    plot_curve(tmp_path)
    assert (tmp_path / "curve.png").read_bytes()[:8] == PNG


# ------------------------------------------------------------------ the arena's bar
@pytest.mark.parametrize("agents, deals, pairs", [("heuristic,greedy", 7, 7), ("heuristic,greedy,random", 5, 15)])
def test_arena_progress_counts_duplicate_pairs(agents, deals, pairs):
    p = run_cli("arena", "--agents", agents, "--deals", str(deals), "--threads", "1")
    err = p.stderr.decode()
    assert p.returncode == 0, err
    last = [s for s in re.split(r"[\r\n]+", err) if s.strip()][-1]
    assert "duplicate pairs" in last and "pair/s" in last, last
    assert f"| {pairs}/{pairs} [" in last, last  # not the deals of both halves (2 x pairs)


# ------------------------------------------------------------------- text renderer
def _lines(game, **kw) -> dict[int, str]:
    """render_game's seat lines, by seat."""
    return {s: line for s, line in enumerate(render_game(game, **kw).splitlines()[:4])}


def test_jokers_are_sj_and_bj_in_english():
    assert card_names("5 T SJ BJ") == "5 T SJ BJ"
    assert card_names("5 T SJ BJ", "zh") == "5 10 小王 大王"
    g = sk.Game("baibian", hands=["SJ", "3 4", "BJ 5", "6"], leader=0)
    text = render_game(g)
    assert "seat 0 [0+2]  1 card: SJ" in text and "seat 2 [0+2]  2 cards: 5 BJ" in text
    assert "joker" not in text
    g.apply("SJ")
    assert "on the table: single SJ (seat 0)" in render_game(g)
    assert "joker" not in render_game(g)
    assert "单张 小王" in render_game(g, lang="zh")


def test_card_counts_are_plural_aware():
    g = sk.Game("baibian", hands=["SJ", "3 4", "BJ 5", "6"], leader=0)
    lines = _lines(g, seat=1)
    assert lines[0].endswith(" 1 card: ?") and lines[3].endswith(" 1 card: ?")
    assert lines[1].endswith(" 2 cards: 3 4") and lines[2].endswith(" 2 cards: ?")
    assert "1 cards" not in render_game(g) and "1 cards" not in render_game(g, seat=1)
    assert _lines(g, lang="zh")[0].endswith(" 1 张: 小王")


def test_a_finished_hand_reads_the_same_from_every_seat():
    g = sk.Game("baibian", hands=["SJ", "3 4", "BJ 5", "6"], leader=0)
    g.apply("SJ")  # seat 0 plays out
    for seat in (None, 0, 1, 2, 3):
        for lang in ("en", "zh"):
            line = _lines(g, seat=seat, lang=lang)[0]
            assert line.endswith(": —"), (seat, lang, line)
            assert "(0)" not in render_game(g, seat=seat, lang=lang)
    assert _lines(g, seat=1)[0] == "  seat 0 [0+2]  0 cards: —"
    assert "out: [0]" in render_game(g)


def test_what_a_seat_sees():
    hands = ["SJ", "3 4", "BJ 5", "6"]
    g = sk.Game("baibian", hands=hands, leader=0)
    seen = _lines(g, seat=1)
    assert seen[0].startswith("→ seat 0")  # the seat to act
    assert [line.rsplit(": ", 1)[1] for line in seen.values()] == ["?", "3 4", "?", "?"]
    assert [line.rsplit(": ", 1)[1] for line in _lines(g).values()] == ["SJ", "3 4", "5 BJ", "6"]
    partner = sk.Game("baibian", hands=hands, leader=0, partner_visible=True)
    assert [line.rsplit(": ", 1)[1] for line in _lines(partner, seat=1).values()] == ["?", "3 4", "?", "6"]


def test_recent_actions_and_the_end_of_a_deal():
    g = sk.Game("baibian", hands=["3 3 4", "5 6", "7 8", "9 T"], leader=0)
    g.apply("4")
    for _ in range(3):
        g.apply(None)
    text = render_game(g, last=2)
    assert "recent: 2: pass; 3: pass" in text and "on the table" not in text  # the trick is over
    while not g.is_over():
        moves = g.legal_moves()
        g.apply(moves[-1] if moves else None)
    text = render_game(g)
    assert re.search(r"^over: (double|single|draw), places \[[0-3, ]+\], scores \[", text, re.M), text
    assert re.search(r"^结束: (双扣|单扣|平扣), 名次 ", render_game(g, lang="zh"), re.M)
    assert not any(line.startswith("→") for line in text.splitlines())  # nobody to act


def test_render_game_is_documented():
    doc = render_game.__doc__
    for word in ("seat", "lang", "last", "partner_visible", "SJ", "1 card", "—", "?", "recent", "over"):
        assert word in doc, word


@pytest.mark.parametrize("chars", range(6, 60))
def test_a_wrapped_title_never_breaks_a_number(chars):
    from shuangkou.runs.arena_report import wrap

    title = "dmc:runs/distill_baibian/model.safetensors+search:64 vs heuristic: WP 0.973, ADP -1.25"
    lines = wrap(title, chars).split("\n")
    assert "0.973" in "\n".join(lines) and "-1.25" in "\n".join(lines)
    assert all(len(line) <= chars for line in lines)
