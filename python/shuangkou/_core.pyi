"""Shuangkou (双扣) rules core: card parsing, pattern reading, comparison, move generation.

Type stubs for the pybind11 module built from cpp/bindings/*.cc. Names starting
with an underscore exist only here, for typing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypedDict, type_check_only

import numpy
import numpy.typing
from typing_extensions import TypeAlias

# Cards: a card string ("5 6 7 8 BJ", "10" for T) or a sequence of card tokens.
_Cards: TypeAlias = str | Sequence[str]
# A keyword override of a variant parameter: bools as true/false, ints, text,
# or a collection of jokers for wild / wild_jokers.
_Override: TypeAlias = str | int | list[str] | tuple[str, ...] | set[str]
_Variant: TypeAlias = "str | os.PathLike[str] | Rules"  # a preset name, a YAML path or a Rules
_Kind: TypeAlias = Literal[
    "single",
    "pair",
    "triple",
    "straight",
    "pair_chain",
    "triple_chain",
    "bomb",
    "chain_bomb",
    "uneven_chain_bomb",
    "three_kings",
    "heavenly_kings",
]
_Outcome: TypeAlias = Literal["double", "single", "draw"]
# One action of a deal: (seat, the play), or (seat, None) for a pass.
_Action: TypeAlias = tuple[int, Play | None]
# Per-deal result arrays (scores, places, outcome, leader, bombs, max_stars,
# overtakes, actions, plays, bombs_by_stars); integer dtypes that differ by key.
_ResultArrays: TypeAlias = dict[str, numpy.typing.NDArray[numpy.integer[Any]]]

@type_check_only
class _ScoreBreakdown(TypedDict):
    outcome: _Outcome
    base: list[int]
    multiplier: int
    contribution: list[int]
    total: list[int]

@type_check_only
class _Observation(TypedDict):
    seat: int
    hand: str
    partner_hand: str | None
    cards_left: list[int]
    played: list[str]
    top: Play | None
    top_owner: int | None
    passes: int
    finish_order: list[int]
    scores: list[int]
    history: list[_Action]

@type_check_only
class _RevealedCard(TypedDict):
    id: int
    rank: str
    holder: int
    other_copy_holder: int

@type_check_only
class _MatchResult(TypedDict):
    seating: list[int]
    finish_order: list[int]
    outcome: _Outcome
    points: list[int]

@type_check_only
class _ObservationSlice(TypedDict):
    name: str
    offset: int
    size: int
    meaning: str

@type_check_only
class _EnvState(TypedDict):
    current_player: int
    hands: list[str]

# pybind11_builtins.pybind11_type, the metaclass of every class below.
@type_check_only
class _pybind11_type(type): ...

ARCH: str
RANKS: tuple[str, ...]  # rank tokens, lowest ("3") to highest ("BJ")
MAX_MOVES: int
OUTCOMES: tuple[str, str, str]
MAX_THREADS: int
MAX_LEAF_PLIES: int
GAME_STATE_BYTES: int
DEAL_RESULT_BYTES: int
MOVE_FEATURE_SIZE: int

class Play(metaclass=_pybind11_type):
    """A play: a card set with one reading (kind, key, stars). Not constructible from Python."""

    @property
    def kind(self) -> _Kind: ...
    @property
    def cards(self) -> str:
        """The cards played, low to high, jokers last."""
    @property
    def reading(self) -> str:
        """The cards after wild substitution."""
    @property
    def key(self) -> str:
        """The rank compared: the highest rank of the reading."""
    @property
    def stars(self) -> int:
        """0 for non-bombs; bomb stars (card count under bomb_order=count)."""
    @property
    def is_bomb(self) -> bool: ...
    def __len__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

class Rules(metaclass=_pybind11_type):
    """Rules of one variant: Rules(preset, **overrides)."""

    def __init__(self, variant: _Variant = "classic", **overrides: _Override) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def catalogue(self) -> ActionCatalogue:
        """The action catalogue of this rule set (built once, shared)."""
    @property
    def num_actions(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __getstate__(self) -> tuple[str, dict[str, str]]: ...
    def __setstate__(self, state: tuple[str, dict[str, str]]) -> None: ...
    @property
    def params(self) -> dict[str, str]:
        """Every variant parameter, as text."""
    # The next three are set on the class by shuangkou.layout when the package is imported.
    @property
    def observation_slices(self) -> Mapping[str, slice]:
        """name -> slice of the observation vector (docs/observation.md)."""
    @property
    def state_slices(self) -> Mapping[str, slice]:
        """name -> slice of the full-information state: the observation's, then all_hands."""
    @property
    def move_feature_slices(self) -> Mapping[str, slice]:
        """name -> slice of a move-feature row."""
    def read(self, cards: _Cards) -> Play | None:
        """Strongest reading of the cards, or None if they are no valid play."""
    def readings(self, cards: _Cards) -> list[Play]:
        """The highest reading of each kind the cards can be read as."""
    def beats(self, a: Play | _Cards, b: Play | _Cards) -> bool:
        """True iff a may be played on b."""
    def legal_moves(self, hand: _Cards, previous: Play | _Cards | None = None) -> list[Play]:
        """All leads when previous is None, else the plays that beat previous."""
    def score(self, finish_order: Sequence[int], bombs: Sequence[tuple[int, _Cards]] = ...) -> list[int]:
        """Final deal scores by seat; bombs are (seat, cards) in the order played."""
    def score_breakdown(
        self, finish_order: Sequence[int], bombs: Sequence[tuple[int, _Cards]] = ...
    ) -> _ScoreBreakdown: ...
    @property
    def score_bounds(self) -> tuple[float, float]:
        """(lowest, highest): no seat scores outside them in a deal under these rules."""

class Game(metaclass=_pybind11_type):
    """One deal: Game(variant, seed=0), or a set deal Game(variant, hands=[4 card strings], leader=0)."""

    def legal_action_ids(self) -> numpy.typing.NDArray[numpy.int64]:
        """Action ids of the legal moves, ascending (0, the pass, first where legal)."""
    def apply_action(self, action: int) -> Play | None:
        """Plays the legal move of an action id; returns the play (None for a pass)."""
    @property
    def rules(self) -> Rules: ...
    def __getstate__(self) -> str: ...
    def __setstate__(self, state: str) -> None: ...
    def __init__(
        self,
        variant: _Variant = "classic",
        seed: int = 0,
        hands: Sequence[_Cards] | None = None,
        leader: int | None = None,
        **overrides: _Override,
    ) -> None: ...
    @staticmethod
    def from_json(record: str) -> Game: ...
    def to_json(self) -> str: ...
    def current_player(self) -> int:
        """The seat to act; -1 once the deal is over."""
    def legal_moves(self) -> list[Play]: ...
    def can_pass(self) -> bool: ...
    def is_leading(self) -> bool: ...
    def apply(self, move: Play | _Cards | None) -> Play | None:
        """Plays a Play, a card string or 'pass' (or None); returns the play made (None for a pass)."""
    def is_over(self) -> bool: ...
    def scores(self) -> list[int]: ...
    def score_breakdown(self) -> _ScoreBreakdown: ...
    def multipliers(self) -> list[int]:
        """[multiplier if seats 0 and 2 win, if seats 1 and 3 win] from the bombs so far."""
    def rewards(self, mode: str = "score") -> list[float]:
        """Each seat's reward: mode 'score', 'win' or 'log'."""
    def outcome(self) -> _Outcome | None: ...
    def hand(self, seat: int) -> str: ...
    def played(self, seat: int) -> str: ...
    def initial_hands(self) -> list[str]: ...
    def top(self) -> Play | None: ...
    def top_owner(self) -> int | None: ...
    def history(self) -> list[_Action]: ...
    def finish_order(self) -> list[int]: ...
    def observation(self, seat: int | None = None) -> _Observation: ...
    @property
    def leader(self) -> int: ...
    @property
    def revealed_card(self) -> _RevealedCard | None: ...
    @property
    def swapped(self) -> tuple[int, int] | None: ...
    @property
    def params(self) -> dict[str, str]: ...
    def clone(self) -> Game: ...
    def __copy__(self) -> Game: ...
    def __deepcopy__(self, memo: dict[int, object]) -> Game: ...

class InfoView(metaclass=_pybind11_type):
    """What one seat may know of a Game, and worlds consistent with it (docs/infoset.md)."""

    def __init__(self, game: Game, seat: int | None = None) -> None: ...
    @property
    def seat(self) -> int: ...
    @property
    def rules(self) -> Rules: ...
    def current_player(self) -> int: ...
    def is_over(self) -> bool: ...
    @property
    def hand(self) -> str: ...
    @property
    def partner_hand(self) -> str | None: ...
    @property
    def cards_left(self) -> list[int]: ...
    def history(self) -> list[_Action]: ...
    def observation(self) -> _Observation: ...
    @property
    def leader(self) -> int: ...
    def legal_action_ids(self) -> numpy.typing.NDArray[numpy.int64]:
        """The seat's legal action ids when it is to act; empty otherwise."""
    def encode_observation(self) -> numpy.typing.NDArray[numpy.float32]: ...
    def sample_world(self, rng: numpy.random.Generator) -> Game:
        """A complete Game consistent with everything the seat knows (hidden cards dealt anew)."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Match(metaclass=_pybind11_type):
    """A match of several deals: Match(variant, seed=0, deals=1)."""

    def to_json(self) -> str: ...
    @staticmethod
    def from_json(record: str) -> Match: ...
    def __copy__(self) -> Match: ...
    def __deepcopy__(self, memo: dict[int, object]) -> Match: ...
    def __getstate__(self) -> str: ...
    def __setstate__(self, state: str) -> None: ...
    def __init__(
        self, variant: _Variant = "classic", seed: int = 0, deals: int = 1, **overrides: _Override
    ) -> None: ...
    @property
    def game(self) -> Game:
        """The current deal (seats, not players)."""
    def next_deal(self) -> None: ...
    def is_over(self) -> bool: ...
    @property
    def num_deals(self) -> int: ...
    @property
    def deals_played(self) -> int: ...
    def totals(self) -> list[int]: ...
    def player_in_seat(self, seat: int) -> int: ...
    def seat_of(self, player: int) -> int: ...
    def seating(self) -> list[int]: ...
    def titles(self) -> list[tuple[int, str]]: ...
    def results(self) -> list[_MatchResult]: ...

class ActionCatalogue(metaclass=_pybind11_type):
    """The fixed action space of a variant: id 0 is the pass, then every pattern."""

    def __init__(self, variant: _Variant = "classic", **overrides: _Override) -> None: ...
    def __len__(self) -> int: ...
    def pattern(self, id: int) -> Play | None: ...
    def id_of(self, play: Play | None) -> int: ...

class QNet(metaclass=_pybind11_type):
    """A Deep Monte-Carlo Q network, evaluated with Eigen (docs/model_format.md)."""

    MAX_WIDTH: int
    MAX_HIDDEN_LAYERS: int
    MAX_HEADER_BYTES: int

    def __init__(
        self,
        obs_size: int,
        move_size: int,
        hidden: Sequence[int],
        tensors: Mapping[str, numpy.typing.ArrayLike],
        metadata: Mapping[str, str] = ...,
    ) -> None: ...
    @staticmethod
    def load(path: str | os.PathLike[str]) -> QNet: ...
    @staticmethod
    def from_bytes(data: bytes) -> QNet: ...
    @staticmethod
    def tensor_shapes(obs_size: int, move_size: int, hidden: Sequence[int]) -> list[tuple[str, list[int]]]: ...
    def to_bytes(self) -> bytes: ...
    @property
    def obs_size(self) -> int: ...
    @property
    def move_size(self) -> int: ...
    @property
    def hidden(self) -> list[int]: ...
    @property
    def metadata(self) -> dict[str, str]: ...
    def with_metadata(self, changes: dict[str, str | None]) -> QNet: ...
    def tensors(self) -> dict[str, numpy.typing.NDArray[numpy.float32]]: ...
    def q_values(
        self, obs: numpy.typing.ArrayLike, moves: numpy.typing.ArrayLike
    ) -> numpy.typing.NDArray[numpy.float32]: ...
    def multiply_adds(self, moves: int) -> int: ...

class _DmcSamples(TypedDict):
    obs: numpy.typing.NDArray[numpy.float32]
    move: numpy.typing.NDArray[numpy.float32]
    target: numpy.typing.NDArray[numpy.float32]
    version: numpy.typing.NDArray[numpy.int64]
    seat: numpy.typing.NDArray[numpy.int8]
    deal: numpy.typing.NDArray[numpy.int64]

class DmcActors(metaclass=_pybind11_type):
    """Deep Monte-Carlo actors in C++: the learning seats played by one Q network, epsilon-greedy
    (every seat, or seats 0 and 2 against an opponent bot), a teacher bot taking a share."""

    def __init__(
        self,
        variant: _Variant,
        net: QNet,
        version: int = 0,
        num_envs: int = 64,
        seed: int = 0,
        threads: int = 0,
        reward: str = "win",
        epsilon: float = 0.01,
        deals: int = -1,
        opponent: str | Bot | None = None,
        teacher: str | Bot | None = None,
        teacher_prob: float = 0.0,
    ) -> None: ...
    def set_network(self, net: QNet, version: int) -> None: ...
    def set_teacher_prob(self, p: float) -> None:
        """The share of the learning seats' decisions the teacher makes, from the next decision on."""
    def collect(self, min_samples: int) -> _DmcSamples: ...
    @property
    def deals_finished(self) -> int: ...
    @property
    def decisions(self) -> int: ...

class VectorEnvCore(metaclass=_pybind11_type):
    """The C++ vector env (see shuangkou.VectorEnv)."""

    @property
    def seed(self) -> int: ...
    @property
    def final_obs(self) -> numpy.typing.NDArray[numpy.float32]:
        """[num_envs, 4, obs_size]: the final observation of each finished deal, by seat."""
    def current_game(self, env: int) -> Game: ...
    def finished_game(self, env: int) -> Game: ...
    def copy(self) -> VectorEnvCore: ...
    def __copy__(self) -> VectorEnvCore: ...
    def __deepcopy__(self, memo: dict[int, object]) -> VectorEnvCore: ...
    def start_at(self, env: int, episode: int) -> None: ...
    def finished_indices(self, envs: Sequence[int]) -> list[int]: ...
    @property
    def rules(self) -> Rules: ...
    def __init__(
        self,
        variant: _Variant,
        num_envs: int,
        seed: int,
        threads: int,
        bots: Sequence[str | Bot | None],
        reward: str,
        dense_mask: bool,
        deals: int = -1,
        first_deal: int = 0,
        **overrides: _Override,
    ) -> None: ...
    @staticmethod
    def episode_seed(seed: int, env: int, episode: int) -> int: ...
    def reset(self, seed: int | None = None) -> None: ...
    def step(self, actions: numpy.typing.NDArray[numpy.int32] | Sequence[int]) -> None: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def obs(self) -> numpy.typing.NDArray[numpy.float32]: ...
    @property
    def mask(self) -> numpy.typing.NDArray[numpy.int8] | None: ...
    @property
    def current_player(self) -> numpy.typing.NDArray[numpy.int8]: ...
    @property
    def rewards(self) -> numpy.typing.NDArray[numpy.float32]: ...
    @property
    def dones(self) -> numpy.typing.NDArray[numpy.uint8]: ...
    @property
    def final_scores(self) -> numpy.typing.NDArray[numpy.int64]: ...
    @property
    def episodes(self) -> numpy.typing.NDArray[numpy.int64]: ...
    @property
    def legal_ids(self) -> numpy.typing.NDArray[numpy.int32]: ...
    @property
    def legal_offsets(self) -> numpy.typing.NDArray[numpy.int64]: ...
    @property
    def legal_features(self) -> numpy.typing.NDArray[numpy.float32]: ...
    def state_json(self, env: int) -> _EnvState: ...
    def recent_actions(self, env: int) -> list[_Action]: ...
    def finished_results(self, envs: Sequence[int]) -> _ResultArrays: ...

def parse_cards(cards: _Cards) -> str:
    """Validates cards and returns them normalised: tokens low to high, jokers last."""

def preset_names() -> list[str]: ...
def param_names() -> list[str]: ...

@type_check_only
class _ParamRow(TypedDict):
    name: str
    allowed: str
    description: str
    presets: dict[str, str]

def param_table() -> list[_ParamRow]: ...
def preset_description(name: str) -> str: ...
def preset_yaml(name: str) -> str: ...
def variant_to_yaml(rules: Rules) -> str: ...
def variant_from_entries(
    entries: Sequence[tuple[str, str, int] | tuple[str, str, int, str]], source: str | os.PathLike[str]
) -> Rules:
    """The rule set a variant config file describes, from its (name, value text, line[, shape]) entries
    (shuangkou.config.read_entries), named `source`; ValueError starting with source:line otherwise."""

class _BotRow(TypedDict):
    name: str
    argument: str
    argument_name: str
    description: str
    guides_search: bool

class Bot(metaclass=_pybind11_type):
    """A built-in bot, made once and played in C++ (docs/heuristic.md): Bot('heuristic'),
    Bot('search:400'), Bot('dmc:PATH'), or Bot.dmc(qnet) for a network in memory."""

    def __init__(self, name: str | Bot) -> None: ...
    @staticmethod
    def dmc(qnet: QNet, name: str = "qnet") -> Bot:
        """The dmc bot playing a copy of `qnet` as it is now, labelled `name`."""
    @property
    def name(self) -> str: ...
    @property
    def slow(self) -> bool: ...
    def step(self, game: Game, seed: int | None = None) -> int:
        """The legal action id the bot plays for the player to act in `game`."""
    def values(self, game: Game) -> dict[int, float] | None:
        """{legal action id: value} (the dmc bot's Q values), or None for bots that rate none."""
    def counters(self) -> dict[str, int]:
        """Statistics of its play so far: {'decisions', 'searched', 'changed'} for a guided search."""
    def check_variant(self, variant: str | os.PathLike[str] | Rules) -> None:
        """None if the bot can play `variant`; ValueError naming the problem if not (the built-in
        'dmc' plays only the rule sets it ships a network for)."""
    def __copy__(self) -> Bot: ...
    def __deepcopy__(self, memo: dict[int, object]) -> Bot: ...
    def __getstate__(self) -> tuple[str]: ...
    def __setstate__(self, state: tuple[str]) -> None: ...

def bot_registry() -> list[_BotRow]:
    """The built-in bots, one dict a row, in the order help texts list them."""

GUIDED_SEARCH: dict[str, str | int]
"""The guided search "NAME+search[:ROLLOUTS[:PLIES]]" on a bot that guides_search: suffix,
argument_name, default, max, description (PLIES: short rollouts, docs/heuristic.md)."""

def bot_names() -> list[str]: ...
def bot_label(name: str | Bot) -> str:
    """The canonical name of a bot ('heuristic', 'search:400'); ValueError naming an unknown bot or a bad argument."""

def set_rules_loader(loader: Callable[[str], Rules] | None) -> None:
    """Registers the reader of variant config files that constructors given a path call:
    loader(path) -> Rules (the package registers shuangkou.config.load_rules at import); None
    unregisters it."""

def set_builtin_models(models: dict[str, str | os.PathLike[str]]) -> None:
    """The model files the bot 'dmc' (without a path) plays, {preset: path}: each rule set its own
    network. ValueError, changing nothing, for an unknown or repeated preset."""

def builtin_models() -> dict[str, str]:
    """{preset: model file} of the built-in 'dmc': the rule sets it plays."""

def level_title(total_points: int) -> tuple[int, str]:
    """(level number, title) for accumulated points."""

def observation_size() -> int: ...
def observation_layout() -> list[_ObservationSlice]: ...
def move_feature_layout() -> list[_ObservationSlice]:
    """The move-feature row's slices (encode_moves): name, offset, size, meaning."""

def encode_observation(game: Game, seat: int) -> numpy.typing.NDArray[numpy.float32]: ...
def state_size() -> int: ...
def state_layout() -> list[_ObservationSlice]: ...
def encode_state(game: Game, seat: int) -> numpy.typing.NDArray[numpy.float32]: ...
def encode_moves(plays: Sequence[Play | None]) -> numpy.typing.NDArray[numpy.float32]: ...
def label_deals(
    variant: _Variant,
    deals: int,
    agents: Sequence[str | Bot],
    weights: Sequence[float],
    seed: int = 0,
    first: int = 0,
    threads: int = 0,
    label_prob: float = 0.25,
    worlds: int = 32,
    all_legal_up_to: int = 12,
    max_candidates: int = 16,
    random_candidates: int = 2,
    guide: str | Bot | None = None,
    guide_top: int = 4,
    probe: str | Bot | None = None,
    with_state: bool = True,
    world_salt: int = 0,
    leaf: str | Bot | None = None,
    leaf_plies: int = 4,
    progress: Callable[[int], bool] | None = None,
) -> dict[str, numpy.typing.NDArray[Any]]:
    """Low-level expert labeller (see shuangkou.expert.labels and docs/labels.md): deals
    first..first+deals-1 of the seed played by the agents, sampled decisions' candidates
    scored by determinized rollouts; numpy arrays (the shard format's)."""

def run_selfplay(
    variant: _Variant,
    games: int,
    agents: Sequence[str | Bot],
    threads: int = 0,
    seed: int = 0,
    replays: int = 0,
    on_records: Callable[[list[str]], object] | None = None,
    progress: Callable[[int], bool] | None = None,
    first: int = 0,
    **overrides: _Override,
) -> _ResultArrays:
    """Low-level batch self-play (see shuangkou.selfplay): per-deal numpy arrays.

    replays: deals to record (-1: all); their JSON records go to on_records, a block at a time.
    """
