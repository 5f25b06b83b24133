"""The arena (sk.arena, `shuangkou arena`) and the one agent interface."""

from __future__ import annotations

import csv
import importlib
import json
import math
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import shuangkou as sk
from cli_util import assert_cli_error, run_cli
from shuangkou.runs.arena import EVAL_SETS, bradley_terry, parse_deals

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # agents_for_tests, for "module:callable"
import agents_for_tests  # noqa: E402


def test_contract_of_sk_arena():
    r = sk.arena(variant="baibian", agents=["heuristic", "greedy", "random"], deals=200, threads=2, seed=1)
    assert isinstance(r, dict)
    assert {"variant", "seed", "deals", "pairs", "ratings"} <= set(r)
    assert r["variant"] == "baibian" and r["seed"] == 1 and r["deals"] == 200
    assert [(p["a"], p["b"]) for p in r["pairs"]] == [
        ("heuristic", "greedy"),
        ("heuristic", "random"),
        ("greedy", "random"),
    ]
    for p in r["pairs"]:
        assert p["deals"] == 200
        assert 0 <= p["wp_ci"][0] <= p["wp"] <= p["wp_ci"][1] <= 1
        assert p["adp_ci"][0] <= p["adp"] <= p["adp_ci"][1]
        assert isinstance(p["wp"], float) and isinstance(p["adp"], float)
        diff = r.arrays[(p["a"], p["b"])]["score_diff"]
        assert diff.shape == (200, 2) and diff.dtype == np.int64
        total = diff.sum(axis=1)
        assert p["wp"] == pytest.approx(np.mean(total > 0) + 0.5 * np.mean(total == 0))
        assert p["adp"] == pytest.approx(total.mean() / 2)
    assert set(r["ratings"]) == {"heuristic", "greedy", "random"}
    assert r["ratings"]["heuristic"]["rating"] > r["ratings"]["greedy"]["rating"] > r["ratings"]["random"]["rating"]
    json.dumps(r)  # JSON-ready
    # The strength order the docs report, on these 200 deals.
    wp = {(p["a"], p["b"]): p for p in r["pairs"]}
    assert wp[("heuristic", "random")]["wp"] > 0.9
    assert wp[("heuristic", "greedy")]["wp_ci"][0] > 0.5


def test_duplicate_halves_are_the_same_deals_with_the_seats_exchanged():
    r = sk.arena("jj", agents=["greedy", "random"], deals=50, seed=4)
    h0, h1 = r.arrays[("greedy", "random")]["halves"]
    s0 = sk.selfplay("jj", games=50, agents=["greedy", "random"], seed=4, team_formation="fixed")
    s1 = sk.selfplay("jj", games=50, agents=["random", "greedy"], seed=4, team_formation="fixed")
    for k in ("scores", "places", "outcome", "overtakes"):
        np.testing.assert_array_equal(h0[k], s0.arrays[k])
        np.testing.assert_array_equal(h1[k], s1.arrays[k])
    # The same cards in the same seats: the first lead (by the revealed card) is the same seat.
    np.testing.assert_array_equal(h0["leader"], h1["leader"])


def test_mirror_match_is_exactly_even():
    r = sk.arena("classic", agents=["heuristic", "heuristic"], deals=100, seed=2)
    p = r["pairs"][0]
    assert (p["a"], p["b"]) == ("heuristic", "heuristic#2")
    assert p["wp"] == 0.5 and p["adp"] == 0.0 and p["pairs_won"]["tied"] == 100


def test_results_do_not_depend_on_threads_or_batch():
    agents = ["greedy", agents_for_tests.last_legal, agents_for_tests.LowestId()]
    a = sk.arena("qianbian", agents=agents, deals=60, threads=1, seed=3, batch=7)
    b = sk.arena("qianbian", agents=agents, deals=60, threads=2, seed=3, batch=64)
    assert a["pairs"] == b["pairs"]
    for key in a.arrays:
        np.testing.assert_array_equal(a.arrays[key]["score_diff"], b.arrays[key]["score_diff"])
    assert [p["a"] for p in a["pairs"]] == ["greedy", "greedy", "last_legal"]
    assert agents[2].calls > 0 and agents[2].rules is not None


def test_eval_sets_fix_the_seed():
    n, seed, name = parse_deals("eval-v1:30", None)
    assert (n, seed, name) == (30, EVAL_SETS["eval-v1"][0], "eval-v1")
    r = sk.arena("baibian", agents=["greedy", "random"], deals="eval-v1:30")
    assert r["seed"] == EVAL_SETS["eval-v1"][0] and r["eval_set"] == "eval-v1" and r["deals"] == 30
    again = sk.arena("baibian", agents=["greedy", "random"], deals=30, seed=EVAL_SETS["eval-v1"][0])
    assert again["pairs"] == r["pairs"]
    assert parse_deals("12", None) == (12, 0, None)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"agents": ["heuristic"]}, "at least two agents"),
        ({"agents": ["heuristic", "grandmaster"]}, "unknown agent 'grandmaster'"),
        ({"agents": ["heuristic", "search:0"]}, "search"),
        ({"agents": ["heuristic", 7]}, "agent"),
        ({"agents": ["heuristic", "agents_for_tests:not_callable"]}, "not a callable"),
        ({"agents": ["heuristic", "no_such_module_xyz:f"]}, "cannot import"),
        ({"deals": 0}, "deals"),
        ({"deals": "eval-v2:10"}, "eval-v1"),
        ({"deals": "eval-v1"}, "eval-v1:N"),
        ({"deals": "eval-v1:10", "seed": 5}, "seed"),
        ({"deals": f"eval-v1:{EVAL_SETS['eval-v1'][1] + 1}"}, "holds"),
        ({"team_formation": "by_rule"}, "team_formation fixed"),
        ({"threads": -1}, "threads"),
        ({"variant": "nope"}, "nope"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    args = {"variant": "classic", "agents": ["greedy", "random"], "deals": 10, **kwargs}
    with pytest.raises(ValueError, match=match):
        sk.arena(**args)


def test_agents_accepted_everywhere():
    # module:callable and sk.Agent objects in self-play and as the Gym env's opponents.
    r = sk.selfplay("classic", games=20, agents=["agents_for_tests:last_legal", "agents_for_tests:LowestId"], seed=1)
    assert r["agents"] == ["agents_for_tests:last_legal", "lowest-id", "agents_for_tests:last_legal", "lowest-id"]
    gym = pytest.importorskip("gymnasium")
    env = gym.make("shuangkou/Shuangkou-v0", variant="baibian", opponents=agents_for_tests.LowestId())
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        obs, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.unwrapped._opponent.calls > 0
    env = gym.make("shuangkou/Shuangkou-v0", variant="baibian", opponents="search:8")
    env.reset(seed=1)


def test_bradley_terry_recovers_known_odds():
    # 3:1 odds over many pairs: a rating gap of 400 * log10(3) (the virtual tie shrinks it a hair).
    pairs = [{"a": "x", "b": "y", "deals": 4000, "pairs_won": {"a": 3000, "b": 1000, "tied": 0}}]
    r = bradley_terry(["x", "y"], pairs)
    assert r["x"]["rating"] - r["y"]["rating"] == pytest.approx(400 * math.log10(3), rel=1e-3)
    assert r["x"]["rating"] == pytest.approx(-r["y"]["rating"])
    lo, hi = r["x"]["ci"]
    assert lo < r["x"]["rating"] < hi and hi - lo < 40
    # A clean sweep stays finite.
    sweep = bradley_terry(["x", "y"], [{"a": "x", "b": "y", "deals": 100, "pairs_won": {"a": 100, "b": 0, "tied": 0}}])
    gap = sweep["x"]["rating"] - sweep["y"]["rating"]
    assert math.isfinite(gap) and gap == pytest.approx(400 * math.log10(100.5 / 0.5), rel=1e-3)


def test_cli_writes_every_file(tmp_path):
    out = tmp_path / "arena1"
    env = dict(os.environ, PYTHONPATH=str(HERE))
    import subprocess

    from cli_util import cli_command

    p = subprocess.run(
        [*cli_command(), "arena", "--variant", "baibian", "--agents", "heuristic,greedy,agents_for_tests:last_legal",
         "--deals", "60", "--threads", "2", "--seed", "1", "--out", str(out), "--quiet"],
        capture_output=True, env=env, timeout=300,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr.decode()
    results = json.loads((out / "results.json").read_text())
    assert {"variant", "seed", "deals", "pairs", "ratings"} <= set(results)
    assert results["variant"] == "baibian" and results["seed"] == 1 and results["deals"] == 60
    for pair in results["pairs"]:
        assert {"a", "b", "deals", "wp", "wp_ci", "adp", "adp_ci"} <= set(pair)
    rows = list(csv.DictReader((out / "pairs.csv").open()))
    assert [(r["a"], r["b"]) for r in rows] == [(q["a"], q["b"]) for q in results["pairs"]]
    assert float(rows[0]["wp"]) == pytest.approx(results["pairs"][0]["wp"])
    for png in ("winrate.png", "score_diff.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = (out / "report.md").read_text()
    assert "heuristic" in report and "WP" in report and "![win rates](winrate.png)" in report
    assert "| heuristic |" in p.stdout.decode()
    # The same run from the API gives the same figures.
    api = sk.arena("baibian", agents=["heuristic", "greedy", agents_for_tests.last_legal], deals=60, threads=2, seed=1)
    assert [q["wp"] for q in api["pairs"]] == [q["wp"] for q in results["pairs"]]


@pytest.mark.parametrize(
    "args, needles",
    [
        (["--agents", "heuristic"], ["two or more"]),
        (["--agents", "heuristic,grandmaster"], ["grandmaster"]),
        (["--deals", "lots"], ["deals"]),
        (["--deals", "eval-v1:10", "--seed", "3"], ["seed"]),
        (["--variant", "nope"], ["nope"]),
        (["--set", "team_formation=by_rule"], ["team_formation"]),
    ],
)
def test_cli_errors(args, needles):
    assert_cli_error(
        run_cli("arena", "--deals", "5", *args) if "--deals" not in args else run_cli("arena", *args), *needles
    )


def test_cli_help_teaches():
    p = run_cli("arena", "--help")
    text = p.stdout.decode()
    assert p.returncode == 0
    for needle in ("duplicate", "WP", "ADP", "eval-v1", "module:callable", "search:ROLLOUTS", "results.json"):
        assert needle in text


# ----------------------------------------------------------------- red-team findings
def test_a_single_pair_has_no_interval_and_strict_json():
    r = sk.arena("classic", agents=["greedy", "random"], deals=1, seed=3)
    p = r["pairs"][0]
    assert p["wp_ci"] is None and p["adp_ci"] is None
    json.dumps(r, allow_nan=False)


def test_intervals_never_collapse_on_a_sweep_and_use_t_for_few_pairs():
    from shuangkou.runs.arena import t975, wilson_interval

    r = sk.arena("baibian", agents=["heuristic", "random"], deals=150, seed=7)
    p = r["pairs"][0]
    assert p["wp"] == 1.0 and p["wp_ci"][0] < 0.99 and p["wp_ci"][1] == 1.0
    lo, hi = wilson_interval(0.5, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert t975(2) == pytest.approx(4.303) and t975(100) == pytest.approx(1.984, abs=1e-3)
    r = sk.arena("baibian", agents=["greedy", "random"], deals=3, seed=7)
    total = r.arrays[("greedy", "random")]["score_diff"].sum(axis=1) / 2
    half = t975(2) * total.std(ddof=1) / math.sqrt(3)
    assert r["pairs"][0]["adp_ci"] == pytest.approx([total.mean() - half, total.mean() + half])


@pytest.mark.parametrize(
    "agents, match",
    [
        (agents_for_tests.last_legal, "a list of two or more agents"),
        (agents_for_tests.LowestId(), "a list of two or more agents"),
        ({"greedy": 1, "random": 2}, "a list of two or more agents"),
        (None, "a list of two or more agents"),
        (["greedy", agents_for_tests.LowestId], r"is a class: give an instance, LowestId\(\)"),
        (["greedy", "agents_for_tests:NeedsArgument"], "could not be created without arguments"),
        (["greedy", ":greedy"], "needs both a module and a name"),
        (["greedy", "greedy,,random"], "unknown agent"),
    ],
)
def test_bad_agent_lists(agents, match):
    with pytest.raises(ValueError, match=match):
        sk.arena("classic", agents=agents, deals=2)


def test_agents_that_misbehave_are_named():
    with pytest.raises(ValueError, match=r"agent always_pass \(seats 1, 3\) chose action 0, which is not legal"):
        sk.arena("classic", agents=["greedy", agents_for_tests.always_pass], deals=5, seed=1)
    with pytest.raises(sk.agents.AgentError, match="lowest-id|Raises.*the agent broke") as e:
        sk.arena("classic", agents=["greedy", agents_for_tests.Raises()], deals=5, seed=1)
    assert isinstance(e.value.__cause__, RuntimeError)

    class Named(sk.Agent):
        name = 5

    with pytest.raises(ValueError, match="name must be a non-empty string"):
        sk.arena("classic", agents=["greedy", Named()], deals=2)


def test_a_python_agent_named_like_a_bot_does_not_take_the_bots_label():
    class Greedy(agents_for_tests.LowestId):
        name = "greedy"

    r = sk.arena("classic", agents=[Greedy(), "greedy"], deals=4, seed=1)
    assert r["agents"] == ["greedy#2", "greedy"]


@pytest.mark.parametrize("deals", ["²", "eval-v1:²", "3.5", -2, True, 2.0])
def test_deal_counts_are_plain_integers(deals):
    with pytest.raises((ValueError, TypeError), match="deals"):
        sk.arena("classic", agents=["greedy", "random"], deals=deals)


def test_bad_batch_is_refused_even_for_built_in_agents():
    for batch in (-5, 0, "x", None):
        with pytest.raises((ValueError, TypeError), match="batch"):
            sk.arena("classic", agents=["greedy", "random"], deals=2, batch=batch)
        with pytest.raises((ValueError, TypeError), match="batch"):
            sk.selfplay("classic", games=2, batch=batch)


def test_threads_recorded_as_used():
    r = sk.arena("classic", agents=["greedy", "random"], deals=2)
    assert r["threads"] == os.cpu_count()


def test_cli_agent_problems_are_one_line(tmp_path):
    import subprocess

    from cli_util import cli_command

    (tmp_path / "mybot.py").write_text((HERE / "agents_for_tests.py").read_text())

    def cli(*args):
        return subprocess.run([*cli_command(), "arena", "--quiet", "--deals", "3", *args], capture_output=True,
                              cwd=tmp_path, timeout=120)  # fmt: skip

    ok = cli("--agents", "greedy,mybot:last_legal")  # a module of the current folder
    assert ok.returncode == 0, ok.stderr.decode()
    assert_cli_error(cli("--agents", "greedy,mybot:NeedsArgument"), "NeedsArgument", "without arguments")
    p = cli("--agents", "greedy,mybot:Raises")
    assert p.returncode == 1 and "Traceback" not in p.stderr.decode()
    assert "the agent broke" in p.stderr.decode() and p.stderr.decode().count("\n") == 1
    assert_cli_error(cli("--agents", "greedy,mybot:always_pass"), "always_pass", "not legal")
    assert_cli_error(cli("--agents", "greedy,,random"), "empty entry")
    out = tmp_path / "never"
    assert_cli_error(cli("--agents", "greedy,random", "--threads", "-1", "--out", str(out)), "threads")
    assert not out.exists()


def test_cli_help_is_clean():
    text = run_cli("arena", "--help").stdout.decode()
    flat = " ".join(text.split())
    assert "%%" not in text and "95% Wilson" in flat
    assert "which fixes its own)" in flat and "which fixes its own) (default" not in flat


# ----------------------------------------------------------------- memory of every pair together


memory = importlib.import_module("shuangkou.util.resources")


def test_the_arena_checks_the_memory_of_all_pairs(monkeypatch):
    deals = 1000
    one_pair = 2 * deals * memory.BYTES_PER_DEAL
    # One pair fits easily; the six pairs of four agents together do not.
    monkeypatch.setattr(memory, "available_memory", lambda: int(3 * one_pair / 0.8))
    with pytest.raises(ValueError, match="6 pairs"):
        sk.arena("classic", agents=["random", "greedy", "simple", "heuristic"], deals=deals)
    sk.arena("classic", agents=["random", "greedy"], deals=10)  # (one pair still runs)


def test_cli_arena_checks_memory_before_making_out(tmp_path):
    out = tmp_path / "never"
    code = textwrap.dedent(
        f"""
        import importlib, sys
        s = importlib.import_module("shuangkou.util.resources")
        s.available_memory = lambda: 10**6
        from shuangkou.cli import main
        sys.exit(main(["arena", "--agents", "random,greedy,simple", "--deals", "100000", "--out", {str(out)!r}]))
        """
    )
    import sys

    p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert_cli_error(p, "3 pairs", "memory")
    assert not out.exists()


# ----------------------------------------------------------------- labels in the report, a model file read once


def test_labels_with_dollars_and_bars_do_not_break_the_report(tmp_path):
    """A '$' in a label (an agent name, a dmc:PATH) failed the whole run at plot time in
    matplotlib's mathtext; a '|' opened a column in the markdown tables."""
    from shuangkou.runs.arena_report import markdown, write_report

    class Named(sk.Agent):
        name = r"$\frac{$ a|b"

        def act(self, d):
            return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)

    r = sk.arena("classic", agents=[Named(), "random"], deals=4, seed=1)
    paths = write_report(r, tmp_path)
    assert all(p.stat().st_size > 0 for p in paths)
    tables: list[list[int]] = [[]]
    for line in markdown(r).splitlines():
        if line.startswith("|"):
            tables[-1].append(len(re.findall(r"(?<!\\)\|", line)))  # columns: the unescaped bars
        elif tables[-1]:
            tables.append([])
    assert len([t for t in tables if t]) == 3
    assert all(len(set(t)) == 1 for t in tables if t), tables
    assert r"a\|b" in markdown(r)


def test_a_model_file_rewritten_during_the_arena_does_not_mix_networks(tmp_path):
    """dmc:PATH was read again for every half of every pair: a training run rewriting the
    file it evaluates mixed two networks under one label."""
    import shutil

    torch = pytest.importorskip("torch")
    from shuangkou.dmc.net import QNetwork

    path = tmp_path / "m.safetensors"
    torch.manual_seed(0)
    QNetwork(sk._core.observation_size(), sk._core.MOVE_FEATURE_SIZE, (8,)).save(path)
    other = tmp_path / "other.safetensors"
    torch.manual_seed(1)
    QNetwork(sk._core.observation_size(), sk._core.MOVE_FEATURE_SIZE, (8,)).save(other)
    agents = [f"dmc:{path}", "heuristic"]
    steady = sk.arena("classic", agents=agents, deals=16, seed=1)

    def rewrite(done, total):
        if done >= total // 2:
            shutil.copyfile(other, path)

    changed = sk.arena("classic", agents=agents, deals=16, seed=1, batch=4, progress=rewrite)
    assert changed["pairs"][0]["wp"] == steady["pairs"][0]["wp"]
    assert changed["pairs"][0]["adp"] == steady["pairs"][0]["adp"]
