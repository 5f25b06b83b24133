"""Threads (issue 17, docs/errors.md "Threads"): every object whose calls release the
GIL, hammered from several Python threads at once.

Before the fix, two threads in DmcActors.collect, or set_network during a collect,
crashed the interpreter (collect released the GIL with no guard, and used the network
set_network freed); VectorEnvCore's copy, finished_results, current_game and its array
properties read the env while another thread stepped it. Now overlapping calls raise
RuntimeError naming the class and method, set_network and set_teacher_prob take
effect from the next step, and QNet.q_values and selfplay are safe to share.

Each stress test runs in a subprocess (a crash fails that test, not the run) for about
1.5 s and reports every exception its threads saw: only the documented ones may occur.
"""

from __future__ import annotations

import json
import textwrap

from snippet_util import run_snippet

_PRELUDE = """
import json, threading, time, traceback
import numpy as np
import shuangkou as sk
from shuangkou import _core

OBS, MOVE = _core.observation_size(), _core.MOVE_FEATURE_SIZE

def random_net(seed, hidden=(32, 16)):
    rng = np.random.default_rng(seed)
    shapes = sk.QNet.tensor_shapes(OBS, MOVE, list(hidden))
    return sk.QNet(OBS, MOVE, list(hidden), {n: rng.normal(0, 0.3, s).astype(np.float32) for n, s in shapes})

def hammer(workers, seconds=1.5):
    '''Runs each worker (a function called in a loop) on its own thread for `seconds`;
    returns {"calls": n, "errors": {"Type: message start": count}}.'''
    stop = time.monotonic() + seconds
    errors, calls, lock = {}, [0], threading.Lock()
    def loop(fn):
        while time.monotonic() < stop:
            try:
                fn()
            except Exception as e:
                key = f"{type(e).__name__}: {str(e)[:100]}"
                with lock:
                    errors[key] = errors.get(key, 0) + 1
            with lock:
                calls[0] += 1
    threads = [threading.Thread(target=loop, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"calls": calls[0], "errors": errors}

def in_use_errors(calls, start, wait=0.3):
    '''Starts `start` on a thread, waits until it is inside C++ (`wait` s), then makes
    each call: returns {name: the RuntimeError message it raised, or None}, and whether
    `start` was still running after the last call.'''
    worker = threading.Thread(target=start)
    worker.start()
    time.sleep(wait)
    messages = {}
    for name, fn in calls.items():
        try:
            fn()
            messages[name] = None
        except RuntimeError as e:
            messages[name] = str(e)
    overlapped = worker.is_alive()
    worker.join()
    return messages, overlapped
"""


def _result(body: str, timeout: float = 180) -> dict:
    p = run_snippet(_PRELUDE + textwrap.dedent(body), timeout=timeout)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def _only(errors: dict[str, int], *allowed: str) -> None:
    """Every error key starts with one of `allowed`."""
    bad = {k: n for k, n in errors.items() if not k.startswith(allowed)}
    assert not bad, bad


IN_USE = "RuntimeError: {}: the object is in use by another thread"


def test_dmc_actors_collect_overlapping_raises_and_set_network_is_safe_meanwhile():
    r = _result(
        """
        actors = _core.DmcActors("baibian", random_net(0), num_envs=32, seed=1, threads=1, epsilon=0.05,
                                 teacher="heuristic", teacher_prob=0.2)
        # A long collect on one thread; a second collect meanwhile is refused with a clear error.
        # (a loaded machine may start the long one late or run it fast: a longer one then)
        for n in (60000, 240000, 960000):
            second, overlapped = in_use_errors({"collect": lambda: actors.collect(10)}, lambda: actors.collect(n))
            if overlapped and second["collect"] is not None:
                break
        second = second["collect"] if overlapped else "no overlap"
        nets = [random_net(s, hidden) for s, hidden in enumerate([(32, 16), (8,), (64, 32, 16)])]
        counter = [0]
        def push():
            counter[0] += 1
            actors.set_network(nets[counter[0] % 3], counter[0])
        seen = []
        def read():
            seen.append((actors.deals_finished, actors.decisions))
        stress = hammer([
            lambda: actors.collect(2000),
            lambda: actors.collect(2000),
            push,
            lambda: actors.set_teacher_prob((counter[0] % 5) / 10),
            read,
        ])
        versions = set(actors.collect(500)["version"].tolist())
        print(json.dumps({"second": second, "stress": stress, "versions": sorted(versions),
                          "pushed": counter[0], "reads": len(seen)}))
        """
    )
    assert r["second"] and r["second"].startswith("DmcActors.collect: the object is in use by another thread"), r
    _only(r["stress"]["errors"], IN_USE.format("DmcActors.collect"))
    assert r["pushed"] > 10 and r["reads"] > 10
    # Deals begun earlier carry older versions; the last network pushed plays from the next step on.
    assert max(r["versions"]) == r["pushed"], r["versions"][-5:]


def test_dmc_actors_counters_and_set_network_from_another_thread_during_one_collect():
    """set_network and the counters while one collect runs (no overlap of collects):
    the collect's samples carry the versions pushed meanwhile, in order."""
    r = _result(
        """
        actors = _core.DmcActors("classic", random_net(1), version=0, num_envs=16, seed=2, threads=2)
        done = threading.Event()
        out = {}
        def collect():
            out["s"] = actors.collect(40000)
            done.set()
        t = threading.Thread(target=collect)
        t.start()
        version, counts = 0, []
        while not done.wait(0.02):
            version += 1
            actors.set_network(random_net(version % 4, (16,) if version % 2 else (32, 16)), version)
            counts.append(actors.decisions)
        t.join()
        v = out["s"]["version"]
        print(json.dumps({"pushed": version, "max": int(v.max()), "counts_rise": counts == sorted(counts),
                          "versions_rise": bool(np.all(np.diff(np.sort(np.unique(v))) > 0))}))
        """
    )
    assert r["pushed"] > 3 and 0 < r["max"] <= r["pushed"] and r["counts_rise"], r


def test_vector_env_core_refuses_every_call_while_another_thread_steps_it():
    r = _result(
        """
        bots = [None, "search:400", "search:400", "search:400"]
        core = _core.VectorEnvCore("baibian", 16, 3, 1, bots, "score", True)
        def long_step():
            actions = np.array([core.legal_ids[core.legal_offsets[j]] for j in range(core.num_envs)], np.int32)
            core.step(actions)
        calls = {
            "copy": core.copy,
            "__deepcopy__": lambda: core.__deepcopy__({}),
            "finished_results": lambda: core.finished_results([0]),
            "finished_indices": lambda: core.finished_indices([0]),
            "start_at": lambda: core.start_at(0, 1),
            "current_game": lambda: core.current_game(0),
            "finished_game": lambda: core.finished_game(0),
            "obs": lambda: core.obs,
            "dones": lambda: core.dones,
            "state_json": lambda: core.state_json(0),
            "recent_actions": lambda: core.recent_actions(0),
            "reset": core.reset,
            "step": long_step,
        }
        # What never changes is safe meanwhile.
        calls["constants"] = lambda: (core.num_envs, core.num_actions, core.rules, core.legal_ids)
        messages, overlapped = in_use_errors(calls, long_step, wait=0.1)
        print(json.dumps({"messages": messages, "overlapped": overlapped}))
        """
    )
    assert r["overlapped"]
    assert r["messages"].pop("constants") is None
    for name, message in r["messages"].items():
        assert message and message.startswith("VectorEnv.") and "in use by another thread" in message, (name, message)


def test_vector_env_core_and_vector_env_under_stress():
    r = _result(
        """
        core = _core.VectorEnvCore("baibian", 64, 1, 2, [None, "heuristic", None, "random"], "score", True)
        rng = np.random.default_rng(0)
        def step():
            off, ids = core.legal_offsets, core.legal_ids
            core.step(np.array([ids[rng.integers(off[j], off[j + 1])] for j in range(core.num_envs)], np.int32))
        readers = [
            core.copy, lambda: core.finished_results([0, 1]), lambda: core.finished_indices([2]),
            lambda: core.current_game(3), lambda: core.obs.sum(), lambda: core.state_json(0), core.reset,
        ]
        stress = hammer([step, step] + readers)
        env = sk.VectorEnv(32, "baibian", seed=1, num_threads=2)
        env.reset()
        def env_step():
            env.step([env.legal_actions(j)[0] for j in range(env.num_envs)])
        wrapped = hammer([env_step, env_step, lambda: env.reset()])
        print(json.dumps({"stress": stress, "wrapped": wrapped}))
        """
    )
    # A step may find its actions stale (another thread stepped in between): ValueError, as documented.
    for key in ("stress", "wrapped"):
        _only(
            r[key]["errors"],
            "RuntimeError: VectorEnv.",
            "ValueError: env ",
            "ValueError: action",
        )
        assert r[key]["calls"] > 20
        assert all("in use by another thread" in k for k in r[key]["errors"] if k.startswith("RuntimeError")), r


def test_qnet_q_values_is_safe_to_share_between_threads():
    r = _result(
        """
        net = random_net(3, (64, 32))
        rng = np.random.default_rng(1)
        cases = [(rng.uniform(-1, 1, OBS).astype(np.float32), rng.uniform(-1, 1, (k, MOVE)).astype(np.float32))
                 for k in (1, 7, 40, 200)]
        want = [net.q_values(o, m) for o, m in cases]
        wrong = [0]
        def worker(i):
            def run():
                o, m = cases[i % len(cases)]
                if not np.array_equal(net.q_values(o, m), want[i % len(cases)]):
                    wrong[0] += 1
            return run
        stress = hammer([worker(i) for i in range(6)])
        print(json.dumps({"stress": stress, "wrong": wrong[0]}))
        """
    )
    assert r["stress"]["errors"] == {} and r["wrong"] == 0 and r["stress"]["calls"] > 100, r


def test_selfplay_from_several_threads_gives_the_serial_results():
    r = _result(
        """
        from pathlib import Path
        shipped = sk.builtin_models()
        runs = [("random", 3000), ("heuristic,greedy", 200), ("dmc,random", 60), ("search:8,heuristic", 10)]
        want = {agents: _core.run_selfplay("baibian", n, (agents.split(",") * 2)[:4] if "," in agents
                                           else [agents] * 4, threads=1, seed=7)
                for agents, n in runs}
        diffs = [0]
        def worker(agents, n):
            def run():
                got = sk.selfplay("baibian", games=n, agents=agents, seed=7, threads=2).arrays
                if not all(np.array_equal(got[k], want[agents][k]) for k in got):
                    diffs[0] += 1
            return run
        stress = hammer([worker(a, n) for a, n in runs] + [lambda: _core.set_builtin_models(shipped)])
        print(json.dumps({"stress": stress, "diffs": diffs[0]}))
        """
    )
    assert r["stress"]["errors"] == {} and r["diffs"] == 0, r


# ---------------------------------------------------------------------------- one VectorEnv stepped from two threads


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
    """Two threads stepping one VectorEnv (its step releases the GIL) raced in
    C++ and crashed (segfault, abort, std::terminate). Fixed: a concurrent call either
    raises RuntimeError saying the env is in use by another thread, or is serialised; the
    env's state is always that of its successful steps applied one after another."""
    p = run_snippet(_CONCURRENT_STEP, timeout=300)
    assert p.returncode == 0 and p.stdout.strip().endswith("OK"), p.stdout[-3000:] + p.stderr[-3000:]


def test_more_threads_than_the_process_may_start_is_an_error_not_an_abort():
    # OpenMP (libgomp) aborts the process when it cannot create a thread; the runners try
    # first. Here the address space left cannot hold 1,000 thread stacks.
    p = run_snippet(
        """
        import os, resource
        import shuangkou as sk
        pages = int(open("/proc/self/statm").read().split()[0])
        used = pages * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (used + 256 * 2**20, resource.RLIM_INFINITY))
        try:
            sk.selfplay("baibian", games=10, agents="random", threads=1000)
        except ValueError as e:
            print("refused:", e)
        print(len(sk.selfplay("baibian", games=10, agents="random", threads=2).arrays["scores"]))
        """
    )
    assert p.returncode == 0, p.stderr[-2000:]
    assert "refused: cannot start 1000 threads" in p.stdout and "ask for fewer threads" in p.stdout
    assert p.stdout.strip().endswith("10")
