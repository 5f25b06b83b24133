"""Agents: one interface for built-in bots, Python callables and `Agent` objects.

Wherever an agent is taken (`selfplay`, `arena`, the Gymnasium env's `opponents`,
the CLI's `--agents`) it may be

- a built-in bot, played inside C++: a `Bot` object (``Bot("search:400")``,
  ``Bot.dmc(qnet)`` for a network in memory) or its name: "random", "simple", "greedy",
  "heuristic", "search" or "search:ROLLOUTS" (see docs/heuristic.md), or
  "dmc:MODEL" for a trained Q network's model file (docs/model_format.md), "dmc" for the
  network the package ships (docs/dmc_model.md);
- a callable ``agent(obs, mask, seats) -> actions`` on numpy arrays with the batch
  first: ``obs`` float32 ``[B, obs_size]``, ``mask`` int8 ``[B, num_actions]`` (1 where
  legal), ``seats`` int64 ``[B]``; it returns ``B`` action ids (int64 ``[B]``);
- an `Agent` object, for agents that need more than that: its ``act(decisions)`` gets a
  `Decisions` with the legal action ids and move-feature rows of every decision too;
- in the CLI (and as a string anywhere) ``module:callable``, imported; a class found
  there is instantiated without arguments.

Every call holds the decisions of one step of a batch of deals, all seats that the
agent plays together.

`resolve_agent` turns each form into one object, once: a name into a `Bot` (a model
file is read there, and only there), "module:callable" into what it names, labelled by
the text given. Runners then pass those objects on.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from . import _core
from .errors import clip

Bot = _core.Bot

__all__ = [
    "Agent",
    "AgentError",
    "AgentLike",
    "AgentRulesError",
    "Bot",
    "Decisions",
    "Views",
    "agent_label",
    "agent_step",
    "is_bot",
    "reset_agent",
    "resolve_agent",
    "seat_labels",
    "unique_labels",
]


class AgentError(RuntimeError):
    """A Python agent failed while playing: it raised (or called ``sys.exit``) in ``act``
    or ``reset``; the message names the agent, and the agent's own exception is chained
    (``__cause__``)."""


class AgentActionError(AgentError, ValueError):
    """A Python agent returned something that is not one legal action id per decision
    (a wrong shape, non-integers, ids out of range or not legal). Both an `AgentError`
    (the agent failed) and a ``ValueError`` (its output is bad input to the game)."""


class AgentRulesError(AgentError, ValueError):
    """A Python agent refused the rules it was asked to play: its ``reset(rules)`` raised
    ValueError (a policy trained for other rules, say). Both an `AgentError` and a
    ``ValueError``, raised before any deal is played; the agent's exception is chained."""


@dataclass
class Decisions:
    """The decisions an `Agent` makes in one call (B of them, the batch first).

    obs: float32 [B, obs_size] (docs/observation.md; ``shuangkou.obs_view(obs)`` names
    its fields); mask: int8 [B, num_actions]; seats: int64 [B], the seat deciding in each
    row; legal_ids: B int32 arrays, the legal action ids of each row (ascending: the pass,
    id 0, first where legal); legal_features: B float32 arrays [k, MOVE_FEATURE_SIZE], one
    row per legal id (``shuangkou.move_feature_slices`` names the columns,
    ``shuangkou.move_view`` reads them); rules: the `Rules` played.

    ``legal_plays`` (built on first use, so agents that do not read it pay nothing): B
    lists, the `Play` of each legal id of the row in ``legal_ids`` order, None for the
    pass; each is the id's pattern in the rules' action catalogue
    (``rules.catalogue.pattern(id)``, as `shuangkou.action_to_play` gives it): kind,
    reading, key, stars and size are the move's; ``cards`` is the reading in natural
    cards (the cards a hand plays for it may use wild jokers instead).

    ``views[i]``: row i's `InfoView`, what its seat may know of the deal (own hand, the
    partner's where shown, cards left, every play, the legal ids), with
    ``view.sample_world(rng)`` drawing a complete `Game` consistent with it, for agents
    that search (docs/infoset.md). Each view is made when first read, so agents that do
    not read them pay nothing; they can be read while ``act`` runs (a view made then
    stays valid after it).

    An agent gets what its seat may see and nothing more: the views are the only way to
    the deal (no `Game` with the other hands is handed out). ``obs``, ``mask`` and
    ``seats`` are copies made for the agent, ``legal_ids`` and ``legal_features``
    read-only views; the runner checks the chosen ids against its own data, never
    against these arrays, so writing into them changes nothing it relies on.
    """

    obs: np.ndarray
    mask: np.ndarray
    seats: np.ndarray
    legal_ids: list[np.ndarray]
    legal_features: list[np.ndarray]
    rules: _core.Rules
    # Row i's InfoView, made from the runner's game (None: no views, or no longer: act has
    # returned). Only views come out of it: the seat's information, never the whole deal.
    _view_of: Callable[[int], _core.InfoView] | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.seats)

    @functools.cached_property
    def legal_plays(self) -> list[list[_core.Play | None]]:
        pattern = self.rules.catalogue.pattern
        return [[pattern(i) for i in ids.tolist()] for ids in self.legal_ids]

    @functools.cached_property
    def views(self) -> Views:
        return Views(self)


class Views(Sequence):
    """The `InfoView` of each row of a `Decisions`, each made on first use (a replay of
    the row's deal) and then kept."""

    def __init__(self, decisions: Decisions) -> None:
        self._decisions = decisions
        self._made: list[_core.InfoView | None] = [None] * len(decisions)

    def __len__(self) -> int:
        return len(self._made)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
            raise TypeError(f"views are indexed by row (an integer), got {type(i).__name__}")
        k = int(i)
        if not -len(self) <= k < len(self):
            raise IndexError(f"row {k} out of range: {len(self)} decisions")
        k %= len(self)
        if self._made[k] is None:
            view_of = self._decisions._view_of
            if view_of is None:
                raise RuntimeError(
                    "views are made while act() runs: this row's view was not read before act() returned, "
                    "and its deal has moved on since"
                )
            self._made[k] = view_of(k)
        return self._made[k]


class Agent:
    """Base class for Python agents that need more than (obs, mask, seats).

    Subclass it and implement ``act(decisions) -> int64 [B]`` (one legal action id per
    row of the `Decisions`). ``name`` labels the agent in reports (default: the class
    name). ``reset(rules)`` is called once before a run starts playing.

    >>> import numpy as np, shuangkou as sk
    >>> class LastLegal(sk.Agent):
    ...     def act(self, d):
    ...         return np.array([ids[-1] for ids in d.legal_ids], dtype=np.int64)
    >>> r = sk.selfplay("classic", games=4, agents=[LastLegal(), "greedy"], seed=1)
    >>> r["agents"]
    ['LastLegal', 'greedy', 'LastLegal', 'greedy']
    """

    name: str | None = None

    def reset(self, rules: _core.Rules) -> None:
        """Called once before a run plays (override to load or clear state)."""

    def act(self, decisions: Decisions) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} must implement act(decisions)")


AgentLike = Union[str, _core.Bot, Agent, Callable[[np.ndarray, np.ndarray, np.ndarray], Any]]


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
        raise ValueError(f"agent '{name}': importing module '{base}' raised {_describe(e)}") from e
    obj: Any = module
    for part in rest.split("."):
        try:
            found = hasattr(obj, part)
            obj = getattr(obj, part) if found else None
        except Exception as e:  # noqa: BLE001 - a module __getattr__ or a property of user code
            raise ValueError(f"agent '{name}': looking up '{rest}' raised {_describe(e)}") from e
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


def _describe(e: BaseException) -> str:
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
        raise ValueError(f"the name of agent {type(agent).__name__} raised {_describe(e)}") from e
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"an agent's name must be a non-empty string, got {name!r} ({type(agent).__name__})")
    if len(name) > MAX_LABEL or not name.isprintable():
        raise ValueError(
            f"agent {type(agent).__name__}: its name must be at most {MAX_LABEL} printable characters "
            f"(no line breaks or control characters), got {name[:40]!r}{'...' if len(name) > 40 else ''}"
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


def reset_agent(agent: AgentLike, rules: _core.Rules, who: str) -> None:
    """Calls an `Agent`'s ``reset(rules)`` (nothing for other agents); an exception it
    raises becomes an `AgentError` naming `who`, with the agent's exception chained."""
    if not isinstance(agent, Agent):
        return
    try:
        agent.reset(rules)
    except ValueError as e:  # the agent refuses these rules: its whole reason, which may be long
        raise AgentRulesError(f"{who}: reset() refused the rules: {clip(str(e), 2000)}") from e
    except (Exception, SystemExit) as e:  # (an agent must not end the run by exiting)
        raise AgentError(f"{who}: reset() raised {_describe(e)}") from e


def decide(agent: AgentLike, core: Any, rows: np.ndarray, rules: _core.Rules, who: str) -> np.ndarray:
    """The action ids (int32 [len(rows)]) `agent` chooses for envs `rows` of a
    VectorEnvCore, checked: integers, one per row, each legal in its row (ValueError
    naming the agent otherwise). An exception the agent raises becomes an AgentError
    naming it."""
    offsets = core.legal_offsets
    seats = core.current_player[rows].astype(np.int64)
    return _choose(
        agent,
        _Batch(
            core.obs[rows],
            core.mask[rows],
            seats,
            lambda: [core.legal_ids[offsets[j] : offsets[j + 1]] for j in rows],
            lambda: [core.legal_features[offsets[j] : offsets[j + 1]] for j in rows],
            lambda i: _core.InfoView(core.current_game(int(rows[i])), int(seats[i])),
            lambda actions: core.mask[rows, actions] == 1,  # (the core's own mask, not the agent's copy)
        ),
        rules,
        who,
    )


def agent_step(agent: AgentLike, game: _core.Game, who: str | None = None) -> int:
    """The legal action id `agent` (resolved) plays for the player to act in `game`: one
    position, as the web table and tools ask. Checked as `decide` checks a batch."""
    if is_bot(agent):
        return agent.step(game)
    rules = game.rules
    ids = np.asarray(game.legal_action_ids(), dtype=np.int32)
    mask = np.zeros((1, rules.num_actions), dtype=np.int8)
    mask[0, ids] = 1
    obs = _core.encode_observation(game, game.current_player())[None, :]
    seats = np.array([game.current_player()], dtype=np.int64)

    def features() -> list[np.ndarray]:
        return [_core.encode_moves([rules.catalogue.pattern(int(i)) for i in ids])]

    legal = ids.copy()  # (kept here: the agent sees read-only views of `ids`, never this)
    batch = _Batch(
        obs, mask, seats, lambda: [ids], features, lambda i: _core.InfoView(game), lambda a: np.isin(a, legal)
    )
    return int(_choose(agent, batch, rules, who or agent_label(agent))[0])


@dataclass
class _Batch:
    """What a runner hands `_choose` for one call of an agent: the arrays of B decisions
    (the lists built on demand), each row's view of its deal, and the runner's own
    legality check of chosen ids (an agent can write into nothing it is checked by)."""

    obs: np.ndarray
    mask: np.ndarray
    seats: np.ndarray
    legal_ids: Callable[[], list[np.ndarray]]
    legal_features: Callable[[], list[np.ndarray]]
    view_of: Callable[[int], _core.InfoView]
    is_legal: Callable[[np.ndarray], np.ndarray]


def _frozen(a: np.ndarray) -> np.ndarray:
    """A read-only view of `a` (an agent that writes into it gets numpy's ValueError)."""
    v = a.view()
    v.flags.writeable = False
    return v


def _choose(agent: AgentLike, batch: _Batch, rules: _core.Rules, who: str) -> np.ndarray:
    """Asks a Python agent for one action per row (an `Agent` gets `Decisions`, built
    only for it, whose views read row i's deal while it acts; a callable gets (obs, mask,
    seats)) and checks the answer against the runner's own data. The agent's obs and mask
    are the runner's copies, used for nothing after it acts, and its seats a copy of its
    own (writable: torch.from_numpy and the like take them without a warning); the legal
    ids and features, views of the runner's buffers, are read-only."""
    obs, mask, seats = batch.obs, batch.mask, batch.seats.copy()
    try:
        if isinstance(agent, Agent):
            ids = [_frozen(a) for a in batch.legal_ids()]
            features = [_frozen(a) for a in batch.legal_features()]
            decisions = Decisions(obs, mask, seats, ids, features, rules, batch.view_of)
            try:
                chosen = agent.act(decisions)
            finally:
                decisions._view_of = None  # the deals move on: no view made from them later
        else:
            chosen = agent(obs, mask, seats)
    except (Exception, SystemExit) as e:  # (an agent must not end the run by exiting)
        raise AgentError(f"{who} raised {type(e).__name__}: {e}") from e
    try:
        array = np.asarray(chosen)
    except Exception as e:  # noqa: BLE001 - a ragged list, an __array__ that raises (a CUDA tensor)
        raise AgentActionError(
            f"{who} returned a {type(chosen).__name__} that is not an array of action ids ({_describe(e)})"
        ) from e
    actions = checked_actions(array, len(batch.seats), batch.mask.shape[1], who)
    illegal = np.flatnonzero(~np.asarray(batch.is_legal(actions), dtype=bool))
    if len(illegal):
        k = int(illegal[0])
        raise AgentActionError(
            f"{who} chose action {int(actions[k])}, which is not legal for seat {int(batch.seats[k])} there "
            f"(row {k} of its batch of {len(batch.seats)}; legal: the mask's 1s)"
        )
    return actions


def checked_actions(chosen: np.ndarray, n: int, num_actions: int, who: str) -> np.ndarray:
    """The action ids an agent returned, as int32: n integers (not bools, floats or
    strings) in 0..num_actions-1; AgentActionError (a ValueError) naming the first bad
    one otherwise."""
    if chosen.shape != (n,):
        raise AgentActionError(f"{who} returned shape {chosen.shape}, expected ({n},): one action id per decision")
    if chosen.dtype == np.bool_ or not np.issubdtype(chosen.dtype, np.integer):
        first = chosen.flat[0] if chosen.size else None
        raise AgentActionError(f"{who} returned {chosen.dtype} values (e.g. {first!r}); action ids are integers")
    bad = np.flatnonzero((chosen < 0) | (chosen >= num_actions))
    if len(bad):
        raise AgentActionError(f"{who} returned {int(chosen[bad[0]])}, not an action id (0..{num_actions - 1})")
    return chosen.astype(np.int32)
