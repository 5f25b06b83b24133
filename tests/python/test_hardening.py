"""Hardening: inputs and call patterns that crashed, hung, leaked a wrong exception
type or were silently accepted.

Each test states one finding. A test fails while its finding is open and passes once
it is fixed as described in the test's docstring. Whatever could crash the
interpreter (a segfault, an abort) runs in a subprocess, so a crash fails that test
instead of killing the pytest run.

Conventions checked throughout: bad input raises ValueError (not RuntimeError,
OverflowError, SystemError or TypeError from the bindings) whose message names the
offending value, option or path, and a failed call changes no state (compared with
``to_json()``, observations or a twin object that never saw the bad call). The
command line fails with a non-zero exit code and one line on stderr starting with
"error:" (or argparse's usage and error lines), never a traceback.
"""

from __future__ import annotations

import json
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

gymnasium = pytest.importorskip("gymnasium")
from shuangkou.envs.gym_env import ShuangkouEnv  # noqa: E402

# ---------------------------------------------------------------------------- helpers


def run_snippet(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs Python code in a fresh interpreter (a crash there fails only the caller)."""
    try:
        p = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"subprocess still running after {timeout} s")
    assert p.returncode >= 0, f"the subprocess crashed (signal {-p.returncode}); stderr: {p.stderr[-3000:]}"
    return p


# A subprocess snippet's result: the last stdout line, JSON {"type": ..., "message": ...}.
_REPORT = """
import json as _json
def _report(fn):
    try:
        fn()
    except BaseException as e:  # noqa: B902
        print(_json.dumps({"type": type(e).__name__, "message": str(e)[:5000]}))
    else:
        print(_json.dumps({"type": None, "message": ""}))
"""


def snippet_outcome(body: str, timeout: float = 120) -> dict:
    p = run_snippet(_REPORT + textwrap.dedent(body), timeout=timeout)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def play_out(g: sk.Game) -> None:
    while not g.is_over():
        g.apply(g.legal_moves()[0] if not g.can_pass() else "pass")


# ---------------------------------------------------------------------------- 1. threads on one VectorEnv

_CONCURRENT_STEP = r"""
import re
import sys
import threading

import numpy as np
import shuangkou as sk

REPS, THREADS, STEPS, N = 5, 2, 200, 256
STALE = re.compile(r"legal|pass|lead")  # the other thread moved first: the chosen ids went stale
problems = []


def try_step(env, actions):
    try:
        env.step(actions)
        return True
    except ValueError as e:
        if not STALE.search(str(e)):
            raise
        return False


def snapshot(env):
    c = env._core
    return (
        c.obs.copy(), c.mask.copy(), c.current_player.copy(), c.episodes.copy(), c.final_scores.copy(),
        np.array(c.legal_ids).copy(), np.array(c.legal_offsets).copy(),
        [c.state_json(j) for j in range(env.num_envs)],
    )


def same(a, b):
    return all(
        (x == y) if isinstance(x, list) else np.array_equal(x, y) for x, y in zip(a, b)
    )


total_ok = 0
for rep in range(REPS):
    env = sk.VectorEnv(num_envs=N, variant="baibian", seed=rep)
    _, info = env.reset()
    mask_view = info["action_mask"]  # a view of the env's buffer: always the latest mask
    done = [[] for _ in range(THREADS)]
    barrier = threading.Barrier(THREADS)

    def worker(k):
        rng = np.random.default_rng(1000 * rep + k)
        barrier.wait()
        for _ in range(STEPS):
            mask = mask_view.copy()
            actions = (rng.random(mask.shape) * mask).argmax(axis=1).astype(np.int64)
            try:
                env.step(actions)
            except ValueError as e:
                if not STALE.search(str(e)):
                    problems.append(f"rep {rep} thread {k}: ValueError {e}")
                continue
            except RuntimeError as e:  # allowed only as "in use by another thread"
                if "thread" not in str(e).lower():
                    problems.append(f"rep {rep} thread {k}: RuntimeError {e}")
                continue
            except BaseException as e:  # noqa: B902
                problems.append(f"rep {rep} thread {k}: {type(e).__name__} {e}")
                continue
            done[k].append(actions)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total_ok += sum(len(d) for d in done)

    # Internal consistency: mask rows and ragged legal ids agree, for every env.
    c = env._core
    off = np.array(c.legal_offsets)
    for j in range(N):
        ids = sorted(np.array(c.legal_ids)[off[j] : off[j + 1]].tolist())
        if ids != np.flatnonzero(c.mask[j]).tolist():
            problems.append(f"rep {rep} env {j}: mask and legal ids disagree after the threads")
            break
        if c.state_json(j)["current_player"] != int(c.current_player[j]):
            problems.append(f"rep {rep} env {j}: current_player disagrees with the env state")
            break

    # The successful steps, each thread's in its own order, replay serially to the same state.
    twin = sk.VectorEnv(num_envs=N, variant="baibian", seed=rep)
    twin.reset()
    pos = [0] * THREADS
    while any(pos[k] < len(done[k]) for k in range(THREADS)):
        for k in range(THREADS):
            if pos[k] < len(done[k]) and try_step(twin, done[k][pos[k]]):
                pos[k] += 1
                break
        else:
            problems.append(f"rep {rep}: the successful concurrent steps do not replay serially")
            break
    if not same(snapshot(env), snapshot(twin)):
        problems.append(f"rep {rep}: the env's state differs from the serial replay of its successful steps")

    # And both step on alike.
    rng = np.random.default_rng(rep)
    try:
        for _ in range(20):
            m = env._core.mask.copy()
            a = (rng.random(m.shape) * m).argmax(axis=1).astype(np.int64)
            env.step(a)
            twin.step(a)
    except Exception as e:  # a legal action (by the env's own mask) refused: a corrupted env
        problems.append(f"rep {rep}: stepping on after the threads failed: {type(e).__name__}: {e}")
    else:
        if not same(snapshot(env), snapshot(twin)):
            problems.append(f"rep {rep}: the env steps on differently from its serial replay")

if total_ok == 0:
    problems.append("no concurrent step succeeded at all")
print("\n".join(problems) if problems else "OK")
sys.exit(1 if problems else 0)
"""


def test_concurrent_step_on_one_vector_env_never_crashes_and_stays_consistent():
    """Finding 1: two threads stepping one VectorEnv (its step releases the GIL) raced in
    C++ and crashed (segfault, abort, std::terminate). Fixed: a concurrent call either
    raises RuntimeError saying the env is in use by another thread, or is serialised; the
    env's state is always that of its successful steps applied one after another."""
    p = run_snippet(_CONCURRENT_STEP, timeout=300)
    assert p.returncode == 0 and p.stdout.strip().endswith("OK"), p.stdout[-3000:] + p.stderr[-3000:]


# ---------------------------------------------------------------------------- 2. from_json: deep nesting, huge values

_DEEP = "[" * 100_000 + "]" * 100_000


def _record_with(edit) -> str:
    rec = json.loads(sk.Game("baibian", seed=3).to_json())
    edit(rec)
    return json.dumps(rec)


@pytest.mark.parametrize(
    "where",
    ["scores", "breakdown", "variant.max_bomb", "variant.tianwang", "top level"],
)
def test_from_json_of_a_deeply_nested_record_raises_value_error(where):
    """Finding 2: a record with a value nested 100,000 deep (under a known key)
    overflowed the stack (segfault). Fixed: ValueError."""
    body = f"""
    import json
    import shuangkou as sk
    where = {where!r}
    deep = "[" * 100000 + "]" * 100000
    rec = json.loads(sk.Game("baibian", seed=3).to_json())
    if where == "top level":
        text = deep
    else:
        if where.startswith("variant."):
            rec["variant"][where.split(".")[1]] = "@@DEEP@@"
        else:
            rec[where] = "@@DEEP@@"
        text = json.dumps(rec).replace('"@@DEEP@@"', deep)
    _report(lambda: sk.Game.from_json(text))
    """
    out = snippet_outcome(body)
    assert out["type"] == "ValueError", out


def _set_scores(r, v):
    r["scores"] = v


def _set_hand0(r, v):
    r["hands"][0] = v


def _set_tianwang(r, v):
    r["variant"]["tianwang"] = v


def _set_new_key(r, v):
    r[v] = 1


@pytest.mark.parametrize(
    "edit", [_set_scores, _set_hand0, _set_tianwang, _set_new_key], ids=["scores", "hand", "tianwang", "key"]
)
def test_from_json_with_a_100_mb_string_raises_a_short_value_error(edit):
    """Finding 2: a record holding a 100 MB string was refused with a 100 MB message
    (the value quoted whole). Fixed: ValueError with a message under 2,000 characters."""
    text = _record_with(lambda r: edit(r, "x" * 100_000_000))
    with pytest.raises(ValueError) as exc_info:
        sk.Game.from_json(text)
    assert len(str(exc_info.value)) < 2000, f"message of {len(str(exc_info.value)):,} characters"


# ---------------------------------------------------------------------------- 3. thread counts


def test_selfplay_with_200000_threads_raises_value_error_naming_the_limit():
    """Finding 3: sk.selfplay(threads=200000) segfaulted. Fixed: ValueError naming the
    thread limit."""
    out = snippet_outcome(
        """
        import shuangkou as sk
        _report(lambda: sk.selfplay(games=100, threads=200000))
        """
    )
    assert out["type"] == "ValueError", out
    assert "thread" in out["message"].lower() and re.search(r"\d", out["message"]), out


def test_cli_selfplay_with_200000_threads_fails_cleanly():
    """Finding 3: `shuangkou selfplay --threads 200000` segfaulted. Fixed: a one-line error."""
    p = run_cli("selfplay", "--games", "100", "--threads", "200000", "--quiet", timeout=60)
    err = assert_cli_error(p)
    assert "thread" in err.lower(), err


# ---------------------------------------------------------------------------- 4. replays that cannot be written


def test_selfplay_replays_to_dev_full_raise_os_error_naming_it():
    """Finding 4: replays to a full device must raise OSError naming the file."""
    with pytest.raises(OSError) as exc_info:
        sk.selfplay(games=10, replays="all", replay_path="/dev/full", threads=1)
    assert "/dev/full" in str(exc_info.value)


@pytest.fixture
def regular_file(tmp_path: Path) -> Path:
    f = tmp_path / "a_file"
    f.write_text("not a folder\n")
    return f


@pytest.mark.parametrize("replays", [["--replays", "all"], []], ids=["replays", "no-replays"])
@pytest.mark.parametrize("where", ["under-a-file", "proc"])
def test_cli_selfplay_unwritable_out_fails_before_playing(regular_file, where, replays):
    """Finding 4: `--out DIR` where nothing can be written played every deal first and
    failed only when writing the summary (with /proc: 300,000 deals, then an error).
    Fixed: it fails before playing (here within 10 s although the deals would take far
    longer), non-zero exit, one line on stderr naming the path, no summary printed."""
    out = str(regular_file / "sub") if where == "under-a-file" else "/proc"
    p = run_cli("selfplay", "--games", "3000000", "--quiet", "--out", out, *replays, timeout=10)
    assert_cli_error(p, out)
    assert b"deals of" not in p.stdout, "it played before failing"


# ---------------------------------------------------------------------------- 5. gym: a failed reset changes nothing


def _gym_pair(**kw) -> tuple[ShuangkouEnv, ShuangkouEnv]:
    return ShuangkouEnv("baibian", **kw), ShuangkouEnv("baibian", **kw)


def _assert_same_step(r1, r2) -> None:
    o1, rew1, t1, tr1, i1 = r1
    o2, rew2, t2, tr2, i2 = r2
    np.testing.assert_array_equal(o1, o2)
    assert (rew1, t1, tr1) == (rew2, t2, tr2)
    np.testing.assert_array_equal(i1["action_mask"], i2["action_mask"])
    assert i1["current_player"] == i2["current_player"]
    assert i1["deal_seed"] == i2["deal_seed"]


@pytest.mark.parametrize("bad_seed", [2**64, 2**70])
def test_gym_failed_reset_leaves_the_env_exactly_as_before(bad_seed):
    """Finding 5: reset(seed=2**64) raised ValueError but had already replaced the env's
    seed (and its np_random), so the next step() failed with the same error. Fixed: the
    env is exactly as before the failed reset, as its twin that never saw it shows."""
    env, twin = _gym_pair(opponents="heuristic")
    _, info = env.reset(seed=11)
    twin.reset(seed=11)
    with pytest.raises(ValueError, match=str(bad_seed) + r"|2\*\*64"):
        env.reset(seed=bad_seed)
    a = first_legal(info["action_mask"])
    _assert_same_step(env.step(a), twin.step(a))
    # np_random untouched too: a reset mid-deal deals the same fresh deal in both.
    o1, i1 = env.reset()
    o2, i2 = twin.reset()
    np.testing.assert_array_equal(o1, o2)
    assert i1["deal_seed"] == i2["deal_seed"]
    a = first_legal(i1["action_mask"])
    _assert_same_step(env.step(a), twin.step(a))


def test_gym_failed_first_reset_leaves_the_env_unstarted():
    env, twin = _gym_pair(opponents="random")
    with pytest.raises(ValueError):
        env.reset(seed=2**64)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    o1, i1 = env.reset(seed=5)
    o2, i2 = twin.reset(seed=5)
    np.testing.assert_array_equal(o1, o2)
    a = first_legal(i1["action_mask"])
    _assert_same_step(env.step(a), twin.step(a))


# ---------------------------------------------------------------------------- 6. gym: an opponent that raises


def _last_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


def test_gym_after_a_raising_opponent_the_learner_action_never_goes_to_another_seat():
    """Finding 6: when a callable opponent raised inside step(), the core was left with
    the opponent's seat to act, and the next step() applied the learner's action to the
    opponent's seat. Fixed: the next step() raises an error saying to call reset(), or
    the failed step is undone and the env resumes with the learner's seat to act (then
    it steps exactly as a twin whose opponent never raised)."""
    armed = {"on": False}

    def flaky(obs, mask, seat):
        if armed["on"]:
            armed["on"] = False
            raise KeyError("opponent failed")
        return np.array([_last_legal(mask[0])])

    env = ShuangkouEnv("baibian", opponents=flaky, seat=0)
    twin = ShuangkouEnv("baibian", opponents=lambda obs, mask, seats: np.array([_last_legal(mask[0])]), seat=0)
    _, info = env.reset(seed=4)
    _, tinfo = twin.reset(seed=4)
    np.testing.assert_array_equal(info["action_mask"], tinfo["action_mask"])
    a = first_legal(info["action_mask"])
    armed["on"] = True
    with pytest.raises(sk.agents.AgentError, match="opponent failed") as raised:
        env.step(a)
    assert isinstance(raised.value.__cause__, KeyError)
    try:
        result = env.step(a)
    except (RuntimeError, ValueError) as e:
        assert "reset" in str(e), f"the error does not say to call reset(): {e}"
        with pytest.raises((RuntimeError, ValueError), match="reset"):
            env.step(a)  # still refused until reset()
        o1, i1 = env.reset(seed=4)
        o2, i2 = twin.reset(seed=4)
        np.testing.assert_array_equal(o1, o2)
        _assert_same_step(env.step(a), twin.step(a))
    else:
        assert result[4]["current_player"] in (0,)
        _assert_same_step(result, twin.step(a))


# ---------------------------------------------------------------------------- 7. play_to_action

_LACKING = [
    ("qianbian_collect", "3 3 3 3 3 3 3 3 SJ SJ", "classic"),  # a 10-card bomb; classic stops at 8
    ("qianbian_collect", "3 3 3 3 3 3 3 3 SJ SJ BJ BJ", "classic"),  # a 12-card bomb
    ("qianbian_collect", "3 3 3 3 3 3 3 3 SJ SJ", "baibian"),
    ("qianbian_collect", "3 3 3 3 3 3 3 3 SJ SJ BJ BJ", "jj"),
    ("qianbian", "3 3 3 3 4 4 4 4 5 5 5 5", "classic"),  # a chain bomb; classic has none
    ("qianbian", "3 3 3 3 4 4 4 4 4 5 5 5 5", "baibian"),  # an uneven chain bomb; baibian has none
    ("baibian", "SJ SJ BJ", "classic"),  # three kings; classic has none
]


@pytest.mark.parametrize("source,cards,target", _LACKING, ids=[f"{t}-{c}" for s, c, t in _LACKING])
def test_play_to_action_refuses_a_play_the_catalogue_lacks(source, cards, target):
    """Finding 7: play_to_action gave a play the target catalogue lacks the id of some
    other pattern (a 10-card bomb of 3s -> a 5-card bomb of 4s, a chain bomb -> 0, the
    pass, three kings -> heavenly kings). Fixed: ValueError."""
    plays = sk.Rules(source).readings(cards)
    assert plays, f"{cards!r} reads as nothing in {source}"
    play = plays[-1]
    with pytest.raises(ValueError):
        got = sk.play_to_action(target, play)
        pattern = sk.action_to_play(target, got)
        pytest.fail(f"{play!r} -> id {got} = {pattern!r}")


@pytest.mark.parametrize(
    "source,cards,target",
    [
        ("qianbian_collect", "3 3 3 3 3 3 3 3", "classic"),
        ("qianbian_collect", "3 3 3 3 3 3 3 3 SJ SJ", "qianbian_collect"),
        ("qianbian", "3 3 3 3 4 4 4 4 5 5 5 5", "baibian"),
        ("baibian", "5 6 7 8 BJ", "classic"),
        ("classic", "SJ SJ BJ BJ", "baibian"),
    ],
)
def test_play_to_action_of_a_play_the_catalogue_has_round_trips(source, cards, target):
    play = sk.Rules(source).readings(cards)[-1]
    pattern = sk.action_to_play(target, sk.play_to_action(target, play))
    assert pattern is not None and (pattern.kind, pattern.reading) == (play.kind, play.reading)


# ---------------------------------------------------------------------------- 8. ValueError, never another type


def _game() -> sk.Game:
    g = sk.Game("baibian", seed=3)
    for _ in range(5):
        g.apply(g.legal_moves()[0] if not g.can_pass() else "pass")
    return g


_SURROGATE_CALLS = {
    "parse_cards str": lambda: sk.parse_cards("\ud800"),
    "parse_cards list": lambda: sk.parse_cards(["5", "\ud800"]),
    "read": lambda: sk.Rules("baibian").read("5 \ud800"),
    "readings": lambda: sk.Rules("baibian").readings("\ud800"),
    "beats": lambda: sk.Rules("baibian").beats("\ud800", "5"),
    "legal_moves": lambda: sk.Rules("baibian").legal_moves("3 4", previous="\ud800"),
    "Rules parameter": lambda: sk.Rules("baibian", tianwang="\ud800"),
    "Rules variant": lambda: sk.Rules("\ud800"),
    "Rules parameter name": lambda: sk.Rules("baibian", **{"max_bomb\ud800": 8}),
    "Game hands": lambda: sk.Game("baibian", hands=["\ud800", "4", "5", "6"]),
    "play_to_action": lambda: sk.play_to_action("baibian", "\ud800"),
}


@pytest.mark.parametrize("call", list(_SURROGATE_CALLS.values()), ids=list(_SURROGATE_CALLS))
def test_lone_surrogates_raise_value_error(call):
    """Finding 8: a lone surrogate in a card string or a parameter raised RuntimeError
    ("Unable to cast Python instance...") or TypeError. Fixed: ValueError."""
    with pytest.raises(ValueError):
        call()


def test_lone_surrogate_move_raises_value_error_and_changes_nothing():
    g = _game()
    before = g.to_json()
    with pytest.raises(ValueError):
        g.apply("\ud800")
    assert g.to_json() == before


_HUGE_SEAT_CALLS = {
    "hand": lambda g: g.hand(2**70),
    "hand negative": lambda g: g.hand(-(2**70)),
    "played": lambda g: g.played(2**70),
    "observation": lambda g: g.observation(2**70),
    "encode_observation": lambda g: sk._core.encode_observation(g, 2**70),
}


@pytest.mark.parametrize("call", list(_HUGE_SEAT_CALLS.values()), ids=list(_HUGE_SEAT_CALLS))
def test_seat_beyond_int64_raises_value_error_and_changes_nothing(call):
    """Finding 8: seat integers beyond int64 raised RuntimeError. Fixed: ValueError
    naming the value."""
    g = _game()
    before = g.to_json()
    with pytest.raises(ValueError) as exc_info:
        call(g)
    assert str(abs(2**70)) in str(exc_info.value)
    assert g.to_json() == before


@pytest.mark.parametrize(
    "call",
    [
        lambda: sk.Game("baibian", hands=["3", "4", "5", "6"], leader=2**70),
        lambda: sk.Rules("classic").score([2**70, 0, 1, 2]),
        lambda: sk.Match("classic", seed=1, deals=2).player_in_seat(2**70),
        lambda: sk.Match("classic", seed=1, deals=2).seat_of(2**70),
    ],
    ids=["leader", "score finish_order", "player_in_seat", "seat_of"],
)
def test_other_seats_beyond_int64_raise_value_error(call):
    with pytest.raises(ValueError) as exc_info:
        call()
    assert str(2**70) in str(exc_info.value)


@pytest.mark.parametrize("value", ["5", 5, 2**70, b"5", 5.0], ids=["str", "int", "huge-int", "bytes", "float"])
def test_catalogue_id_of_a_non_play_raises_value_error(value):
    """Finding 8: ActionCatalogue.id_of("5") raised RuntimeError. Fixed: ValueError."""
    cat = sk.VectorEnv(num_envs=1, variant="classic").catalogue
    with pytest.raises(ValueError):
        cat.id_of(value)


@pytest.mark.parametrize(
    "text",
    [
        "[1e400]",
        "1e400",
        '{"format": 1e400}',
        "[-1e400]",
    ],
)
def test_from_json_overflowing_number_raises_value_error(text):
    """Finding 8: Game.from_json('[1e400]') raised RuntimeError (json out_of_range). Fixed:
    ValueError."""
    with pytest.raises(ValueError):
        sk.Game.from_json(text)


@pytest.mark.parametrize("key", ["seed", "leader", "previous_first_finisher"])
def test_from_json_400_digit_integer_raises_value_error(key):
    rec = json.loads(sk.Game("baibian", seed=3).to_json())
    rec[key] = 10**399
    with pytest.raises(ValueError):
        sk.Game.from_json(json.dumps(rec))


def _match_snapshot(m: sk.Match) -> tuple:
    return (m.deals_played, m.totals(), m.seating(), m.results(), m.is_over(), m.game.to_json())


def test_match_next_deal_before_the_deal_is_over_raises_value_error_and_changes_nothing():
    """Finding 8: Match.next_deal() before the current deal was over raised
    RuntimeError. Fixed: ValueError; the match is unchanged."""
    m = sk.Match("classic", seed=1, deals=2)
    m.game.apply(m.game.legal_moves()[0])
    before = _match_snapshot(m)
    with pytest.raises(ValueError, match="not over"):
        m.next_deal()
    assert _match_snapshot(m) == before


def test_match_next_deal_after_the_match_is_over_raises_value_error_and_changes_nothing():
    """Finding 8: Match.next_deal() after the match was over raised RuntimeError. Fixed:
    ValueError; the match is unchanged."""
    m = sk.Match("classic", seed=1, deals=1)
    play_out(m.game)
    m.next_deal()
    assert m.is_over()
    before = _match_snapshot(m)
    with pytest.raises(ValueError, match="over"):
        m.next_deal()
    assert _match_snapshot(m) == before


# ---------------------------------------------------------------------------- 9. CLI: outputs and numbers


@pytest.mark.parametrize("kind", ["existing-file", "under-a-file", "proc"])
def test_cli_out_that_cannot_be_a_folder_fails_cleanly(regular_file, kind):
    """Finding 9: --out naming an existing file, a path under a file, or a place that
    cannot be created: a one-line error naming the path."""
    out = {"existing-file": str(regular_file), "under-a-file": str(regular_file / "x"), "proc": "/proc/x"}[kind]
    p = run_cli("selfplay", "--games", "10", "--quiet", "--out", out, timeout=30)
    assert_cli_error(p, out)


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--games", "18446744073709551616"], "18446744073709551616"),
        (["--games", "100000000000000000000000"], "100000000000000000000000"),
        (["--games", "10", "--replays", "100000000000000000000"], "100000000000000000000"),
        (["--games", "10", "--threads", "99999999999999999999"], "99999999999999999999"),
        (["--games", "10", "--seed", "1" + "0" * 400], "seed"),
    ],
    ids=["games-2**64", "games-1e23", "replays-1e20", "threads-1e20", "seed-400-digits"],
)
def test_cli_huge_numbers_fail_cleanly(tmp_path, args, needle):
    """Finding 9: --games 18446744073709551616 and --replays 100000000000000000000 ended
    in a TypeError traceback. Fixed: a one-line error naming the value."""
    p = run_cli("selfplay", "--quiet", "--out", str(tmp_path / "out"), *args, timeout=30)
    assert_cli_error(p, needle)


def test_cli_a_billion_games_is_refused_quickly():
    """Finding 9: --games 1000000000 tried to allocate every per-deal result up front
    (MemoryError traceback, or on a big machine, gigabytes). Fixed: refused within 10 s
    with a one-line error about the count or memory."""
    p = run_cli("selfplay", "--games", "1000000000", "--quiet", timeout=10)
    err = assert_cli_error(p)
    assert re.search(r"memory|1000000000|1,000,000,000|1e9|games", err, re.IGNORECASE), err


@pytest.mark.parametrize(
    "argv",
    [
        [b"read", b"\xff\xfe"],
        [b"read", b"5 6 7 8 \xff"],
        [b"moves", b"--hand", b"\xff\xfe"],
        [b"moves", b"--hand", b"3 4", b"--previous", b"\xff"],
    ],
    ids=["read", "read-tail", "moves-hand", "moves-previous"],
)
def test_cli_non_utf8_argument_fails_cleanly(argv):
    """Finding 9: a non-UTF-8 argument to `shuangkou read` ended in a RuntimeError
    traceback. Fixed: a one-line error."""
    assert_cli_error(run_cli(*argv, timeout=30))


# ---------------------------------------------------------------------------- 10. silently accepted


def _agent_returning(convert):
    def agent(obs, mask, seats):
        return convert(mask.argmax(axis=1))

    return agent


@pytest.mark.parametrize(
    "convert,needles",
    [
        (lambda a: a.astype(np.float64), ["float"]),
        (lambda a: np.full(len(a), 1.5), ["1.5", "float"]),
        (lambda a: [float(x) for x in a], ["float"]),
        (lambda a: a.astype(str), ["str", "<U", "'"]),
        (lambda a: [str(x) for x in a], ["str", "<U", "'"]),
        (lambda a: np.full(len(a), 2**32 + 1, dtype=np.int64), ["4294967297"]),
        (lambda a: np.full(len(a), 2**33 + 7, dtype=np.int64), [str(2**33 + 7)]),
        (lambda a: np.full(len(a), -(2**40), dtype=np.int64), [str(-(2**40))]),
    ],
    ids=["float64", "float-1.5", "py-floats", "np-str", "py-str", "int64-2**32+1", "int64-2**33+7", "int64-neg"],
)
def test_selfplay_callable_agent_returning_non_ids_raises_value_error(convert, needles):
    """Finding 10: a callable agent's floats, strings and int64 values beyond int32 were
    cast to int32 (truncated, parsed, wrapped) and played. Fixed: ValueError naming the
    value (or its type)."""
    with pytest.raises(ValueError) as exc_info:
        sk.selfplay(agents=[_agent_returning(convert), "random"], games=5, seed=1)
    msg = str(exc_info.value)
    assert any(n in msg for n in needles), f"none of {needles} in {msg!r}"


@pytest.mark.parametrize("seed", [3, 2**64 - 1], ids=["seed-3", "seed-2**64-1"])
def test_from_json_with_seed_minus_one_raises_value_error_naming_it(seed):
    """Finding 10: a record whose seed was edited to -1 was read as 2**64-1: accepted as
    the deal of seed 2**64-1 (and refused with an unrelated message otherwise). Fixed:
    ValueError naming -1."""
    rec = json.loads(sk.Game("baibian", seed=seed).to_json())
    rec["seed"] = -1
    with pytest.raises(ValueError) as exc_info:
        sk.Game.from_json(json.dumps(rec))
    msg = str(exc_info.value)
    assert "-1" in msg and "seed" in msg, msg


@pytest.mark.parametrize("env_index", [-1, -4, 4, 5, 2**70], ids=["-1", "-num_envs", "num_envs", "num_envs+1", "huge"])
def test_vector_env_legal_actions_out_of_range(env_index):
    """Finding 10: venv.legal_actions(-1) returned an empty array (a slice across the
    offsets), not an error. Fixed: IndexError or ValueError for any index outside
    0..num_envs-1."""
    venv = sk.VectorEnv(num_envs=4, variant="baibian", seed=0)
    venv.reset()
    with pytest.raises((IndexError, ValueError)):
        got = venv.legal_actions(env_index)
        pytest.fail(f"legal_actions({env_index}) returned {got!r}")
    for j in range(4):  # in range still fine
        assert len(venv.legal_actions(j)) > 0


# ---------------------------------------------------------------------------- 11. variant paths that are no file


def test_rules_of_device_fifo_or_folder_raise_value_error_quickly(tmp_path):
    """Finding 11: /dev/zero, a FIFO and a folder as the variant: ValueError naming the
    path, at once (never blocking on the FIFO or reading /dev/zero forever)."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    for path in ["/dev/zero", str(fifo), str(folder), str(tmp_path) + "/"]:
        out = snippet_outcome(
            f"""
            import shuangkou as sk
            _report(lambda: sk.Rules({path!r}))
            """,
            timeout=20,
        )
        assert out["type"] == "ValueError", (path, out)
        assert path.rstrip("/") in out["message"], (path, out)


# ---------------------------------------------------------------------------- 12. gym: step after close


def test_gym_step_after_close_says_the_env_is_closed():
    """Finding 12: step() after close() raised AttributeError ('NoneType' has no
    attribute 'step') or stepped on a stale mask. Fixed: a clear error saying the env is
    closed."""
    env = ShuangkouEnv("baibian", opponents="random")
    _, info = env.reset(seed=0)
    env.close()
    with pytest.raises(Exception) as exc_info:
        env.step(first_legal(info["action_mask"]))
    assert not isinstance(exc_info.value, AttributeError), repr(exc_info.value)
    assert "closed" in str(exc_info.value).lower(), repr(exc_info.value)


def test_gym_step_after_close_through_gymnasium_make():
    env = gymnasium.make("shuangkou/Shuangkou-v0", variant="baibian", opponents="random")
    _, info = env.reset(seed=0)
    env.close()
    with pytest.raises(Exception) as exc_info:
        env.step(first_legal(info["action_mask"]))
    assert not isinstance(exc_info.value, AttributeError), repr(exc_info.value)
    assert "closed" in str(exc_info.value).lower(), repr(exc_info.value)


# ---------------------------------------------------------------------------- also

_RANKS = "3 4 5 6 7 8 9 T J Q K A 2".split()


@pytest.mark.parametrize("size", [28, 30, 60, 108])
def test_legal_moves_of_a_hand_over_27_cards_names_the_size(size):
    """Rules.legal_moves of more than 27 cards returned moves (28, 30 cards) or failed
    with "MoveList capacity (2048) exceeded". Fixed: ValueError naming the hand size."""
    deck = [r for r in _RANKS for _ in range(8)] + ["SJ", "SJ", "BJ", "BJ"]
    hand = " ".join(deck[:size])
    for variant in ("classic", "qianbian"):
        with pytest.raises(ValueError) as exc_info:
            sk.Rules(variant).legal_moves(hand)
        msg = str(exc_info.value)
        assert str(size) in msg and "capacity" not in msg, msg


def test_legal_moves_of_27_cards_still_works():
    hand = "3 3 4 5 5 6 6 7 7 7 8 8 9 T T J Q Q K A A 2 2 2 2 SJ BJ"
    assert len(sk.Rules("qianbian").legal_moves(hand)) > 0


@pytest.mark.parametrize("wild,wild_jokers", [("both", "none"), ("both", "both"), ("BJ", "none")])
def test_both_names_of_one_parameter_raise_value_error(wild, wild_jokers):
    """sk.Rules('baibian', wild='both', wild_jokers='none') was accepted (one silently
    won). Fixed: ValueError naming both spellings, whatever the values."""
    for make in (sk.Rules, sk.Game):
        with pytest.raises(ValueError) as exc_info:
            make("baibian", wild=wild, wild_jokers=wild_jokers)
        msg = str(exc_info.value)
        assert "wild_jokers" in msg and re.search(r"\bwild\b", msg.replace("wild_jokers", "")), msg


def _np_int_cases():
    i = np.int64
    return {
        "Rules max_bomb": (
            lambda: sk.Rules("baibian", max_bomb=i(10)).params,
            lambda: sk.Rules("baibian", max_bomb=10).params,
        ),
        "Game seed": (lambda: sk.Game("baibian", seed=i(3)).to_json(), lambda: sk.Game("baibian", seed=3).to_json()),
        "selfplay seed": (
            lambda: sk.selfplay(games=20, threads=1, seed=i(1)).arrays["scores"].tolist(),
            lambda: sk.selfplay(games=20, threads=1, seed=1).arrays["scores"].tolist(),
        ),
        "selfplay games": (
            lambda: sk.selfplay(games=i(20), threads=1, seed=1).arrays["scores"].tolist(),
            lambda: sk.selfplay(games=20, threads=1, seed=1).arrays["scores"].tolist(),
        ),
        "selfplay threads": (
            lambda: sk.selfplay(games=20, threads=i(1), seed=1).arrays["scores"].tolist(),
            lambda: sk.selfplay(games=20, threads=1, seed=1).arrays["scores"].tolist(),
        ),
        "Game hand": (lambda: sk.Game("baibian", seed=3).hand(i(1)), lambda: sk.Game("baibian", seed=3).hand(1)),
        "Game leader": (
            lambda: sk.Game("baibian", hands=["3", "4", "5", "6"], leader=i(2)).to_json(),
            lambda: sk.Game("baibian", hands=["3", "4", "5", "6"], leader=2).to_json(),
        ),
        "Match": (
            lambda: sk.Match("classic", seed=i(1), deals=i(2)).game.to_json(),
            lambda: sk.Match("classic", seed=1, deals=2).game.to_json(),
        ),
        "VectorEnv": (
            lambda: sk.VectorEnv(num_envs=i(4), seed=i(2)).reset()[0].tolist(),
            lambda: sk.VectorEnv(num_envs=4, seed=2).reset()[0].tolist(),
        ),
        "action_to_play": (lambda: sk.action_to_play("classic", i(1)), lambda: sk.action_to_play("classic", 1)),
        "score": (
            lambda: sk.Rules("classic").score([i(0), i(2), i(1), i(3)]),
            lambda: sk.Rules("classic").score([0, 2, 1, 3]),
        ),
        "episode_seed": (lambda: sk.VectorEnv.episode_seed(i(1), 0, 0), lambda: sk.VectorEnv.episode_seed(1, 0, 0)),
    }


_NP_INT = _np_int_cases()


@pytest.mark.parametrize("name", list(_NP_INT))
def test_numpy_integers_are_accepted_wherever_ints_are(name):
    """np.int64 was refused ("bad value np.int64(10)", "seed must be an integer") where a
    Python int is accepted. Fixed: accepted, with the same result."""
    with_np, with_int = _NP_INT[name]
    assert with_np() == with_int()


@pytest.mark.parametrize("value", ["no", "yes", "False", 1, 0, None], ids=repr)
def test_gym_control_partner_takes_only_real_bools(value):
    """control_partner="no" was taken as True (bool("no")). Fixed: ValueError naming it."""
    with pytest.raises(ValueError, match="control_partner"):
        ShuangkouEnv("baibian", control_partner=value)


def test_gym_control_partner_bools_still_work():
    for value in (True, False):
        assert ShuangkouEnv("baibian", control_partner=value).control_partner is value


@pytest.mark.parametrize("count", [3, 8])
def test_score_with_more_threes_than_two_decks_hold_raises_value_error(count):
    """Rules.score with `count` bombs of four 3s by one seat (more 3s than the 8 two decks
    hold) was scored. Fixed: ValueError."""
    r = sk.Rules("classic")
    with pytest.raises(ValueError):
        r.score(finish_order=[0, 2, 1, 3], bombs=[(0, "3 3 3 3")] * count)
    with pytest.raises(ValueError):
        r.score_breakdown(finish_order=[0, 2, 1, 3], bombs=[(0, "3 3 3 3")] * count)
    with pytest.raises(ValueError):  # over several seats too
        r.score(finish_order=[0, 2, 1, 3], bombs=[(s % 4, "3 3 3 3") for s in range(count)])
    assert r.score(finish_order=[0, 2, 1, 3], bombs=[(0, "3 3 3 3"), (1, "3 3 3 3")]) is not None


def test_cli_selfplay_help_has_no_doubled_percent():
    """`shuangkou selfplay --help` printed "95%% confidence" (a %% escape in a
    description that argparse's formatter class does not expand)."""
    p = run_cli("selfplay", "--help", timeout=30)
    assert p.returncode == 0
    out = p.stdout.decode()
    assert "%%" not in out, [line for line in out.splitlines() if "%%" in line]
    assert "95% confidence" in " ".join(out.split())
