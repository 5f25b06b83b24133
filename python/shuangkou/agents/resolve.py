"""Resolving agents: every form an agent may be given in (a built-in bot or its name,
"module:callable", a callable, an `Agent`) turned into one object, once, and the labels
reports give them."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _core
from ..errors import clip
from .protocol import Agent, AgentLike

__all__ = [
    "MAX_LABEL",
    "agent_forms",
    "agent_label",
    "bot_forms",
    "describe",
    "is_bot",
    "names_a_bot",
    "resolve_agent",
    "seat_labels",
    "unique_labels",
]


def bot_forms() -> str:
    """The built-in bots as names are written, from the registry: "random, simple, greedy,
    heuristic, search[:ROLLOUTS], dmc[:PATH], dmc[:PATH]+search[:ROLLOUTS]" (help texts
    and errors list them so)."""
    suffix, n = _core.GUIDED_SEARCH["suffix"], _core.GUIDED_SEARCH["argument_name"]
    forms, guided = [], []
    for row in _core.bot_registry():
        arg = row["argument_name"]
        form = row["name"] + {"none": "", "optional": f"[:{arg}]", "required": f":{arg}"}[row["argument"]]
        forms.append(form)
        if row["guides_search"]:
            guided.append(f"{form}{suffix}[:{n}]")
    return ", ".join(forms + guided)


def names_a_bot(name: str) -> bool:
    """Whether the text `name` stands for a built-in bot: a registry row's name before any
    ':' or '+' ("search:64", "dmc:PATH+search"); the C++ registry judges the rest."""
    return re.split(r"[:+]", name.strip(), maxsplit=1)[0] in _core.bot_names()


def agent_forms() -> str:
    """Every form an agent may be given in, for the error that refuses one: each built-in
    bot as it is written, from the registry (a bot with an optional argument both bare
    and with it: "search, search:ROLLOUTS"), then the Python forms."""
    suffix, n = _core.GUIDED_SEARCH["suffix"], _core.GUIDED_SEARCH["argument_name"]
    forms, guided = [], []
    for row in _core.bot_registry():
        with_arg = f"{row['name']}:{row['argument_name']}"
        written = {"none": [row["name"]], "optional": [row["name"], with_arg], "required": [with_arg]}[row["argument"]]
        forms += written
        if row["guides_search"]:
            guided += [f"{w}{suffix}{a}" for w in written for a in ("", f":{n}")]
    forms += guided
    return (
        f"a built-in bot ({', '.join(forms)}), module:callable (a function or a shuangkou.Agent class "
        "in a module that imports) or, from Python, a callable or a shuangkou.Agent"
    )


def is_bot(agent: Any) -> bool:
    """Whether `agent` (resolved) is a built-in bot, played inside C++."""
    return isinstance(agent, _core.Bot)


class _Typed:
    """A callable found by "module:callable", labelled by that text (two modules'
    ``agent`` functions are then told apart in reports)."""

    def __init__(self, fn: Callable[..., Any], label: str) -> None:
        self.fn = fn
        self.__name__ = label

    def __call__(self, obs: np.ndarray, mask: np.ndarray, seats: np.ndarray) -> Any:
        return self.fn(obs, mask, seats)


def resolve_agent(spec: AgentLike) -> AgentLike:
    """The object an agent entry stands for: a `Bot` for a bot or a bot's name, or the
    callable / `Agent` to call ("module:callable" imported, labelled by that text).

    Raises ValueError naming the problem: an unknown bot, a bad search budget, a
    model file that cannot be read, a class given where an instance is needed, a
    ``module:callable`` that does not import, is not callable or cannot be
    instantiated."""
    if isinstance(spec, type):
        raise ValueError(f"agent {spec.__name__} is a class: give an instance, {spec.__name__}()")
    if is_bot(spec) or isinstance(spec, Agent) or (callable(spec) and not isinstance(spec, str)):
        return spec
    if not isinstance(spec, str):
        raise ValueError(
            f"an agent is a built-in bot name, a callable or a shuangkou.Agent, got {type(spec).__name__} {spec!r}"
        )
    name = spec.strip()
    base, colon, rest = name.partition(":")
    if names_a_bot(name):
        return _core.Bot(name)  # ValueError naming a bad argument or model file
    if not colon:
        raise ValueError(f"unknown agent '{name}': an agent is {agent_forms()}")
    if not base or not rest:
        raise ValueError(f"agent '{name}': module:callable needs both a module and a name in it")
    if base.startswith("."):
        raise ValueError(f"agent '{name}': '{base}' is a relative module name; give an absolute one (package.module)")
    try:
        module = importlib.import_module(base)
    except ImportError as e:
        raise ValueError(f"agent '{name}': cannot import module '{base}' ({e})") from None
    except (Exception, SystemExit) as e:  # noqa: BLE001 - the module's own code failed while importing
        raise ValueError(f"agent '{name}': importing module '{base}' raised {describe(e)}") from e
    obj: Any = module
    for part in rest.split("."):
        try:
            found = hasattr(obj, part)
            obj = getattr(obj, part) if found else None
        except Exception as e:  # noqa: BLE001 - a module __getattr__ or a property of user code
            raise ValueError(f"agent '{name}': looking up '{rest}' raised {describe(e)}") from e
        if not found:
            raise ValueError(f"agent '{name}': module '{base}' has no attribute '{rest}'")
    if isinstance(obj, type):
        try:
            obj = obj()
        except (Exception, SystemExit) as e:  # noqa: BLE001 - any failure of user code is reported as the agent's
            raise ValueError(f"agent '{name}': {rest}() could not be created without arguments ({e})") from e
    if not (isinstance(obj, Agent) or callable(obj)):
        raise ValueError(f"agent '{name}': {rest} is a {type(obj).__name__}, not a callable or a shuangkou.Agent")
    if is_bot(obj):
        return obj
    if isinstance(obj, Agent):
        if obj.name is None:
            obj.name = name  # (an instance made here, or a module's own: labelled as typed)
        return obj
    return _Typed(obj, name)


def describe(e: BaseException) -> str:
    """An exception as one short line: its type and message (cut to 200 characters)."""
    text = clip(str(e).replace("\n", " "), 200)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


MAX_LABEL = 100  # characters of an agent's name


def agent_label(agent: AgentLike) -> str:
    """The name reports use: a bot's name, an Agent's ``name`` or class name, a function's
    name, the text of a "module:callable". ValueError for a name that is not a non-empty
    string of at most `MAX_LABEL` printable characters (a name goes into tables, CSV files
    and plot titles)."""
    if isinstance(agent, str):
        return agent
    if is_bot(agent):
        return agent.name
    try:
        if isinstance(agent, Agent):
            name = agent.name if agent.name is not None else type(agent).__name__
        else:
            name = getattr(agent, "__name__", type(agent).__name__)
    except Exception as e:  # noqa: BLE001 - a `name` property of user code
        raise ValueError(f"the name of agent {type(agent).__name__} raised {describe(e)}") from e
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"an agent's name must be a non-empty string, got {name!r} ({type(agent).__name__})")
    if len(name) > MAX_LABEL or not name.isprintable():
        raise ValueError(
            f"agent {type(agent).__name__}: its name must be at most {MAX_LABEL} printable characters "
            f"(no line breaks or control characters), got {clip(repr(name), 60)}"
        )
    return name


def unique_labels(agents: list[AgentLike]) -> list[str]:
    """One label per entry of `agents`, no two alike: built-in bots keep their names,
    and a label already given gets #2, #3, ... (so two different callables that share a
    ``__name__`` are told apart, and so is the same bot entered twice)."""
    taken = {agent_label(a) for a in agents if _named(a)}
    labels: list[str] = []
    for a in agents:
        label = agent_label(a)
        if label in labels or (not _named(a) and label in taken):
            k = 2
            while f"{label}#{k}" in labels or f"{label}#{k}" in taken:
                k += 1
            label = f"{label}#{k}"
        labels.append(label)
    return labels


def seat_labels(agents: list[AgentLike]) -> list[str]:
    """The labels of the agents by seat: one agent in several seats (the same object, or
    the same bot name) has one label; different agents never share one."""
    distinct: list[AgentLike] = []
    for a in agents:
        if not any(_same(a, b) for b in distinct):
            distinct.append(a)
    labels = unique_labels(distinct)
    return [next(lb for b, lb in zip(distinct, labels) if _same(a, b)) for a in agents]


def _named(agent: AgentLike) -> bool:
    """A bot or a bot's name: labelled by its name, which no other agent may take."""
    return isinstance(agent, str) or is_bot(agent)


def _same(a: AgentLike, b: AgentLike) -> bool:
    """One agent: the same object, or bots (or names) of one name."""
    return a is b or (_named(a) and _named(b) and agent_label(a) == agent_label(b))
