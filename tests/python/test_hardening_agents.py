"""Hardening, second pass: agents, self-play, the arena and their command lines.

Each test states one finding of the second red-team pass (issue 17) and fails on the
code before its fix: agents that cannot be built escaped as raw RuntimeError,
SyntaxError or TypeError (a 33-36 line traceback on the command line); an Agent whose
reset() raised gave a raw KeyError; two different callables with one name were merged
in a summary; lone surrogates in agent specs gave pybind11's "incompatible function
arguments"; an output file that could not be written was not named; the arena checked
one pair's memory need, not all pairs together.
"""

from __future__ import annotations

import importlib
import re
import resource
import signal
import subprocess
import textwrap

import numpy as np
import pytest
import shuangkou as sk
from cli_util import assert_cli_error, cli_command
from shuangkou.agents import AgentActionError, AgentError, resolve_agent

memory = importlib.import_module("shuangkou.memory")

# ---------------------------------------------------------------------------- module:callable that cannot be built

BROKEN_MODULES = {
    "raises_on_import": "raise RuntimeError('the module refuses to load')\n",
    "bad_syntax": "def agent(:\n    pass\n",
    "exits_on_import": "import sys\nsys.exit(3)\n",
    "lazy_attr": "def __getattr__(name):\n    raise LookupError('no ' + name + ' here')\n",
}


@pytest.fixture
def broken_modules(tmp_path, monkeypatch):
    for name, text in BROKEN_MODULES.items():
        (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.mark.parametrize(
    "spec, needles",
    [
        ("raises_on_import:agent", ["raises_on_import:agent", "RuntimeError", "refuses to load"]),
        ("bad_syntax:agent", ["bad_syntax:agent", "SyntaxError"]),
        ("exits_on_import:agent", ["exits_on_import:agent", "SystemExit"]),
        ("lazy_attr:agent", ["lazy_attr:agent", "LookupError", "no agent here"]),
        (".x:agent", [".x:agent", "relative"]),
        ("..x:y", ["..x:y", "relative"]),
    ],
)
def test_an_agent_that_cannot_be_built_is_a_value_error_naming_it(broken_modules, spec, needles):
    with pytest.raises(ValueError) as e:
        resolve_agent(spec)
    for needle in needles:
        assert needle in str(e.value)


@pytest.mark.parametrize("command", ["selfplay", "arena"])
@pytest.mark.parametrize("spec", ["raises_on_import:agent", "bad_syntax:agent", "..x:y", ".x:agent"])
def test_cli_agent_that_cannot_be_built_is_one_line(broken_modules, command, spec):
    extra = ["--games", "2"] if command == "selfplay" else ["--deals", "2"]
    p = subprocess.run(
        [*cli_command(), command, "--quiet", "--agents", f"random,{spec}", *extra],
        capture_output=True,
        cwd=broken_modules,
        timeout=120,
    )
    assert_cli_error(p, spec)


def test_selfplay_cli_finds_agents_in_the_current_folder(tmp_path):
    (tmp_path / "herebot.py").write_text(
        "import numpy as np\ndef first(obs, mask, seats):\n    return mask.argmax(axis=1).astype(np.int64)\n"
    )
    p = subprocess.run(
        [*cli_command(), "selfplay", "--quiet", "--games", "3", "--agents", "herebot:first,random"],
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr.decode()
    assert "first" in p.stdout.decode()


# ---------------------------------------------------------------------------- Agent.reset() that raises


class ResetRaises(sk.Agent):
    name = "resetter"

    def reset(self, rules):
        raise KeyError("missing weights")

    def act(self, d):
        return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)


def test_reset_that_raises_is_an_agent_error_in_selfplay():
    with pytest.raises(AgentError, match="resetter.*reset.*KeyError.*missing weights") as e:
        sk.selfplay("classic", games=2, agents=[ResetRaises(), "random"], seed=1)
    assert isinstance(e.value.__cause__, KeyError)


def test_reset_that_raises_is_an_agent_error_in_the_arena():
    with pytest.raises(AgentError, match="resetter.*reset"):
        sk.arena("classic", agents=["random", ResetRaises()], deals=2, seed=1)


def test_reset_that_raises_is_an_agent_error_in_the_gym_env():
    pytest.importorskip("gymnasium")
    from shuangkou.envs.gym_env import ShuangkouEnv

    with pytest.raises(AgentError, match="resetter.*reset"):
        ShuangkouEnv("classic", opponents=ResetRaises())


# ---------------------------------------------------------------------------- labels


def _named(name: str, choose_last: bool):
    def agent(obs, mask, seats):
        rows = [np.flatnonzero(m) for m in mask]
        return np.array([r[-1] if choose_last else r[0] for r in rows], dtype=np.int64)

    agent.__name__ = name
    return agent


def test_two_agents_with_one_name_are_never_merged_in_a_summary():
    a, b = _named("agent", False), _named("agent", True)
    r = sk.selfplay("classic", games=20, agents=[a, b], seed=3)
    assert r["agents"] == ["agent", "agent#2", "agent", "agent#2"]
    assert r["scores"]["by_agent"]["agent"]["seats"] == [0, 2]
    assert r["scores"]["by_agent"]["agent#2"]["seats"] == [1, 3]


def test_one_agent_in_several_seats_keeps_one_label():
    a = _named("agent", False)
    r = sk.selfplay("classic", games=4, agents=[a, "random", a, "random"], seed=3)
    assert r["agents"] == ["agent", "random", "agent", "random"]
    r = sk.selfplay("classic", games=4, agents="heuristic", seed=3)
    assert r["agents"] == ["heuristic"] * 4


def test_a_callable_named_like_a_bot_is_told_apart_from_it():
    r = sk.selfplay("classic", games=4, agents=[_named("random", False), "random"], seed=3)
    assert r["agents"] == ["random#2", "random", "random#2", "random"]


# ---------------------------------------------------------------------------- text that is not text


@pytest.mark.parametrize("spec", ["search:\ud800", "dmc:\ud800", "heur\ud800istic", "\ud800:x"])
def test_lone_surrogates_in_an_agent_spec_are_a_value_error(spec):
    with pytest.raises(ValueError):
        resolve_agent(spec)
    with pytest.raises(ValueError):
        sk.selfplay("classic", games=2, agents=[spec, "random"])


# ---------------------------------------------------------------------------- outputs


def _limit_file_size(limit: int):
    def preexec() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return preexec


@pytest.mark.parametrize(
    "args, name",
    [
        (["arena", "--agents", "greedy,random", "--deals", "20"], "results.json"),
        (["selfplay", "--games", "20"], "summary.json"),
    ],
)
def test_an_output_that_cannot_be_written_is_named(tmp_path, args, name):
    out = tmp_path / "out"
    p = subprocess.run(
        [*cli_command(), *args, "--quiet", "--out", str(out)],
        capture_output=True,
        timeout=180,
        preexec_fn=_limit_file_size(1500),  # smaller than the file, larger than nothing
    )
    err = assert_cli_error(p, str(out / name))
    assert "too large" in err.lower()
    assert not (out / name).exists()  # never half a file
    assert not [f for f in out.iterdir() if f.name.endswith(".tmp")]  # and no temporary left behind


def test_output_file_replaces_whole_or_not_at_all(tmp_path):
    from shuangkou.outputs import output_file

    target = tmp_path / "x.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with output_file(target) as f:
            f.write("new, half")
            raise RuntimeError("stopped")
    assert target.read_text() == "old"
    with output_file(target) as f:
        f.write("new")
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]
    assert (target.stat().st_mode & 0o777) == (0o666 & ~_umask())


def _umask() -> int:
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_an_output_that_is_not_a_regular_file_is_refused_before_the_run(tmp_path):
    import os

    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "summary.json")
    p = subprocess.run(
        [*cli_command(), "selfplay", "--games", "10", "--quiet", "--out", str(out)], capture_output=True, timeout=60
    )
    assert_cli_error(p, str(out / "summary.json"), "not a regular file")


# ---------------------------------------------------------------------------- memory of every pair together


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
        s = importlib.import_module("shuangkou.memory")
        s.available_memory = lambda: 10**6
        from shuangkou.cli import main
        sys.exit(main(["arena", "--agents", "random,greedy,simple", "--deals", "100000", "--out", {str(out)!r}]))
        """
    )
    import sys

    p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert_cli_error(p, "3 pairs", "memory")
    assert not out.exists()


# ---------------------------------------------------------------------------- the command line's last resorts


def test_a_reader_that_goes_away_is_not_an_error():
    """`shuangkou moves | head -1`: BrokenPipeError is an OSError, and was reported as
    'error: [Errno 32] Broken pipe' with exit 1 because the OSError branch came first."""
    import sys

    code = textwrap.dedent(
        """
        import os, sys
        r, w = os.pipe()
        os.close(r)
        os.dup2(w, 1)
        sys.stdout.reconfigure(line_buffering=True)
        from shuangkou.cli import main
        rc = main(["moves"])
        sys.stderr.write(f"rc={rc}\\n")
        """
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stderr.strip().splitlines()[-1] == "rc=0", p.stderr
    assert "error" not in p.stderr


# ---------------------------------------------------------------------------- what a careful tester tried next


def _exits(obs, mask, seats):
    raise SystemExit(0)


def test_an_agent_that_calls_sys_exit_is_an_agent_error():
    """An agent calling sys.exit(0) ended the run silently: the CLI exited 0 having done nothing."""
    with pytest.raises(AgentError, match="_exits.*SystemExit") as e:
        sk.selfplay("classic", games=3, agents=[_exits, "random"], seed=1)
    assert isinstance(e.value.__cause__, SystemExit)
    with pytest.raises(AgentError):
        sk.arena("classic", agents=[_exits, "random"], deals=2, seed=1)


def test_cli_agent_that_exits_is_exit_code_1(tmp_path):
    (tmp_path / "exiter.py").write_text("import sys\ndef agent(obs, mask, seats):\n    sys.exit(0)\n")
    out = tmp_path / "out"
    p = subprocess.run(
        [*cli_command(), "selfplay", "--quiet", "--games", "3", "--agents", "exiter:agent", "--out", str(out)],
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert p.returncode == 1
    assert_cli_error(p, "agent agent", "SystemExit")
    assert not (out / "summary.json").exists()


@pytest.mark.parametrize(
    "returned, needle",
    [
        (lambda m: [[1], [1, 2]], "not an array of action ids"),
        (lambda m: _RaisesInArray(), "not an array of action ids"),
        (lambda m: np.full(len(m), 10**6), "not an action id"),
        (lambda m: np.zeros(len(m), dtype=np.float64), "integers"),
    ],
)
def test_bad_returns_are_agent_action_errors_naming_the_agent(returned, needle):
    """Unconvertible returns escaped as numpy's unnamed ValueError or a raw RuntimeError;
    every bad return is an AgentActionError (both an AgentError and a ValueError)."""

    def odd(obs, mask, seats):
        return returned(mask)

    with pytest.raises(AgentActionError, match=f"odd.*{needle}") as e:
        sk.selfplay("classic", games=2, agents=[odd, "random"], seed=1)
    assert isinstance(e.value, ValueError) and isinstance(e.value, AgentError)


class _RaisesInArray:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("can't convert cuda:0 device type tensor to numpy")


def test_cli_agent_failures_share_exit_code_1(tmp_path):
    """Bad action ids exited 2 (bad arguments) and a raising agent 1; both are agent failures."""
    (tmp_path / "bad.py").write_text(
        "import numpy as np\n"
        "def illegal(obs, mask, seats):\n    return np.full(len(mask), 5, dtype=np.int64)\n"
        "def raising(obs, mask, seats):\n    raise TypeError('boom')\n"
    )
    for spec in ("bad:illegal", "bad:raising"):
        p = subprocess.run(
            [*cli_command(), "selfplay", "--quiet", "--games", "3", "--agents", spec],
            capture_output=True,
            cwd=tmp_path,
            timeout=120,
        )
        assert p.returncode == 1, (spec, p.stderr)
        assert_cli_error(p, spec.split(":")[1])


@pytest.mark.parametrize("name", ["first\nline", "tab\there", "nul\x00", "x" * 101])
def test_agent_names_that_would_break_reports_are_refused(name):
    class Named(sk.Agent):
        def act(self, d):
            return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)

    agent = Named()
    agent.name = name
    with pytest.raises(ValueError, match="printable"):
        sk.selfplay("classic", games=2, agents=[agent, "random"], seed=1)


def test_an_agent_name_property_that_raises_is_a_value_error():
    class P(sk.Agent):
        @property
        def name(self):
            raise KeyError("x")

        def act(self, d):
            return np.array([ids[0] for ids in d.legal_ids], dtype=np.int64)

    with pytest.raises(ValueError, match="P.*KeyError"):
        sk.arena("classic", agents=[P(), "random"], deals=2)


def test_labels_with_dollars_and_bars_do_not_break_the_report(tmp_path):
    """A '$' in a label (an agent name, a dmc:PATH) failed the whole run at plot time in
    matplotlib's mathtext; a '|' opened a column in the markdown tables."""
    from shuangkou.arena_report import markdown, write_report

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


def test_vector_env_opponents_are_checked():
    def callable_bot(obs, mask, seats):
        return mask.argmax(axis=1)

    with pytest.raises(ValueError, match="built-in bots"):
        sk.VectorEnv(num_envs=2, variant="classic", opponents={1: callable_bot})
    with pytest.raises(ValueError, match="seats are the integers"):
        sk.VectorEnv(num_envs=2, variant="classic", opponents={True: "random"})
    with pytest.raises(ValueError, match="opponents"):
        sk.VectorEnv(num_envs=2, variant="classic", opponents=(x for x in [None, "random", None, "random"]))
    env = sk.VectorEnv(num_envs=2, variant="classic", opponents={1: " heuristic "})  # stripped, as elsewhere
    env.reset(seed=0)


def test_gym_env_refuses_a_non_finite_illegal_reward_and_reentry():
    pytest.importorskip("gymnasium")
    from shuangkou.envs.gym_env import ShuangkouEnv

    for bad in (float("nan"), float("inf"), 10**400):
        with pytest.raises(ValueError, match="illegal_reward"):
            ShuangkouEnv("classic", illegal_reward=bad)
        with pytest.raises(ValueError, match="illegal_reward"):  # the PettingZoo env checks it the same way
            sk.raw_env("classic", illegal_reward=bad)

    holder = {}

    def meddler(obs, mask, seats):
        holder["env"].step(0)  # an opponent stepping the env it plays in

    env = ShuangkouEnv("classic", opponents=meddler)
    holder["env"] = env
    with pytest.raises(AgentError) as e:
        obs, info = env.reset(seed=1)
        while True:  # the learner's moves until an opponent decides
            obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            assert not terminated
    assert isinstance(e.value.__cause__, RuntimeError) and "inside the opponents" in str(e.value.__cause__)
