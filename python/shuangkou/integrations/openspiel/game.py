"""Shuangkou as the OpenSpiel game ``python_shuangkou``: its parameters, states,
observers and utility bounds; importing it registers the game with pyspiel (the package
docstring, shuangkou/integrations/openspiel/__init__.py, says it all)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ... import _core
from ...util.checks import int_arg

INSTALL_HINT = "bash scripts/setup.sh --openspiel in a clone of shuangkou (or pip install '.[openspiel]' in the clone)"
try:
    import pyspiel
except ImportError as _e:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        f"shuangkou.integrations.openspiel needs OpenSpiel (the open_spiel package): {INSTALL_HINT}"
    ) from _e

__all__ = [
    "GAME_NAME",
    "ShuangkouGame",
    "ShuangkouState",
    "is_zero_sum",
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


def utility_bounds(rules: _core.Rules, reward: str = "win") -> tuple[float, float]:
    """(min, max) of a seat's reward under `rules` and `reward`: exact for 'win' (-1, 1); for
    'score' a bound of base x multiplier + contribution (docs/rules.md §9-11): the largest base,
    the largest multiplier the rules' bombs allow (for a product of factors, as many of the most
    efficient bombs as 108 cards hold), and as many paying bombs as 108 cards hold; 'log' maps
    that bound through sign(s)·log(1+|s|)."""
    if _check_reward(reward) == "win":
        return -1.0, 1.0
    low, high = rules.score_bounds  # (the C++ scoring derives them: core/score_bounds.h)
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


def _register() -> None:
    if not any(t.short_name == GAME_NAME for t in pyspiel.registered_games()):
        pyspiel.register_game(_game_type(pyspiel.GameType.Utility.ZERO_SUM), ShuangkouGame)


_register()
