"""Gymnasium single-agent environment: one learner (a seat, or a seat and its partner)
against opponents played by a built-in C++ bot or by a Python callable.

    import gymnasium as gym
    import shuangkou  # registers "shuangkou/Shuangkou-v0"

    env = gym.make("shuangkou/Shuangkou-v0", variant="baibian", opponents="heuristic")
    obs, info = env.reset(seed=0)
    while True:
        action = env.action_space.sample(mask=info["action_mask"])  # any legal id
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated:
            break

One episode is one deal. The env drives a one-env `shuangkou._core.VectorEnvCore`:
every rule, move list, observation and bot move is computed in C++.

Observations: the float32 vector of `shuangkou._core.observation_layout()` (445
floats), from the point of view of the seat to act (`info["current_player"]`: the
learner's seat, or with `control_partner` either of its team's seats). Actions: ids of the variant's action
catalogue (`shuangkou.envs.actions.catalogue`, 0 = pass). The legal ones are
`info["action_mask"]` (int8, 1 = legal) and `action_masks()` (bool, the sb3-contrib
MaskablePPO convention). An illegal action raises ValueError (or, with
`illegal_action="random"`, is replaced by a uniformly random legal one and flagged in
`info["illegal_action"]`: that mode exists for tools such as gymnasium's `check_env`
that step unmasked random actions).

Rewards are 0 until the deal ends, then the learner seat's reward, as the core computes
it: "win" +1 / -1 by team result and 0 for a draw (平扣); "score" the deal score of the
seat (`final_scores[seat]`); "log" sign(score) * log(1 + |score|). With
`control_partner` the reward is that of `seat` (in "win" mode both seats get the same).

End of a deal and the terminal observation: the C++ core moves on to the next deal the
moment a deal ends (auto-reset). The step that ends a deal returns terminated=True with
the final reward and the deal's results (from the core's `finished_results`):
`info["final_scores"]` (deal scores by seat, int64 [4]), `info["outcome"]` ("double",
"single" or "draw": 双扣 / 单扣 / 平扣, as `sk.Game.outcome()`), `info["places"]` (seats
by finishing place), `info["result"]` ("win", "loss" or "draw" for the learner's team)
and `info["finished_deal_seed"]`; the observation (and `info["action_mask"]`,
`info["current_player"]`, `info["deal_seed"]`) it returns is already the learner's
first decision of the NEXT deal (with callable opponents, they have already made their
opening moves of it). The following `reset()` (without a seed) starts exactly that
deal and returns that same observation, so no deal is skipped or cut short. A
`reset()` in the middle of a deal (or right after another reset) abandons it and
starts a fresh deal from a seed drawn from the env's `np_random`; `reset(seed=s)`
restarts the sequence: after it, the k-th deal played to its end (k = 0, 1, ...) is
dealt from `shuangkou.VectorEnv.episode_seed(s, 0, k)`, which `sk.Game(variant,
seed=..., **overrides)` deals too. Calling `step()` after termination without a
`reset()` plays on in the next deal.

Rendering ("ansi" returns the text, "human" prints it on each reset and step): a
parallel `sk.Game` mirror of the deal, kept only when render_mode is set, rebuilt from
the actions the learner and callable opponents send and from the core's recent actions
(the bots' moves). It shows the table as the learner seat sees it. The
bots' last moves after the learner's last decision of a deal are not seen by the
learner, so the terminal frame shows the table at the learner's last move plus the
result line.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .. import _core
from .._args import int_arg
from .._core import Game
from .actions import catalogue as _catalogue
from .render import render_game

ENV_ID = "shuangkou/Shuangkou-v0"
REWARDS = ("win", "score", "log")
ILLEGAL_ACTION = ("raise", "random")
_OUTCOMES = ("double", "single", "draw")  # DealResult.outcome codes

Opponent = Callable[[np.ndarray, np.ndarray, int], int]


def _as_action(action: Any, what: str) -> int:
    """An action id from an int, a numpy integer or a one-element integer array."""
    if isinstance(action, np.ndarray):
        if action.size != 1 or not np.issubdtype(action.dtype, np.integer):
            raise ValueError(f"{what} must be one integer action id, got an array {action.dtype} {action.shape}")
        action = action.reshape(()).item()
    if isinstance(action, (bool, np.bool_)):
        raise ValueError(f"{what} must be an integer action id, got {action!r}")
    try:
        return operator.index(action)
    except TypeError:
        raise ValueError(f"{what} must be an integer action id, got {action!r}") from None


class ShuangkouEnv(gymnasium.Env):
    """One learner against bots: see the module docstring.

    variant: a preset (classic, baibian, qianbian, qianbian_collect, jj) or a YAML file;
    overrides: any variant parameter (e.g. team_formation="fixed").
    opponents: a built-in bot name ("random", "heuristic"), played inside C++, or a
    callable opponents(observation, action_mask, seat) -> action id, called for every
    seat the learner does not play (observation float32 [obs_size] and mask int8
    [num_actions] are copies, from that seat's point of view).
    seat: the learner's seat (0..3); control_partner: the learner also plays seat ^ 2.
    reward: "win", "score" or "log". illegal_action: "raise" (ValueError) or "random".
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 2}

    def __init__(
        self,
        variant: str = "baibian",
        opponents: str | Opponent = "heuristic",
        seat: int = 0,
        control_partner: bool = False,
        reward: str = "win",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **overrides: Any,
    ) -> None:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < 4:
            raise ValueError(f"seat must be 0..3, got {seat!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if illegal_action not in ILLEGAL_ACTION:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTION)}, got {illegal_action!r}")
        if render_mode == "rgb_array":
            # stable-baselines3's make_vec_env asks every env id for "rgb_array" by default
            gymnasium.logger.warn("ShuangkouEnv renders text only ('ansi', 'human'): render_mode='rgb_array' ignored")
            render_mode = None
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.variant = variant
        self.seat = int(seat)
        if not isinstance(control_partner, (bool, np.bool_)):
            raise ValueError(f"control_partner must be True or False, got {control_partner!r}")
        self.control_partner = bool(control_partner)
        self.learner_seats = (self.seat, self.seat ^ 2) if self.control_partner else (self.seat,)
        self.reward_mode = reward
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.overrides = dict(overrides)

        if callable(opponents):
            self._opponent: Opponent | None = opponents
            self._bots: list[str | None] = [None] * 4
        elif isinstance(opponents, str):
            if opponents not in _core.bot_names():
                raise ValueError(
                    f"opponents: a built-in bot ({', '.join(_core.bot_names())}) or a callable, got {opponents!r}"
                )
            self._opponent = None
            self._bots = [None if s in self.learner_seats else opponents for s in range(4)]
        else:
            raise ValueError(f"opponents: a built-in bot name or a callable, got {opponents!r}")
        self.opponents = opponents

        self._core: Any = None
        self._core_seed = 0
        self._closed = False
        self._broken: str | None = None  # why the last step failed midway, until reset()
        self._make_core(0)  # validates the variant, overrides and bots now
        self.num_actions = int(self._core.num_actions)
        self.observation_size = int(_core.observation_size())
        self.catalogue = _catalogue(variant, **overrides)
        self.observation_space = spaces.Box(-100.0, 100.0, (self.observation_size,), np.float32)
        self.action_space = spaces.Discrete(self.num_actions)

        self._started = False  # reset() called at least once
        self._needs_new_deal = True  # the core's current deal has been (partly) played: reset() deals anew
        self._ended = False  # the last step ended a deal (the core is in the next one)
        self._obs = np.zeros(self.observation_size, np.float32)
        self._mask = np.zeros(self.num_actions, np.int8)
        self._current = self.seat
        self._deal_seed = 0
        # Rendering: the mirror of the deal shown, and of the core's deal when it differs.
        self._mirror = render_mode is not None
        self._game: Game | None = None
        self._next_game: Game | None = None
        self._result_line = ""

    # ------------------------------------------------------------------ core access
    def _make_core(self, seed: int) -> None:
        # Build first, then assign: a core that fails to build changes nothing.
        core = _core.VectorEnvCore(self.variant, 1, int(seed), 1, self._bots, self.reward_mode, True, **self.overrides)
        self._core, self._core_seed = core, int(seed)
        self._mirror_dirty = True

    def _current_deal_seed(self) -> int:
        return int(_core.VectorEnvCore.episode_seed(self._core_seed, 0, int(self._core.episodes[0]) - 1))

    def _read_core(self) -> None:
        c = self._core
        self._obs = np.array(c.obs[0], dtype=np.float32, copy=True)
        self._mask = np.array(c.mask[0], dtype=np.int8, copy=True)
        self._current = int(c.current_player[0])

    def _core_step(self, action: int) -> dict[str, Any] | None:
        """Steps the core; returns the results of a deal it finished (else None)."""
        c = self._core
        c.step(np.array([action], dtype=np.int32))
        self._mirror_dirty = True
        if not c.dones[0]:
            return None
        res = c.finished_results([0])
        return {
            "rewards": np.array(c.rewards[0], dtype=np.float32, copy=True),
            "final_scores": np.array(c.final_scores[0], dtype=np.int64, copy=True),
            "outcome": _OUTCOMES[int(res["outcome"][0])],
            "places": [int(x) for x in res["places"][0]],
        }

    # ------------------------------------------------------------------ opponents
    def _play_opponents(self) -> dict[str, Any] | None:
        """Callable opponents act until a learner seat must act. The results of a deal
        they end are returned, and the next deal is played up to the learner."""
        ended = None
        while self._opponent is not None and int(self._core.current_player[0]) not in self.learner_seats:
            seat = int(self._core.current_player[0])
            obs = np.array(self._core.obs[0], dtype=np.float32, copy=True)
            mask = np.array(self._core.mask[0], dtype=np.int8, copy=True)
            a = _as_action(self._opponent(obs, mask, seat), f"opponents(...) for seat {seat}")
            if not 0 <= a < self.num_actions or not mask[a]:
                raise ValueError(f"opponents(...) chose action {a} for seat {seat}, which is not legal there")
            finished = self._core_step(a)
            self._mirror_action(seat, a)
            if finished is not None:
                ended = finished
                self._mirror_new_deal()
        return ended

    def _run_opponents(self) -> dict[str, Any] | None:
        """_play_opponents, marking the env unusable until reset() if the callable fails:
        the deal would otherwise go on with the learner's next action at an opponent's seat."""
        try:
            return self._play_opponents()
        except BaseException as e:
            self._broken = f"{type(e).__name__}: {e}"
            raise

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if self._closed:
            raise RuntimeError("the env is closed: make a new one")
        if seed is not None:
            seed = int_arg(seed, "seed", 0, 2**64 - 1)  # before anything changes
        super().reset(seed=seed)
        self._broken = None
        fresh_core = seed is not None or not self._started or self._needs_new_deal
        if seed is not None:
            self._make_core(seed)
        elif fresh_core:
            self._make_core(int(self.np_random.integers(0, np.iinfo(np.int64).max)))
        # else: the last deal ended and the core already holds the next one: play that.
        self._started = True
        self._ended = False
        if fresh_core:
            self._mirror_reset()
            self._run_opponents()  # cannot end a deal: the learner has not played yet
        else:
            self._mirror_promote()
        self._needs_new_deal = True  # a reset() from here on deals anew (unless a deal ends first)
        self._read_core()
        self._mirror_sync()
        self._deal_seed = self._current_deal_seed()
        if self.render_mode == "human":
            self._print()
        return self._obs.copy(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._closed:
            raise RuntimeError("the env is closed: make a new one")
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._broken is not None:
            raise RuntimeError(
                f"the last step stopped when the opponents callable raised ({self._broken}); "
                "the deal cannot go on: call reset()"
            )
        if self._ended:  # stepping on after a terminated deal: the next deal is in place
            self._ended = False
            self._mirror_promote()
        self._needs_new_deal = True  # a reset() from here on abandons this deal
        a = _as_action(action, "action")
        illegal = not 0 <= a < self.num_actions or not self._mask[a]
        if illegal:
            if self.illegal_action == "raise":
                legal = np.flatnonzero(self._mask).tolist()
                raise ValueError(
                    f"action {a} is not legal for seat {self._current} "
                    f"({'not an action id' if not 0 <= a < self.num_actions else 'legal ids: ' + str(legal)})"
                )
            a = int(self.np_random.choice(np.flatnonzero(self._mask)))
        actor = self._current
        finished = self._core_step(a)
        self._mirror_action(actor, a)
        if finished is not None:
            self._mirror_new_deal()
        more = self._run_opponents()
        if finished is None:
            finished = more
        done = finished is not None
        self._read_core()
        self._mirror_sync()
        finished_seed = self._deal_seed
        self._deal_seed = self._current_deal_seed()
        info_extra: dict[str, Any] = {}
        reward = 0.0
        if finished is not None:
            reward = float(finished["rewards"][self.seat])
            places = finished["places"]
            result = "draw" if finished["outcome"] == "draw" else ("win" if places[0] % 2 == self.seat % 2 else "loss")
            info_extra = {
                "final_scores": finished["final_scores"],
                "outcome": finished["outcome"],
                "result": result,
                "places": places,
                "finished_deal_seed": finished_seed,
            }
            self._result_line = (
                f"deal over: {finished['outcome']}, places {places}, learner team {result}, "
                f"final scores {finished['final_scores'].tolist()}, reward {reward:g}"
            )
            self._ended = True
            self._needs_new_deal = False
        info = self._info()
        info.update(info_extra)
        if illegal:
            info["illegal_action"] = True
        if self.render_mode == "human":
            self._print()
        return self._obs.copy(), float(reward), bool(done), False, info

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self._mask.copy(),
            "current_player": self._current,
            "deal_seed": self._deal_seed,
        }

    def action_masks(self) -> np.ndarray:
        """The legal actions of the observation last returned (bool [num_actions])."""
        return self._mask.astype(bool)

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self._mask).tolist()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called with render_mode=None: pass render_mode='ansi' or 'human'")
            return None
        text = self._render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        self._closed = True
        self._core = None
        self._game = self._next_game = None

    # ------------------------------------------------------------------ rendering mirror
    def _render_text(self) -> str:
        if self._game is None:
            return "(no deal yet: call reset())"
        seat = self._current if (not self._ended and self._current in self.learner_seats) else self.seat
        text = render_game(self._game, seat=seat)
        if self._ended:
            text += "\n" + self._result_line
        return text

    def _print(self) -> None:
        print(self._render_text() + "\n")

    def _live_game(self) -> Game | None:
        return self._next_game if self._next_game is not None else self._game

    def _mirror_reset(self) -> None:
        if self._mirror:
            self._game = Game(self.variant, seed=self._current_deal_seed(), **self.overrides)
            self._next_game = None

    def _mirror_new_deal(self) -> None:
        """The core has moved on to a new deal; the shown mirror keeps the finished one."""
        if self._mirror:
            self._next_game = Game(self.variant, seed=self._current_deal_seed(), **self.overrides)

    def _mirror_promote(self) -> None:
        if self._mirror and self._next_game is not None:
            self._game, self._next_game = self._next_game, None

    def _mirror_action(self, seat: int, action: int) -> None:
        g = self._live_game()
        if g is None or g.is_over():
            return
        if g.current_player() != seat:
            raise RuntimeError(f"render mirror out of step: seat {seat} acted, the mirror expects {g.current_player()}")
        if action == 0:
            g.apply("pass")
            return
        for m in g.legal_moves():
            if self.catalogue.id_of(m) == action:
                g.apply(m)
                return
        raise RuntimeError(f"render mirror out of step: action {action} is not legal for seat {seat} there")

    def _mirror_sync(self) -> None:
        """Replays into the live mirror the bot moves the core made since the last
        external move (the core keeps the last 8 actions of the current deal)."""
        g = self._live_game()
        if g is None or not self._mirror_dirty:
            return
        self._mirror_dirty = False
        recent = self._core.recent_actions(0)
        if len(recent) < 8:  # the whole deal so far
            new = recent[len(g.history()) :]
        else:  # the bot moves are those after the last move of an external seat
            external = {s for s in range(4) if self._bots[s] is None}
            last = max((i for i, (seat, _) in enumerate(recent) if seat in external), default=-1)
            new = recent[last + 1 :]
        for seat, play in new:
            if g.current_player() != seat:
                raise RuntimeError(
                    f"render mirror out of step: seat {seat} acted, the mirror expects {g.current_player()}"
                )
            g.apply(play if play is not None else "pass")
