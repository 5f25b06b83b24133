"""Shuangkou as an OpenSpiel game, and agents both ways (needs OpenSpiel: ``pip install ".[openspiel]"``).

Importing this module registers the game ``python_shuangkou`` with pyspiel::

    import pyspiel
    import shuangkou.openspiel  # noqa: F401 - registers python_shuangkou

    game = pyspiel.load_game("python_shuangkou(variant=qianbian,max_bomb=10)")
    state = game.new_initial_state()  # 8 chance nodes draw the deal's 64-bit seed, a byte each

Game parameters (``game.get_type().parameter_specification``):

- ``variant``: a preset (classic, baibian, qianbian, qianbian_collect, jj) or a variant
  YAML file; default ``baibian``, as the environments.
- every rule parameter of ``shuangkou.Rules`` (``shuangkou.param_names()``), overriding the
  variant's value. Their listed defaults stand for "the variant's value": ``0`` for
  ``max_bomb``, the empty string for the others, because OpenSpiel fills every parameter
  left out with its listed default before the game sees it, so a real default would
  override the variant's. Booleans are written ``yes``/``no`` (also ``on``/``off``): OpenSpiel's
  parser reads ``true``/``false`` as booleans, and a parameter has one type, a string here.
- ``reward``: ``win`` (default: +1/-1 by team, 0 for a draw), ``score`` (the deal score) or
  ``log`` (its signed log), as ``Game.rewards(mode)``.

The values are read by ``shuangkou.Rules(variant, **overrides)``, so a bad one raises its
``ValueError`` naming the problem. The loaded game's own parameters (``str(game)``,
``game.get_parameters()``) are the resolved rule set, every parameter spelled out, so
``pyspiel.load_game(str(game))`` (what OpenSpiel's serialization does) loads the same game.

The game: 4 players (seats 0..3 after the deal's seat swap), sequential, imperfect
information, terminal rewards; zero-sum where the rewards are, under the rules and reward mode
played (`is_zero_sum`), else general-sum; utilities within `utility_bounds`. Its chance mode is explicit stochastic: the deal is 8
chance nodes of 256 equally likely outcomes, the bytes of a 64-bit seed, then
``shuangkou.Game(rules, seed=seed)`` deals, reveals a card and swaps seats exactly as
everywhere else in the package. (Sampled stochastic, one chance node that draws a seed,
does not work for a Python game in pyspiel 2.0: serializing or pickling a state of such a
game calls the game's ``GetRNGState``, which a Python game cannot implement, and fails with
``SpielError: GetRNGState unimplemented.``.)

Actions are the ids of the rules' action catalogue (``rules.num_actions`` of them, 0 = pass);
their strings name the play: ``pass``, ``pair T T``, ``bomb 7 7 7 7 7``. Observations come
from the package's encoders (docs/observation.md): the observation tensor is
``encode_observation(game, seat)`` (445 floats: not perfect recall, it keeps the last 8
actions); the information state tensor adds the leader and one row per action of the whole
deal (the actor and the move's features, ``encode_moves``), so it is perfect recall; the
information state string is ``str(shuangkou.InfoView(game, seat))``: the rules, the seat, the
leader, its own hand (and the partner's where shown) and every action. Both hold what an
``InfoView`` holds, which leaves out the card the revealed-card first lead showed (its worlds do
not keep that card with its holder, docs/infoset.md): deals that differ only in that card share
an information state.
``resample_from_infostate`` deals the cards the player cannot see anew with
``InfoView.sample_world`` (docs/infoset.md), seeded from the sampler's draws.

Agents both ways:

- `OpenSpielAgent(bot)`: an OpenSpiel bot (or a factory ``make(game, seat) -> bot``) as a
  ``shuangkou.Agent`` for ``sk.arena`` and ``sk.selfplay``. The bot steps a pyspiel state of
  a world drawn from what the seat knows (``decisions.views[i].sample_world(rng)``), never
  the real deal, so it cannot see hidden cards.
- `as_openspiel_bot(agent)`: any agent of the package ("heuristic", "dmc", an ``sk.Bot``, a
  callable, an ``sk.Agent``) as a ``pyspiel.Bot`` that plays ``python_shuangkou`` states.

Also `load_game(variant, reward=..., **overrides)` (the game from Python values or a ``Rules``)
and `ismcts_bot(game, simulations=...)`, OpenSpiel's Python ISMCTS made ready for
``evaluate_bots``.

docs/compatibility.md (section OpenSpiel) says which OpenSpiel algorithms run on the game.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from . import _core
from ._args import int_arg
from .agents import Agent, AgentLike, Decisions, agent_label, agent_step, reset_agent, resolve_agent

INSTALL_HINT = (
    'pip install ".[openspiel]" in a clone of shuangkou (or pip install "open_spiel>=2.0"; '
    "bash scripts/setup.sh --all installs every extra)"
)
try:
    import pyspiel
except ImportError as _e:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(f"shuangkou.openspiel needs OpenSpiel (the open_spiel package): {INSTALL_HINT}") from _e

__all__ = [
    "GAME_NAME",
    "AgentBot",
    "OpenSpielAgent",
    "ShuangkouGame",
    "ShuangkouState",
    "as_openspiel_bot",
    "is_zero_sum",
    "ismcts_bot",
    "load_game",
    "utility_bounds",
]

GAME_NAME = "python_shuangkou"
DEFAULT_VARIANT = "baibian"
REWARD_MODES = ("win", "score", "log")
NUM_CARDS = 108  # two decks with their jokers
NUM_SEATS = 4
# Every action plays at least one card or passes, and between two plays at most the three
# other seats pass (a trick ends once every other seat holding cards has passed): at most
# 108 plays and 3 passes after each.
MAX_GAME_LENGTH = 4 * NUM_CARDS
SEED_BYTES = 8  # chance nodes of a deal: the bytes of its 64-bit seed, least significant first
_CHANCE_OUTCOMES = [(b, 1.0 / 256) for b in range(256)]
MAX_SIMULATIONS = 10**7  # the most simulations a move ismcts_bot takes (a move of 10**7 takes hours)
_JOKER_BOMBS = ("three_kings", "heavenly_kings")
_MOVE_SIZE = int(_core.encode_moves([None]).shape[1])
_HISTORY_ROW = NUM_SEATS + _MOVE_SIZE  # actor (self, next, partner, previous) + the move's features
_SETUP_SIZE = NUM_SEATS  # the public set-up an InfoView keeps: the leader (self, next, partner, previous)


def _kind_of(row: Mapping[str, Any]) -> str:
    allowed = str(row["allowed"])
    if allowed.replace(" ", "") in ("true,false", "false,true"):
        return "bool"
    return "int" if ".." in allowed else "enum"


# Each rule parameter's kind, and the listed default that stands for "the variant's value".
_PARAM_KINDS: dict[str, str] = {str(row["name"]): _kind_of(row) for row in _core.param_table()}
_UNSET: dict[str, Any] = {"int": 0, "bool": "", "enum": ""}
PARAMETER_SPECIFICATION: dict[str, Any] = {
    "variant": DEFAULT_VARIANT,
    "reward": "win",
    **{name: _UNSET[kind] for name, kind in _PARAM_KINDS.items()},
}


# ---------------------------------------------------------------------------- rules, rewards and bounds


def _check_reward(reward: Any) -> str:
    if reward not in REWARD_MODES:
        raise ValueError(f"reward {reward!r}: the reward mode is one of {', '.join(REWARD_MODES)}")
    return str(reward)


def _rules_from(params: Mapping[str, Any]) -> tuple[_core.Rules, str, str]:
    """(rules, variant, reward) of a game's parameters; ValueError from Rules naming a bad one."""
    unknown = sorted(set(params) - set(PARAMETER_SPECIFICATION))
    if unknown:
        raise ValueError(f"unknown parameter {unknown[0]!r} (known: {', '.join(PARAMETER_SPECIFICATION)})")
    variant = str(params.get("variant", DEFAULT_VARIANT))
    reward = _check_reward(params.get("reward", "win"))
    overrides = {name: value for name, value in params.items() if name in _PARAM_KINDS and not _unset(name, value)}
    return _core.Rules(variant, **overrides), variant, reward


def _unset(name: str, value: Any) -> bool:
    """Whether `value` is the listed default of rule parameter `name`: the variant's value."""
    unset = _UNSET[_PARAM_KINDS[name]]
    return type(value) is type(unset) and value == unset


def _typed_params(rules: _core.Rules, variant: str, reward: str) -> dict[str, Any]:
    """Every parameter spelled out, in the types of the specification (so the game's string reloads it)."""
    out: dict[str, Any] = {"variant": variant, "reward": reward}
    for name, value in rules.params.items():
        kind = _PARAM_KINDS[name]
        out[name] = int(value) if kind == "int" else ("yes" if value == "true" else "no") if kind == "bool" else value
    return out


def is_zero_sum(rules: _core.Rules, reward: str = "win") -> bool:
    """Whether the four seats' rewards sum to 0 in every deal of `rules` under `reward`.

    'win' always (+1/-1 by team, 0 each in a draw). 'score': base x multiplier is zero-sum
    under the classic and jj base tables (the common table pays 1/0/0/1 in a draw, docs/rules.md
    §9), and contributions are unless paid to the team (docs/rules.md §11). 'log' maps each
    score through sign(s)·log(1+|s|), which keeps a zero sum only where the scores are +x/-x by
    team: no contributions at all."""
    p = rules.params
    if _check_reward(reward) == "win":
        return True
    if p["base_table"] == "common":
        return False
    return p["contribution"] != "team" if reward == "score" else p["contribution"] == "none"


def _factor(stars: int, table: str) -> float:
    """A bomb's multiplier factor from its stars (or size), docs/rules.md §10."""
    if table == "star_product":
        return 1.0 if stars <= 5 else float(min(stars - 4, 4))
    return float(max(stars - 3, 1))


@functools.lru_cache(maxsize=64)
def _score_bound(params: tuple[tuple[str, str], ...]) -> tuple[float, float]:
    """(lowest, highest) deal score of one seat under the rules of `params` (every parameter):
    a bound, from the bombs of the rules' action catalogue and the 108 cards they can use."""
    rules = _core.Rules("classic", **dict(params))
    p = rules.params
    base = max(
        abs(b) for order in ([0, 2, 1, 3], [0, 1, 2, 3], [0, 1, 3, 2]) for b in rules.score_breakdown(order)["base"]
    )
    pattern = rules.catalogue.pattern
    bombs = [b for b in (pattern(i) for i in range(1, rules.num_actions)) if b is not None and b.is_bomb]
    size = {b: max(b.stars, len(b)) for b in bombs}  # stars, or cards under count order: the larger
    collect = p["collect_stars"] == "true"
    if p["multiplier"] == "star_max":
        mult = 16.0
    elif p["multiplier"] == "bomb_count_max":  # the largest single factor; heavenly kings x4
        mult = max([4.0] + [_factor(size[b] + (7 if collect else 0), "count") for b in bombs])
    else:  # star_product: factors multiply; per card, no bomb beats the best ratio f**(1/cards)
        plain = [b for b in bombs if b.kind not in _JOKER_BOMBS]
        ratio = max([1.0] + [_factor(size[b], "star_product") ** (1.0 / len(b)) for b in plain])
        jokers = [_factor(size[b], "star_product") * ratio ** (NUM_CARDS - len(b)) for b in bombs if b not in plain]
        mult = max([ratio**NUM_CARDS, 4.0**NUM_SEATS if collect else 1.0] + jokers)
    qualifying = 0  # bombs that pay contributions (6 or more stars)
    if p["contribution"] != "none":
        smallest = min([len(b) for b in bombs if size[b] >= 6 and b.kind not in _JOKER_BOMBS] or [NUM_CARDS])
        jokers = [1 + (NUM_CARDS - len(b)) // smallest for b in bombs if b.kind in _JOKER_BOMBS and size[b] >= 6]
        qualifying = NUM_SEATS if collect else max([NUM_CARDS // smallest] + jokers)
    return -_whole(base * mult + 6.0 * qualifying), _whole(base * mult + 18.0 * qualifying)


def _whole(bound: float) -> float:
    """`bound` up to a whole number (scores are integers); a float power a hair below one is that one."""
    near = round(bound)
    return float(near if abs(bound - near) <= 1e-9 * max(1.0, bound) else math.ceil(bound))


def utility_bounds(rules: _core.Rules, reward: str = "win") -> tuple[float, float]:
    """(min, max) of a seat's reward under `rules` and `reward`: exact for 'win' (-1, 1); for
    'score' a bound of base x multiplier + contribution (docs/rules.md §9-11): the largest base,
    the largest multiplier the rules' bombs allow (for a product of factors, as many of the most
    efficient bombs as 108 cards hold), and as many paying bombs as 108 cards hold; 'log' maps
    that bound through sign(s)·log(1+|s|)."""
    if _check_reward(reward) == "win":
        return -1.0, 1.0
    low, high = _score_bound(tuple(sorted(rules.params.items())))
    if reward == "log":
        return -math.log1p(-low), math.log1p(high)
    return low, high


def _draw(sampler: Callable[[], Any], outcomes: int) -> int:
    """One of `outcomes` equally likely ints (0..outcomes-1) from a draw of OpenSpiel's
    probability sampler: a number in [0, 1] (a float, an int or a numpy number, never a
    bool), checked before it is used; TypeError or ValueError naming it otherwise."""
    u = sampler()
    if isinstance(u, (bool, np.bool_)) or not isinstance(u, (int, float, np.integer, np.floating)):
        raise TypeError(
            f"resample_from_infostate: probability_sampler must return a number in [0, 1], "
            f"got {type(u).__name__} {u!r:.60}"
        )
    if not 0 <= u <= 1:  # (NaN fails this too)
        raise ValueError(f"resample_from_infostate: probability_sampler must return a number in [0, 1], got {u!r:.60}")
    return min(int(u * outcomes), outcomes - 1)


# ---------------------------------------------------------------------------- the game


def _game_type(utility: Any) -> Any:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Shuangkou (Python, shuangkou package)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=NUM_SEATS,
        min_num_players=NUM_SEATS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=PARAMETER_SPECIFICATION,
    )


class ShuangkouGame(pyspiel.Game):
    """The OpenSpiel game ``python_shuangkou`` (load it with ``pyspiel.load_game`` or `load_game`)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        rules, variant, reward = _rules_from(dict(params or {}))
        zero_sum = is_zero_sum(rules, reward)
        low, high = utility_bounds(rules, reward)
        info = pyspiel.GameInfo(
            num_distinct_actions=rules.num_actions,
            max_chance_outcomes=len(_CHANCE_OUTCOMES),
            num_players=NUM_SEATS,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=MAX_GAME_LENGTH,
        )
        utility = pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        super().__init__(_game_type(utility), info, _typed_params(rules, variant, reward))
        self._resolved = (rules, reward)

    def _rules_and_reward(self) -> tuple[_core.Rules, str]:
        # (An unpickled game is made from its string, without __init__: read its parameters then.)
        if "_resolved" not in self.__dict__:
            rules, _, reward = _rules_from(self.get_parameters())
            self._resolved = (rules, reward)
        return self._resolved

    @property
    def rules(self) -> _core.Rules:
        """The rule set played."""
        return self._rules_and_reward()[0]

    @property
    def reward(self) -> str:
        """The reward mode: win, score or log."""
        return self._rules_and_reward()[1]

    def new_initial_state(self) -> ShuangkouState:
        """The state before the deal: 8 chance nodes draw its seed."""
        return ShuangkouState(self)

    def state_from(self, deal: _core.Game) -> ShuangkouState:
        """A state at the position of `deal` (a ``shuangkou.Game`` of this game's rules; copied).
        Its OpenSpiel ``history()`` is empty: it starts at that position, after the deal."""
        if not isinstance(deal, _core.Game):
            raise TypeError(f"state_from takes a shuangkou.Game, got {type(deal).__name__}")
        if deal.rules != self.rules:
            raise ValueError(f"the deal is played under {deal.rules!r}, this game under {self.rules!r}")
        state = ShuangkouState(self)
        state._deal = deal.clone()
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> _Observer:
        """The observer of OpenSpiel's observation API (observation.py): perfect recall gives the
        information state, else the observation; of one player's private information."""
        return _Observer(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class ShuangkouState(pyspiel.State):
    """A state of ``python_shuangkou``: the deal's seed bytes so far, then a ``shuangkou.Game``."""

    def __init__(self, game: ShuangkouGame) -> None:
        super().__init__(game)
        self._rules = game.rules
        self._reward = game.reward
        self._seed_bytes: list[int] = []
        self._deal: _core.Game | None = None

    @property
    def deal(self) -> _core.Game | None:
        """A copy of the deal (None before it is dealt): the complete position, every hand."""
        return None if self._deal is None else self._deal.clone()

    def current_player(self) -> int:
        if self._deal is None:
            return int(pyspiel.PlayerId.CHANCE)
        seat = self._deal.current_player()
        return int(pyspiel.PlayerId.TERMINAL) if seat < 0 else seat

    def _legal_actions(self, player: int) -> list[int]:
        if self._deal is None or player != self._deal.current_player():
            return []
        return [int(a) for a in self._deal.legal_action_ids()]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._deal is not None:
            raise ValueError("chance_outcomes: the deal is made; this is no chance node")
        return list(_CHANCE_OUTCOMES)

    def _apply_action(self, action: int) -> None:
        if self._deal is None:
            if not 0 <= action < len(_CHANCE_OUTCOMES):
                raise ValueError(f"chance action {action}: a seed byte is 0..255")
            self._seed_bytes.append(int(action))
            if len(self._seed_bytes) == SEED_BYTES:
                self._deal = _core.Game(self._rules, seed=int.from_bytes(bytes(self._seed_bytes), "little"))
        else:
            self._deal.apply_action(int(action))  # ValueError naming an illegal action

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {action}"
        play = self._rules.catalogue.pattern(int(action))  # ValueError for an id outside the catalogue
        return "pass" if play is None else f"{play.kind} {play.reading}"

    def is_terminal(self) -> bool:
        return self._deal is not None and self._deal.is_over()

    def returns(self) -> list[float]:
        if self._deal is None or not self._deal.is_over():
            return [0.0] * NUM_SEATS
        return [float(r) for r in self._deal.rewards(self._reward)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> ShuangkouState:
        """A state `player_id` cannot tell from this one: the cards it cannot see dealt anew
        (``InfoView.sample_world``), from a numpy Generator seeded by two draws of the sampler
        (so the same draws give the same world). Before the deal, the seed bytes drawn so far
        are drawn anew. The OpenSpiel history stays this state's."""
        if self._deal is None:
            clone = self.clone()
            clone._seed_bytes = [_draw(probability_sampler, 256) for _ in self._seed_bytes]
            return clone
        player = int_arg(player_id, "resample_from_infostate: player_id", 0, NUM_SEATS - 1)
        seed = sum(_draw(probability_sampler, 2**32) << (32 * k) for k in range(2))
        clone = self.clone()
        clone._deal = _core.InfoView(self._deal, player).sample_world(np.random.default_rng(seed))
        return clone

    def __str__(self) -> str:
        if self._deal is None:
            return f"{self._rules.name}: dealing, seed bytes {self._seed_bytes}"
        g = self._deal
        hands = " | ".join(f"{s}: {g.hand(s)}" for s in range(NUM_SEATS))
        actions = " ".join(f"{s}:{'pass' if p is None else p.cards.replace(' ', '')}" for s, p in g.history())
        return f"{self._rules.name}: to act {g.current_player()}; hands {hands}; actions {actions}"


# ---------------------------------------------------------------------------- observations


class _Observer:
    """The observer OpenSpiel's Python games give (observation.py): ``tensor``, ``dict``,
    ``set_from(state, player)`` and ``string_from(state, player)``."""

    def __init__(self, game: ShuangkouGame, iig_obs_type: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"python_shuangkou observers take no parameters, got {dict(params)}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError(
                "python_shuangkou observes for one player with public information (the observation and the "
                f"information state); got private_info={iig_obs_type.private_info}, "
                f"public_info={iig_obs_type.public_info}"
            )
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        pieces: list[tuple[str, int, tuple[int, ...]]] = [
            ("observation", _core.observation_size(), (_core.observation_size(),))
        ]
        if self.perfect_recall:
            pieces += [("setup", _SETUP_SIZE, (_SETUP_SIZE,))]
            pieces += [("history", MAX_GAME_LENGTH * _HISTORY_ROW, (MAX_GAME_LENGTH, _HISTORY_ROW))]
        self.tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, size, shape in pieces:
            self.dict[name] = self.tensor[at : at + size].reshape(shape)
            at += size

    def set_from(self, state: ShuangkouState, player: int) -> None:
        self.tensor.fill(0.0)
        deal = state._deal
        if deal is None:
            return
        self.dict["observation"][:] = _core.encode_observation(deal, player)
        if not self.perfect_recall:
            return
        view = _core.InfoView(deal, player)
        rel = [(s - player) % NUM_SEATS for s in range(NUM_SEATS)]  # self, next, partner, previous
        self.dict["setup"][rel[view.leader]] = 1.0
        history = view.history()
        if history:
            rows = self.dict["history"]
            rows[: len(history), NUM_SEATS:] = _core.encode_moves([p for _, p in history])
            rows[np.arange(len(history)), [rel[s] for s, _ in history]] = 1.0

    def string_from(self, state: ShuangkouState, player: int) -> str:
        deal = state._deal
        if deal is None:
            return f"seat {player}: the deal is not made yet"
        if self.perfect_recall:
            return str(_core.InfoView(deal, player))
        return _observation_text(deal, player)


def _observation_text(deal: _core.Game, seat: int) -> str:
    """What `seat` observes now, as the observation tensor holds it (the last 8 actions only)."""
    obs = deal.observation(seat)
    parts = [f"seat {seat}", f"hand {obs['hand'] or '-'}"]
    if obs.get("partner_hand") is not None:
        parts.append(f"partner hand {obs['partner_hand'] or '-'}")
    parts.append("cards left " + " ".join(str(c) for c in obs["cards_left"]))
    parts.append("played " + " / ".join(p or "-" for p in obs["played"]))
    top = obs["top"]
    parts.append(
        "leading" if top is None else f"to beat {top.kind} {top.cards} of {obs['top_owner']}, {obs['passes']} passes"
    )
    parts.append("out " + (" ".join(str(s) for s in obs["finish_order"]) or "-"))
    parts.append("points " + " ".join(str(s) for s in obs["scores"]))
    recent = deal.history()[-8:]
    parts.append(
        "recent " + (" ".join(f"{s}:{'pass' if p is None else p.cards.replace(' ', '')}" for s, p in recent) or "-")
    )
    return "; ".join(parts)


# ---------------------------------------------------------------------------- loading


def load_game(variant: str | _core.Rules = DEFAULT_VARIANT, *, reward: str = "win", **overrides: Any) -> ShuangkouGame:
    """``pyspiel.load_game("python_shuangkou", ...)`` from Python values: a preset, a variant
    file or a ``Rules``, any rule parameter by keyword (True/False, ints and strings as
    ``shuangkou.Rules`` takes them) and the reward mode. ValueError from Rules naming a bad one."""
    if isinstance(variant, _core.Rules):
        rules = _core.Rules("classic", **{**variant.params, **overrides}) if overrides else variant
        name = DEFAULT_VARIANT
    else:
        rules, name = _core.Rules(variant, **overrides), str(variant)
    game = pyspiel.load_game(GAME_NAME, _typed_params(rules, name, _check_reward(reward)))
    assert isinstance(game, ShuangkouGame)
    return game


def _deal_of(state: Any, who: str) -> _core.Game:
    """The deal of a python_shuangkou state at a decision; TypeError / ValueError naming the problem."""
    if not isinstance(state, ShuangkouState):
        raise TypeError(f"{who} plays python_shuangkou states, got {type(state).__name__} of {state.get_game()}")
    if state._deal is None or state.is_terminal():
        raise ValueError(f"{who}: the state is {'over' if state.is_terminal() else 'a chance node'}, no seat to act")
    return state._deal


# ---------------------------------------------------------------------------- OpenSpiel bots as agents

BotFactory = Callable[[ShuangkouGame, int], Any]


class OpenSpielAgent(Agent):
    """An OpenSpiel bot as a ``shuangkou.Agent`` (for ``sk.arena``, ``sk.selfplay``, the envs' opponents).

    bot: a bot (a ``pyspiel.Bot`` or any object with ``step(state) -> action``), used for
    every seat the agent plays, or a factory ``make(game, seat) -> bot`` called once per seat
    and rule set (for bots made for one game or one player id, such as
    ``pyspiel.make_uniform_random_bot(seat, seed)`` or an ISMCTS bot).

    At each decision the bot steps a fresh state (`ShuangkouGame.state_from`) of a world
    drawn from what the seat knows (``decisions.views[i].sample_world(rng)``: the cards it
    cannot see dealt anew, docs/infoset.md), never of the real deal, so no bot sees a hidden
    card, whatever it reads of the state. Each state starts at the position (its OpenSpiel
    ``history()`` is empty) and no ``inform_action`` is sent: bots that keep their own record
    of the game see each decision as a new one. reward: the reward mode of the game the bot
    is given; seed: the worlds' numpy Generator, seeded again at each ``reset``.
    """

    def __init__(self, bot: Any, *, reward: str = "win", seed: int = 0, name: str | None = None) -> None:
        if isinstance(bot, pyspiel.Bot) or hasattr(bot, "step"):
            self._bot, self._factory = bot, None
        elif callable(bot):
            self._bot, self._factory = None, bot
        else:
            raise TypeError(f"OpenSpielAgent takes a bot (with step(state)) or a factory make(game, seat), got {bot!r}")
        self._reward = _check_reward(reward)
        self._seed = seed
        made_by = type(bot).__name__ if self._factory is None else getattr(bot, "__name__", "")
        self.name = name or ("openspiel" if made_by in ("", "<lambda>") else f"openspiel:{made_by}")
        self._game: ShuangkouGame | None = None
        self._bots: dict[int, Any] = {}
        self._rng = np.random.default_rng(seed)

    @property
    def game(self) -> ShuangkouGame | None:
        """The pyspiel game of the rules last played (None before the first run)."""
        return self._game

    def reset(self, rules: _core.Rules) -> None:
        self._game = load_game(rules, reward=self._reward)
        self._bots = {}
        self._rng = np.random.default_rng(self._seed)

    def _bot_for(self, seat: int) -> Any:
        if self._factory is None:
            return self._bot
        if seat not in self._bots:
            self._bots[seat] = self._factory(self._game, seat)
        return self._bots[seat]

    def act(self, decisions: Decisions) -> np.ndarray:
        if self._game is None or self._game.rules != decisions.rules:
            self.reset(decisions.rules)
        game = self._game
        assert game is not None
        actions = np.empty(len(decisions), dtype=np.int64)
        for i in range(len(decisions)):
            world = decisions.views[i].sample_world(self._rng)
            actions[i] = int(self._bot_for(int(decisions.seats[i])).step(game.state_from(world)))
        return actions


# ---------------------------------------------------------------------------- agents as OpenSpiel bots


class AgentBot(pyspiel.Bot):
    """A shuangkou agent as a ``pyspiel.Bot`` for ``python_shuangkou`` states (see `as_openspiel_bot`)."""

    def __init__(self, agent: AgentLike, name: str | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = resolve_agent(agent)
        self.name = name or agent_label(self.agent)
        self._rules: _core.Rules | None = None

    def step(self, state: Any) -> int:
        """The action id the agent plays for the player to act (checked legal, as in the arena)."""
        deal = _deal_of(state, f"agent {self.name}")
        if self._rules != deal.rules:
            if isinstance(self.agent, _core.Bot):
                self.agent.check_variant(deal.rules)  # ValueError: e.g. dmc's network of another rule set
            reset_agent(self.agent, deal.rules, f"agent {self.name}")
            self._rules = deal.rules
        return agent_step(self.agent, deal, f"agent {self.name}")

    def restart_at(self, state: Any) -> None:
        """Nothing to do: the agent reads each position afresh."""

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to do: the agent reads each position afresh."""

    def restart(self) -> None:
        """Nothing to do: the agent reads each position afresh."""

    def provides_policy(self) -> bool:
        return False


def as_openspiel_bot(agent: AgentLike, *, name: str | None = None) -> AgentBot:
    """`agent` (a built-in bot's name such as "heuristic" or "dmc", an ``sk.Bot``, a callable
    ``agent(obs, mask, seats)`` or an ``sk.Agent``) as a ``pyspiel.Bot`` that plays
    ``python_shuangkou`` states, e.g. in ``open_spiel.python.algorithms.evaluate_bots``.
    ValueError naming the problem for an agent that does not resolve; the agent plays the
    position through ``shuangkou.agents.agent_step``, so a Python agent sees only its seat's
    observation, and a built-in bot reads the deal as it does in the arena."""
    return AgentBot(agent, name)


def ismcts_bot(game: ShuangkouGame, *, simulations: int = 100, uct_c: float = 2.0, seed: int = 0) -> Any:
    """OpenSpiel's Python ISMCTS bot (``open_spiel.python.algorithms.ismcts``) for `game`, with
    one random rollout per leaf, made ready for ``evaluate_bots``: OpenSpiel's bot does not
    implement ``restart_at``, which ``evaluate_bots`` calls first (``SpielError: RestartAt(state)
    not implemented.``); this one restarts its search tree there. Its worlds come from the
    state's ``resample_from_infostate``.

    simulations: 1..`MAX_SIMULATIONS` a move; uct_c: the exploration constant, a finite
    number >= 0; seed: 0..2**32-2 (numpy's RandomState takes seed and seed + 1). A bad one
    is a ValueError naming it, before the bot is built."""
    simulations = int_arg(simulations, "ismcts_bot: simulations", 1, MAX_SIMULATIONS)
    seed = int_arg(seed, "ismcts_bot: seed", 0, 2**32 - 2)
    if isinstance(uct_c, (bool, np.bool_)) or not isinstance(uct_c, (int, float, np.integer, np.floating)):
        raise ValueError(f"ismcts_bot: uct_c must be a finite number >= 0, got {uct_c!r:.60}")
    if not 0 <= uct_c < math.inf:  # (NaN fails this too)
        raise ValueError(f"ismcts_bot: uct_c must be a finite number >= 0, got {uct_c!r:.60}")
    from open_spiel.python.algorithms import ismcts, mcts

    class _ISMCTSBot(ismcts.ISMCTSBot):
        def restart_at(self, state: Any) -> None:
            self.reset()

    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    return _ISMCTSBot(game, evaluator, float(uct_c), simulations, random_state=np.random.RandomState(seed + 1))


def _register() -> None:
    if not any(t.short_name == GAME_NAME for t in pyspiel.registered_games()):
        pyspiel.register_game(_game_type(pyspiel.GameType.Utility.ZERO_SUM), ShuangkouGame)


_register()
