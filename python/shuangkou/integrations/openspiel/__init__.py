"""Shuangkou as an OpenSpiel game, and agents both ways (needs OpenSpiel:
``bash scripts/setup.sh --openspiel``, or ``pip install '.[openspiel]' in the clone``).

Importing this module registers the game ``python_shuangkou`` with pyspiel::

    import pyspiel
    import shuangkou.integrations.openspiel  # noqa: F401 - registers python_shuangkou

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

from .agents import AgentBot, OpenSpielAgent, as_openspiel_bot, ismcts_bot
from .game import (
    GAME_NAME,
    INSTALL_HINT,
    MAX_SIMULATIONS,
    ShuangkouGame,
    ShuangkouState,
    is_zero_sum,
    load_game,
    utility_bounds,
)

__all__ = [
    "GAME_NAME",
    "INSTALL_HINT",
    "MAX_SIMULATIONS",
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
