"""The arena (sk.arena, `shuangkou arena`) and the one agent interface."""

from __future__ import annotations

import csv
import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import shuangkou as sk
from cli_util import assert_cli_error, run_cli
from shuangkou.arena import EVAL_SETS, bradley_terry, parse_deals

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
    assert r["agents"] == ["last_legal", "lowest-id", "last_legal", "lowest-id"]
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
