"""Gymnasium single-agent environment: one learner (a seat, or a seat and its partner)
against opponents played by a built-in C++ bot or by a Python agent (shuangkou.agents).

    import gymnasium as gym
    import shuangkou  # registers "shuangkou/Shuangkou-v0"

    env = gym.make("shuangkou/Shuangkou-v0", variant="baibian", opponents="heuristic")
    obs, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        action = env.action_space.sample(mask=info["action_mask"])  # any legal id
        obs, reward, terminated, truncated, info = env.step(action)

One episode is one deal. The env drives a one-env `shuangkou._core.VectorEnvCore`:
every rule, move list, observation, bot move and id <-> move mapping is in C++.

Observations: the float32 vector of `shuangkou._core.observation_layout()` (445
floats), from the point of view of the learner seat to act (`info["current_player"]`:
the learner's seat, or with `control_partner` either of its team's seats). Actions:
ids of the variant's action catalogue (`env.unwrapped.rules.catalogue`, 0 = pass).

Masks: `info["action_mask"]` is int8 [num_actions] (1 = legal), the form
`Discrete.sample(mask=...)` takes; `action_masks()` returns the same as bool, the
sb3-contrib MaskablePPO convention (reach it through wrappers with
`env.unwrapped.action_masks()` or `env.get_wrapper_attr("action_masks")()`).

Actions outside the action space (-1, `num_actions` and up, a float, a string, a bool)
are the caller's error: ValueError naming the action and the space, and nothing changes.
Illegal actions, ids of the space that the mask forbids (`illegal_action=`):
"terminate" (the default, as PettingZoo's classic envs do): the deal ends at once, the
learner gets `illegal_reward` (default -1.0), a warning names the action, and
`info["illegal_action"]` is True; "raise": ValueError, nothing changes; "random": a
uniformly random legal action is played instead (and flagged in `info["illegal_action"]`).

Rewards are 0 until the deal ends, then the learner seat's reward as the core computes
it: "win" (the default) +1 / -1 by team result and 0 for a draw (平扣), zero-sum; "score"
the deal score of the seat, not zero-sum in every variant (the common base table's draw
row and team contributions); "log" sign(score) * log(1 + |score|).

The episode contract: the step that ends a deal returns terminated=True with that
deal's final observation (from the learner seat's view), the final reward and the
deal's results; the next deal starts at `reset()`. `info` values are numpy scalars
or arrays of fixed dtypes: always `action_mask` (int8 [num_actions]; all 0 at the
end), `current_player` (int64; -1 at the end) and `deal_seed` (uint64, the deal's
seed: `sk.Game(variant, seed=...)` deals it); at the end also `final_scores` (int64
[4], by seat), `outcome` (int8: 0 double 双扣, 1 single 单扣, 2 draw 平扣) and its name
`outcome_name` (str: "double", "single" or "draw", `shuangkou._core.OUTCOMES`), `places`
(int8 [4], seats by finishing place), `result` (int8: +1 win, 0 draw, -1 loss for the
learner's team) and `illegal_action` (a 0-d bool array, so vector envs batch it as bool).

Deals: `reset(seed=s)` starts the sequence of seed s: the k-th deal (k = 0, 1, ...)
is dealt from `shuangkou.VectorEnv.episode_seed(s, 0, k)`. A `reset()` without a seed
after a finished deal plays the next deal of the sequence; in the middle of a deal (or
as the first call) it starts a fresh sequence from a seed drawn from the env's
`np_random`.

Rendering ("ansi" returns the text, "human" prints it on each reset and step,
"rgb_array" returns that text drawn as an image, uint8 [H, W, 3]) is drawn from the
core's own record of the deal, as the learner seat sees it.

The env pickles and deep-copies: a copy plays on independently from the same position.
"""

from __future__ import annotations

import copy
import operator
import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .. import _core
from ..agents import AgentLike, agent_label, decide, is_bot, reset_agent, resolve_agent
from ..util.checks import int_arg
from .actions import rules_of
from .options import DEFAULT_REWARD, check_illegal_action, check_reward, observation_box
from .registration import ENV_ID  # noqa: F401 - (re-exported: the id gymnasium.make takes)
from .render import render_game, text_image


def _as_action(action: Any, what: str) -> int:
    """An action id from an int, a numpy integer or a one-element integer array."""
    if isinstance(action, np.ndarray):
        if action.size != 1 or not np.issubdtype(action.dtype, np.integer):
            raise ValueError(f"{what} must be one integer action id, got an array {action.dtype} {action.shape}")
        action = action.reshape(()).item()
    if isinstance(action, (bool, np.bool_)):
        raise ValueError(f"{what} must be an integer action id, got {action!r:.60}")
    try:
        return operator.index(action)
    except TypeError:
        raise ValueError(f"{what} must be an integer action id, got {action!r:.60}") from None


class ShuangkouEnv(gymnasium.Env):
    """One learner against bots: see the module docstring.

    variant: a preset (classic, baibian, qianbian, qianbian_collect, jj), a YAML file or a
    `shuangkou.Rules`; overrides: any variant parameter (e.g. team_formation="fixed").
    opponents: the agent of every seat the learner does not play (shuangkou.agents): a
    built-in bot name ("random", "greedy", "heuristic", "search:64", ...), played inside
    C++, or a batched callable opponents(obs, mask, seats) -> action ids or a
    shuangkou.Agent, called with one decision at a time (B = 1, from that seat's view).
    seat: the learner's seat (0..3); control_partner: the learner also plays seat ^ 2.
    reward: "win" (default), "score" or "log".
    illegal_action: "terminate" (default), "raise" or "random"; illegal_reward: the
    learner's reward for an illegal action under "terminate".
    render_mode: None, "ansi", "human" or "rgb_array". docs/envs.md documents every
    argument.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        variant: Any = "baibian",
        opponents: AgentLike = "heuristic",
        seat: int = 0,
        control_partner: bool = False,
        reward: str = DEFAULT_REWARD,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        **overrides: Any,
    ) -> None:
        self.seat = int_arg(seat, "seat", 0, 3)
        if not isinstance(control_partner, (bool, np.bool_)):
            raise ValueError(f"control_partner must be True or False, got {control_partner!r}")
        check_reward(reward)
        illegal_reward = check_illegal_action(illegal_action, illegal_reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.rules = rules_of(variant, **overrides)  # resolved once; its catalogue is the core's
        self.variant = variant if isinstance(variant, str) else self.rules.name
        self.control_partner = bool(control_partner)
        self.learner_seats = (self.seat, self.seat ^ 2) if self.control_partner else (self.seat,)
        self.reward_mode = reward
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)

        opponent = resolve_agent(opponents)  # ValueError naming a bad name or module:callable
        if is_bot(opponent):
            self._opponent: AgentLike | None = None
            self._bots: list[_core.Bot | None] = [None if s in self.learner_seats else opponent for s in range(4)]
        else:
            self._opponent = opponent
            self._bots = [None] * 4
            reset_agent(opponent, self.rules, f"opponents {agent_label(opponent)}")  # AgentError if it raises
        self.opponents = opponents

        self._core = _core.VectorEnvCore(self.rules, 1, 0, 1, self._bots, self.reward_mode, True)
        self.num_actions = int(self._core.num_actions)
        self.observation_size = int(_core.observation_size())
        self.catalogue = self.rules.catalogue
        self.observation_space = observation_box(self.observation_size)
        self.action_space = spaces.Discrete(self.num_actions)

        # "idle": reset() deals anew; "playing"; "ended": the deal just ended (the core
        # holds the next deal of the sequence, untouched); "broken": an opponent callable
        # raised mid-step; "closed".
        self._phase = "idle"
        self._why_broken = ""
        self._in_opponent = False  # an opponent callable is deciding (step/reset refused meanwhile)
        self._actions: list[int] = []  # external actions of the current deal (for pickling)
        self._obs = np.zeros(self.observation_size, np.float32)
        self._mask = np.zeros(self.num_actions, np.int8)
        self._current = self.seat
        self._shown: Any = None  # the Game rendered (None: the core's current deal)
        self._result_line = ""

    # ------------------------------------------------------------------ core access
    def _read_core(self) -> None:
        c = self._core
        self._obs = np.array(c.obs[0], dtype=np.float32, copy=True)
        self._mask = np.array(c.mask[0], dtype=np.int8, copy=True)
        self._current = int(c.current_player[0])

    def _deal_seed(self) -> np.uint64:
        c = self._core
        return np.uint64(_core.VectorEnvCore.episode_seed(c.seed, 0, int(c.episodes[0]) - 1))

    def _step_core(self, action: int) -> bool:
        """Steps the core with one external action; True if that ended the deal."""
        self._core.step(np.array([action], dtype=np.int32))
        self._actions.append(action)
        return bool(self._core.dones[0])

    def _play_opponents(self) -> bool:
        """Callable opponents act until a learner seat must act; True if they end the deal."""
        while self._opponent is not None and int(self._core.current_player[0]) not in self.learner_seats:
            seat = int(self._core.current_player[0])
            try:
                # Checked: an id legal there (ValueError), and an exception of the
                # opponent's own becomes an AgentError naming it.
                self._in_opponent = True
                a = int(decide(self._opponent, self._core, np.array([0]), self.rules, f"opponents for seat {seat}")[0])
            except BaseException as e:
                # The deal cannot go on: the learner's next action would land on this seat.
                self._phase, self._why_broken = "broken", f"{type(e).__name__}: {e}"
                raise
            finally:
                self._in_opponent = False
            if self._step_core(a):
                return True
        return False

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        self._refuse_reentry("reset")
        if self._phase == "closed":
            raise RuntimeError("the env is closed: make a new one")
        if seed is not None:
            seed = int_arg(seed, "seed", 0, 2**64 - 1)  # before anything changes
        super().reset(seed=seed)
        if seed is not None:
            self._core.reset(seed)
        elif self._phase != "ended":  # first call, mid-deal, after an illegal action or a failure
            self._core.reset(int(self.np_random.integers(0, 2**63)))
        # else: the core already holds the next deal of the sequence.
        self._actions = []
        self._shown = None
        self._phase = "playing"
        self._play_opponents()  # cannot end a deal: the learner has not played yet
        self._read_core()
        if self.render_mode == "human":
            self._print()
        return self._obs.copy(), self._info()

    def _refuse_reentry(self, what: str) -> None:
        if self._in_opponent:
            raise RuntimeError(
                f"{what}() called from inside the opponents' decision: an opponent must not step or reset the env "
                "it plays in"
            )

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self._refuse_reentry("step")
        if self._phase != "playing":
            raise RuntimeError(
                {
                    "closed": "the env is closed: make a new one",
                    "idle": "call reset() before step()",
                    "ended": "the deal is over: call reset() to start the next one",
                    "broken": f"the last step stopped when the opponents callable raised ({self._why_broken}); "
                    "the deal cannot go on: call reset()",
                }[self._phase]
            )
        try:
            a = _as_action(action, "action")
        except ValueError as e:
            raise ValueError(f"{e}, an id of the action space {self.action_space}") from None
        if not 0 <= a < self.num_actions:  # a caller's error whatever illegal_action says: nothing changes
            raise ValueError(
                f"action {a} is not in the action space {self.action_space} (ids 0..{self.num_actions - 1}); "
                f"ids of the space that the mask forbids are handled by illegal_action={self.illegal_action!r}"
            )
        illegal = not self._mask[a]
        if illegal and self.illegal_action == "raise":
            raise ValueError(
                f"action {a} is not legal for seat {self._current} (legal ids: {np.flatnonzero(self._mask).tolist()}); "
                "illegal_action='terminate' ends the deal instead, 'random' plays a random legal action"
            )
        if illegal and self.illegal_action == "terminate":
            warnings.warn(
                f"ShuangkouEnv: illegal action {a} for seat {self._current}: the deal ends with reward "
                f"{self.illegal_reward:g} (illegal_action='terminate')",
                stacklevel=2,
            )
            self._phase = "idle"  # the deal is abandoned: reset() deals anew
            self._result_line = f"deal ended: illegal action {a} by seat {self._current}"
            self._shown = self._core.current_game(0) if self.render_mode else None
            info = self._info(ended=True)
            info["illegal_action"] = np.array(True)
            obs = self._obs.copy()
            self._mask[:] = 0
            if self.render_mode == "human":
                self._print()
            return obs, self.illegal_reward, True, False, info
        if illegal:  # "random"
            a = int(self.np_random.choice(np.flatnonzero(self._mask)))
        deal_seed = self._deal_seed()
        ended = self._step_core(a) or self._play_opponents()
        if not ended:
            self._read_core()
            info = self._info()
            info["illegal_action"] = np.array(illegal)
            if self.render_mode == "human":
                self._print()
            return self._obs.copy(), 0.0, False, False, info
        return self._finish(deal_seed, illegal)

    def _finish(self, deal_seed: np.uint64, illegal: bool) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        c = self._core
        res = c.finished_results([0])
        places = np.asarray(res["places"][0], dtype=np.int8)
        outcome = np.int8(res["outcome"][0])
        team_won = int(places[0]) % 2 == self.seat % 2
        result = np.int8(0 if _core.OUTCOMES[int(outcome)] == "draw" else (1 if team_won else -1))
        reward = float(c.rewards[0][self.seat])
        obs = np.array(c.final_obs[0, self.seat], dtype=np.float32, copy=True)
        self._mask = np.zeros(self.num_actions, np.int8)
        self._phase = "ended"
        self._actions = []  # the core is at the next deal already, which has none yet
        info = {
            "action_mask": self._mask.copy(),
            "current_player": np.int64(-1),
            "deal_seed": deal_seed,
            "final_scores": np.array(c.final_scores[0], dtype=np.int64, copy=True),
            "outcome": outcome,
            "outcome_name": _core.OUTCOMES[int(outcome)],
            "places": places,
            "result": result,
            "illegal_action": np.array(illegal),
        }
        scores = info["final_scores"].tolist()
        self._result_line = (
            f"deal over: {_core.OUTCOMES[int(outcome)]}, places {places.tolist()}, learner team "
            f"{ {1: 'win', 0: 'draw', -1: 'loss'}[int(result)] }, final scores {scores}, reward {reward:g}"
        )
        self._shown = c.finished_game(0) if self.render_mode else None
        if self.render_mode == "human":
            self._print()
        return obs, reward, True, False, info

    def _info(self, ended: bool = False) -> dict[str, Any]:
        return {
            "action_mask": self._mask.copy() if not ended else np.zeros(self.num_actions, np.int8),
            "current_player": np.int64(-1 if ended else self._current),
            "deal_seed": self._deal_seed(),
        }

    def action_masks(self) -> np.ndarray:
        """The legal actions of the observation last returned (bool [num_actions])."""
        return self._mask.astype(bool)

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self._mask).tolist()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called with render_mode=None: pass render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        text = self._render_text()
        if self.render_mode == "ansi":
            return text
        if self.render_mode == "rgb_array":
            return text_image(text)
        print(text)
        return None

    def close(self) -> None:
        self._phase = "closed"

    # ------------------------------------------------------------------ rendering
    def _render_text(self) -> str:
        if self._phase in ("idle", "closed") and self._shown is None:
            return "(no deal yet: call reset())"
        if self._shown is not None:  # a finished (or abandoned) deal
            return render_game(self._shown, seat=self.seat) + "\n" + self._result_line
        seat = self._current if self._current in self.learner_seats else self.seat
        return render_game(self._core.current_game(0), seat=seat)

    def _print(self) -> None:
        print(self._render_text() + "\n")

    # ------------------------------------------------------------------ copies and pickles
    def __deepcopy__(self, memo: dict[int, Any]) -> ShuangkouEnv:
        out = self.__class__.__new__(self.__class__)
        memo[id(self)] = out
        for k, v in self.__dict__.items():
            if k == "_core":
                out.__dict__[k] = v.copy()  # the C++ env, copied: it steps on independently
            elif k in ("rules", "catalogue", "_opponent", "opponents"):
                out.__dict__[k] = v  # immutable, or the caller's callable
            else:
                out.__dict__[k] = copy.deepcopy(v, memo)
        return out

    def __getstate__(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("_core", "catalogue", "_shown")}
        c = self._core
        state["_core_snapshot"] = (int(c.seed), int(c.episodes[0]) - 1)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        seed, episode = state.pop("_core_snapshot")
        self.__dict__.update(state)
        self._in_opponent = False  # (a copy is not inside anybody's decision)
        self.catalogue = self.rules.catalogue
        self._shown = None
        core = _core.VectorEnvCore(self.rules, 1, seed, 1, self._bots, self.reward_mode, True)
        # Replay the deal: its place in the seed's sequence, then the external actions.
        if episode > 0:
            core.start_at(0, episode)
        self._core = core
        actions, self._actions = self._actions, []
        for a in actions:
            self._step_core(a)
