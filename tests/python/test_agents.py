"""Agents (shuangkou.agents): building an agent from its spec, its reset, its
labels, and what it returns, checked wherever agents play (sk.selfplay, sk.arena,
the Gymnasium env and the command line).

An agent that cannot be built is a ValueError naming it as given; an agent that
raises (or calls sys.exit) in act or reset is an AgentError naming it, with its own
exception chained; whatever it returns that is not one legal action id per decision
is an AgentActionError (also a ValueError); on the command line each is one line and
exit code 1."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
import shuangkou as sk
from cli_util import assert_cli_error, cli_command
from shuangkou.agents import AgentActionError, AgentError, resolve_agent

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


@pytest.mark.parametrize("spec", ["search:\ud800", "dmc:\ud800", "heur\ud800istic", "\ud800:x"])
def test_lone_surrogates_in_an_agent_spec_are_a_value_error(spec):
    with pytest.raises(ValueError):
        resolve_agent(spec)
    with pytest.raises(ValueError):
        sk.selfplay("classic", games=2, agents=[spec, "random"])


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


# ---------------------------------------------------------------------------- agents that exit or return what is no action id


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
    assert_cli_error(p, "agent exiter:agent", "SystemExit")
    assert not (out / "summary.json").exists()


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
    """A callable agent's floats, strings and int64 values beyond int32 were
    cast to int32 (truncated, parsed, wrapped) and played. Fixed: ValueError naming the
    value (or its type)."""
    with pytest.raises(ValueError) as exc_info:
        sk.selfplay(agents=[_agent_returning(convert), "random"], games=5, seed=1)
    msg = str(exc_info.value)
    assert any(n in msg for n in needles), f"none of {needles} in {msg!r}"


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
