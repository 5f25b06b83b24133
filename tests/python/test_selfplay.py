"""Batch self-play from Python and the `shuangkou selfplay` command."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys

import numpy as np
import pytest
import shuangkou as sk
from snippet_util import snippet_outcome


def test_results_do_not_depend_on_threads():
    one = sk.selfplay(variant="qianbian", games=3000, agents="random,heuristic", threads=1, seed=4)
    two = sk.selfplay(variant="qianbian", games=3000, agents="random,heuristic", threads=2, seed=4)
    for key in one.arrays:
        np.testing.assert_array_equal(one.arrays[key], two.arrays[key], err_msg=key)
    assert one["outcomes"] == two["outcomes"]
    other = sk.selfplay(variant="qianbian", games=3000, agents="random,heuristic", threads=2, seed=5)
    assert not np.array_equal(one.arrays["scores"], other.arrays["scores"])


@pytest.mark.parametrize("variant", sk.preset_names())
def test_summary_agrees_with_the_arrays(variant):
    r = sk.selfplay(variant=variant, games=2000, agents=["random", "heuristic", "random", "heuristic"], seed=1)
    a = r.arrays
    assert a["scores"].shape == (2000, 4) and a["places"].shape == (2000, 4)
    assert r["games"] == 2000 and r["agents"] == ["random", "heuristic", "random", "heuristic"]
    assert sum(r["outcomes"].values()) == pytest.approx(1.0)
    assert r["outcomes"]["double"] == pytest.approx(np.mean(a["outcome"] == 0))
    # Every row of places is a permutation of the seats; outcome follows from it.
    assert (np.sort(a["places"], axis=1) == np.arange(4)).all()
    first = a["places"][:, 0] % 2
    double = a["places"][:, 1] % 2 == first
    np.testing.assert_array_equal(double, a["outcome"] == 0)
    heur = r["scores"]["by_agent"]["heuristic"]
    assert heur["seats"] == [1, 3]
    assert heur["mean"] == pytest.approx(a["scores"][:, [1, 3]].mean())
    assert sum(heur["histogram"].values()) == 4000
    assert r["teams"]["1_3"]["first_finisher_share"] > 0.8  # the heuristic beats random
    assert r["bombs"]["per_deal"] == pytest.approx(a["bombs"].sum() / 2000)
    assert sum(r["bombs"]["by_stars"].values()) == a["bombs"].sum()
    assert r["length"]["plays"]["mean"] < r["length"]["actions"]["mean"]
    if variant in ("classic", "jj"):  # zero-sum variants
        assert (a["scores"].sum(axis=1) == 0).all()
    json.dumps(r)  # the summary is JSON-ready


def test_deals_match_games_replayed_from_replays(tmp_path):
    path = tmp_path / "r.jsonl.gz"
    r = sk.selfplay(variant="jj", games=300, agents="heuristic,random", seed=2, replays=50, replay_path=path)
    with gzip.open(path, "rt") as f:
        lines = f.read().splitlines()
    assert len(lines) == 50
    for i, line in enumerate(lines):
        g = sk.Game.from_json(line)
        assert g.is_over()
        assert g.scores() == r.arrays["scores"][i].tolist()
        assert g.finish_order() == r.arrays["places"][i].tolist()
        assert len(g.history()) == r.arrays["actions"][i]


def test_callable_agents_are_called_in_batches():
    calls = []

    def first_non_pass(obs, mask, seats):
        calls.append(len(seats))
        assert obs.shape == (len(seats), sk._core.observation_size())
        assert set(seats.tolist()) <= {0, 2}
        m = mask.copy()
        m[:, 0] = 0
        return np.where(m.any(axis=1), m.argmax(axis=1), 0)

    r = sk.selfplay(variant="baibian", games=500, agents=[first_non_pass, "random"], seed=3, batch=64)
    assert r["games"] == 500
    assert r["agents"] == ["first_non_pass", "random", "first_non_pass", "random"]
    assert max(calls) > 1  # batched
    assert r["teams"]["0_2"]["first_finisher_share"] > 0.5  # never passing beats random


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown agent 'smart'"):
        sk.selfplay(games=10, agents="smart")
    with pytest.raises(ValueError, match="1, 2"):
        sk.selfplay(games=10, agents="random,random,random")
    with pytest.raises(ValueError, match="games"):
        sk.selfplay(games=0)
    with pytest.raises(ValueError, match="threads"):
        sk.selfplay(games=10, threads=-1)
    with pytest.raises(ValueError, match="replay_path"):
        sk.selfplay(games=10, replays=5)
    with pytest.raises(ValueError, match="max_bomb"):
        sk.selfplay(games=10, max_bomb=99)
    with pytest.raises(ValueError, match="unknown variant preset"):
        sk.selfplay(variant="nope", games=10)


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "shuangkou", *args], capture_output=True, text=True, timeout=300)


def test_cli_selfplay_writes_summary_and_replays(tmp_path):
    out = tmp_path / "run"
    p = run_cli(
        "selfplay",
        "--variant",
        "classic",
        "--games",
        "2000",
        "--agents",
        "heuristic,random",
        "--seed",
        "3",
        "--out",
        str(out),
        "--replays",
        "10",
        "--quiet",
        "--set",
        "max_bomb=10",
    )
    assert p.returncode == 0, p.stderr
    assert "2,000 deals of classic" in p.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 2000 and summary["params"]["max_bomb"] == "10"
    direct = sk.selfplay(variant="classic", games=2000, agents="heuristic,random", seed=3, max_bomb=10)
    assert summary["outcomes"] == direct["outcomes"]
    deals = np.load(out / "deals.npz")
    np.testing.assert_array_equal(deals["scores"], direct.arrays["scores"])
    with gzip.open(out / "replays.jsonl.gz", "rt") as f:
        assert len(f.read().splitlines()) == 10


def test_cli_errors_and_help():
    p = run_cli("selfplay", "--games", "10", "--agents", "clever", "--quiet")
    assert p.returncode == 2 and "unknown agent 'clever'" in p.stderr
    p = run_cli("selfplay", "--games", "10", "--set", "max_bomb", "--quiet")
    assert p.returncode == 2 and "KEY=VALUE" in p.stderr
    p = run_cli("selfplay", "--help")
    assert p.returncode == 0 and "--replays" in p.stdout and "--agents" in p.stdout
    p = run_cli("moves", "--hand", "5 5 X")
    assert p.returncode == 2 and "'X'" in p.stderr


def test_callables_give_the_same_results_for_any_batch_and_thread_count():
    def highest_legal(obs, mask, seats):  # decides from its inputs alone
        return (mask * np.arange(mask.shape[1])).argmax(axis=1)

    runs = [
        sk.selfplay(variant="qianbian", agents=[highest_legal, "heuristic"], games=150, seed=9, batch=b, threads=t)
        for b, t in ((1, 1), (5, 2), (64, 1), (1024, 2))
    ]
    for r in runs[1:]:
        for k in ("scores", "places", "outcome", "bombs", "actions"):
            np.testing.assert_array_equal(r.arrays[k], runs[0].arrays[k], err_msg=k)


# ---------------------------------------------------------------------------- arguments refused before the run


def test_selfplay_with_200000_threads_raises_value_error_naming_the_limit():
    """3: sk.selfplay(threads=200000) segfaulted. Fixed: ValueError naming the
    thread limit."""
    out = snippet_outcome(
        """
        import shuangkou as sk
        _report(lambda: sk.selfplay(games=100, threads=200000))
        """
    )
    assert out["type"] == "ValueError", out
    assert "thread" in out["message"].lower() and re.search(r"\d", out["message"]), out


@pytest.mark.parametrize("progress", [5, "x"])
def test_a_progress_that_is_not_callable_is_refused_before_anything_runs(progress):
    with pytest.raises(ValueError, match="progress"):
        sk.selfplay("classic", games=10, progress=progress)
    with pytest.raises(ValueError, match="progress"):
        sk.arena("classic", agents=["random", "greedy"], deals=2, progress=progress)


def test_progress_returning_numpy_false_stops():
    calls = []

    def stop(done):
        calls.append(done)
        return np.False_

    r = sk.selfplay("classic", games=200_000, agents="random", progress=stop, threads=1)
    assert r["games"] < 200_000 and len(calls) == 1


def test_selfplay_refuses_what_it_would_ignore(tmp_path):
    with pytest.raises(ValueError, match="agents"):
        sk.selfplay("classic", games=2, agents={"random": 1, "greedy": 2})
    with pytest.raises(ValueError, match="replays is 0"):
        sk.selfplay("classic", games=2, replay_path=tmp_path / "r.jsonl.gz")
    with pytest.raises(ValueError, match="replay_path"):
        sk.selfplay("classic", games=2, replays=1, replay_path=1)


# ---------------------------------------------------------------------------- replays that cannot be written


def test_selfplay_replays_to_dev_full_raise_os_error_naming_it():
    """Replays to a full device must raise OSError naming the file."""
    with pytest.raises(OSError) as exc_info:
        sk.selfplay(games=10, replays="all", replay_path="/dev/full", threads=1)
    assert "/dev/full" in str(exc_info.value)
