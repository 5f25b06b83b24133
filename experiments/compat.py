"""Compatibility checks: the shuangkou environments under common RL libraries.

    python experiments/compat.py --out docs/compatibility.md
    python experiments/compat.py --clients gymnasium,torchrl      # a subset
    python experiments/compat.py --traceback                      # full tracebacks of failures

For each client library that is installed (Gymnasium, PettingZoo, Stable-Baselines3,
sb3-contrib, RLlib, TorchRL, Tianshou) it runs a short real check against the envs as
constructed with default arguments: `gym.make("shuangkou/Shuangkou-v0")`,
`shuangkou.env()` and `shuangkou.VectorEnv()`. Each check runs in its own try/except;
the result (pass / FAIL with the exception) goes into a markdown table, with a notes
section giving the workaround for each failure. Nothing is trained beyond a few hundred
MaskablePPO steps; RLlib only samples episodes with an untrained module. The whole run
takes a minute or two on a laptop CPU and exits 0 whatever the results (the table is
the result).

The hand-written end of the existing report, from its first line starting with
`<!-- kept` on (the OpenSpiel section), is kept: it follows the regenerated part.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib
import importlib.metadata
import inspect
import io
import logging
import platform
import shlex
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ENV_ID = "shuangkou/Shuangkou-v0"
HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "docs" / "compatibility.md"
VECTOR_STEPS = 200
MAX_DEAL_STEPS = 10_000  # a deal is a few hundred steps at most; a guard against a loop that never ends

# The hand-written part of the report starts at a line beginning with this; regenerating keeps it.
KEPT_MARKER = "<!-- kept"
# Shared between the checks of one client (e.g. the TorchRL env built by one check and used by the next).
STATE: dict[str, Any] = {}
# Package-side observations made by the checks, for the notes section.
OBSERVATIONS: dict[str, str] = {}


# ---------------------------------------------------------------------------- records


@dataclass
class Check:
    key: str
    label: str
    fn: Callable[[], str | None]
    # (substring of the failure text, workaround): the first that matches is shown in the notes.
    workarounds: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Client:
    name: str
    dists: list[str]  # distributions whose versions are shown (the first is the client)
    modules: list[str]  # imported before the checks: a failure makes the whole client "not installed"
    checks: list[Check]


@dataclass
class Row:
    client: str
    version: str
    check: str
    result: str  # "pass", "FAIL", "not installed"
    notes: str
    workaround: str = ""
    seconds: float = 0.0


def dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def error_text(e: BaseException) -> str:
    """The exception as one line, with the innermost frame it was raised in."""
    msg = " ".join(str(e).split())
    if len(msg) > 500:
        msg = msg[:500] + " ..."
    text = f"{type(e).__name__}: {msg}" if msg else type(e).__name__
    tb = traceback.extract_tb(e.__traceback__)
    if tb:
        frame = tb[-1]
        path = frame.filename
        for marker in ("site-packages/", "experiments/"):
            if marker in path:
                path = path.split(marker, 1)[1]
                break
        text += f" (raised at {path}:{frame.lineno})"
    return text


def masked_random(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of masks (0, the pass, where a row is all zero)."""
    out = np.zeros(len(masks), dtype=np.int64)
    for i, row in enumerate(np.asarray(masks)):
        legal = np.flatnonzero(row)
        if len(legal):
            out[i] = rng.choice(legal)
    return out


def count_illegal(caught: list[warnings.WarningMessage]) -> int:
    return sum("illegal action" in str(w.message) for w in caught)


# ---------------------------------------------------------------------------- gymnasium


def gym_check_env() -> str:
    import gymnasium as gym
    import shuangkou  # noqa: F401  (registers the env id)
    from gymnasium.utils.env_checker import check_env

    env = gym.make(ENV_ID)
    check_env(env.unwrapped)
    return "on `gym.make(...).unwrapped`"


def gym_vector(cls_name: str, mode_name: str) -> Callable[[], str]:
    def check() -> str:
        import gymnasium as gym
        import shuangkou  # noqa: F401
        from gymnasium.vector import AutoresetMode

        mode = getattr(AutoresetMode, mode_name)
        venv = getattr(gym.vector, cls_name)([lambda: gym.make(ENV_ID) for _ in range(2)], autoreset_mode=mode)
        try:
            single = venv.single_observation_space
            rng = np.random.default_rng(0)
            obs, info = venv.reset(seed=0)
            deals = illegal = 0
            prev_done = np.zeros(2, dtype=bool)
            illegal_dtype = None
            for t in range(VECTOR_STEPS):
                obs, rew, term, trunc, info = venv.step(masked_random(rng, info["action_mask"]))
                for i in range(2):
                    if not single.contains(obs[i]):
                        raise AssertionError(f"step {t}: env {i}'s observation is outside single_observation_space")
                if mode == AutoresetMode.NEXT_STEP:
                    for i in np.flatnonzero(prev_done):  # the reset step: reward 0, not terminal, a fresh mask
                        if rew[i] != 0 or term[i] or not info["action_mask"][i].any():
                            raise AssertionError(f"step {t}: env {i}'s autoreset step is not a fresh deal")
                else:
                    for i in np.flatnonzero(term):
                        if "final_obs" not in info or not info["_final_obs"][i]:
                            raise AssertionError(f"step {t}: env {i} ended a deal without info['final_obs']")
                        if not single.contains(info["final_obs"][i]):
                            raise AssertionError(f"step {t}: env {i}'s final_obs is outside the observation space")
                        if not info["action_mask"][i].any():
                            raise AssertionError(f"step {t}: env {i}'s mask after the autoreset is empty")
                for i in np.flatnonzero(~(term | trunc)):
                    if not info["action_mask"][i].any():
                        raise AssertionError(f"step {t}: env {i} is mid-deal with an all-zero action_mask")
                if "illegal_action" in info:
                    illegal_dtype = info["illegal_action"].dtype
                    illegal += sum(bool(v) for v, m in zip(info["illegal_action"], info["_illegal_action"]) if m)
                deals += int(term.sum())
                prev_done = term | trunc
            if illegal:
                raise AssertionError(f"{illegal} masked-random actions were flagged illegal")
        finally:
            venv.close()
        note = f"{VECTOR_STEPS} steps, {deals} deals finished; masks: `info['action_mask']` (batched, [2, 351] int8)"
        if illegal_dtype is not None and illegal_dtype.kind == "O":
            OBSERVATIONS["illegal_dtype"] = (
                "The Gymnasium env's `info['illegal_action']` is a `numpy.bool_`; Gymnasium's vector envs batch "
                "only Python scalars, `numpy.number` scalars and arrays into typed arrays, so that key arrives as "
                "a `dtype=object` array (None where an env had no such key). A Python `bool` or a 0-d "
                "`np.array(True)` would batch as `bool`. Read it with `info['_illegal_action']` as the validity mask."
            )
            note += "; `info['illegal_action']` arrives as a dtype=object array (see notes)"
        return note

    return check


def sk_vector_api() -> str:
    import shuangkou as sk

    venv = sk.VectorEnv()
    obs, info = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    deals = 0
    for t in range(VECTOR_STEPS):
        actions = masked_random(rng, info["action_mask"])
        if not venv.action_space.contains(actions):
            raise AssertionError(f"step {t}: masked-random actions are outside action_space")
        obs, rew, term, trunc, info = venv.step(actions)
        if not venv.observation_space.contains(obs):
            raise AssertionError(f"step {t}: observations outside observation_space")
        if rew.shape != (venv.num_envs, 4):
            raise AssertionError(f"rewards have shape {rew.shape}, expected ({venv.num_envs}, 4)")
        if term.any() and not info["_final_obs"][term].all():
            raise AssertionError(f"step {t}: a finished deal without info['final_obs']")
        deals += int(term.sum())
    venv.close()
    return (
        f"default `VectorEnv()`: {venv.num_envs} envs, {VECTOR_STEPS} steps, {deals} deals; autoreset_mode "
        f"{venv.metadata['autoreset_mode']}; rewards per seat [num_envs, 4]"
    )


def sk_vector_wrapper() -> str:
    import gymnasium as gym
    import shuangkou as sk

    venv = gym.wrappers.vector.RecordEpisodeStatistics(sk.VectorEnv())
    venv.reset(seed=0)
    return "accepted"


# ---------------------------------------------------------------------------- PettingZoo


def pz_api_test() -> str:
    import shuangkou
    from pettingzoo.test import api_test

    api_test(shuangkou.env(), num_cycles=200)
    return "`api_test(shuangkou.env(), num_cycles=200)`"


def pz_seed_test() -> str:
    import shuangkou
    from pettingzoo.test import seed_test

    sig = inspect.signature(seed_test)
    first = next(iter(sig.parameters))
    if "constructor" in first or first == "env_fn":
        seed_test(shuangkou.env, num_cycles=200)
        how = "the constructor `shuangkou.env`"
    else:  # a pettingzoo that takes an env instance
        seed_test(shuangkou.env(), num_cycles=200)
        how = "an env instance"
    return f"signature `seed_test{sig}`; given {how}, num_cycles=200"


def pz_random_game() -> str:
    import shuangkou

    env = shuangkou.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    state_shape = env.unwrapped.state_space.shape
    steps = 0
    last_info: dict[str, Any] = {}
    for agent in env.agent_iter(max_iter=MAX_DEAL_STEPS):
        obs, reward, term, trunc, info = env.last()
        returns[agent] += float(reward)
        if term or trunc:
            action = None
            last_info = info
        else:
            mask = obs["action_mask"]
            if not mask.any():
                raise AssertionError(f"step {steps}: {agent} is to act with an all-zero action_mask")
            if env.state().shape != state_shape:
                raise AssertionError(f"state() has shape {env.state().shape}, state_space {state_shape}")
            action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        steps += 1
    if env.agents:
        raise AssertionError(f"the deal did not end within {MAX_DEAL_STEPS} agent turns")
    if last_info.get("illegal_action"):
        raise AssertionError("a masked-random action was treated as illegal")
    env_reward = env.unwrapped.reward_mode
    raw_default = inspect.signature(shuangkou.raw_env).parameters["reward"].default
    gym_default = inspect.signature(importlib.import_module("shuangkou.envs.gym_env").ShuangkouEnv).parameters
    gym_default = gym_default["reward"].default
    note = (
        f"one deal, {steps} agent turns, outcome {last_info.get('outcome')!r}, returns "
        f"{ {a: round(r, 3) for a, r in returns.items()} }; masks: `obs['action_mask']`; `state()` {state_shape}; "
        f"reward mode of `shuangkou.env()`: {env_reward!r}"
    )
    if env_reward != raw_default:
        OBSERVATIONS["reward_default"] = (
            f"`shuangkou.env()` (the wrapped AEC env) plays with reward={env_reward!r} by default, while "
            f"`shuangkou.raw_env()` defaults to {raw_default!r} and the Gymnasium env to {gym_default!r}. "
            "Pass `reward=` explicitly (e.g. `shuangkou.env(reward='win')`) to get the same rewards from every "
            "constructor. With 'score' the rewards are deal scores, not +1/-1, and not zero-sum in every variant."
        )
        note += f" (raw_env defaults to {raw_default!r}; see notes)"
    return note


# ---------------------------------------------------------------------------- Stable-Baselines3


def sb3_check_env() -> str:
    import gymnasium as gym
    import shuangkou  # noqa: F401
    from stable_baselines3.common.env_checker import check_env

    check_env(gym.make(ENV_ID).unwrapped)
    return "on `gym.make(...).unwrapped`"


def maskable_learn() -> str:
    import gymnasium as gym
    import shuangkou  # noqa: F401
    from sb3_contrib import MaskablePPO

    env = gym.make(ENV_ID)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0, verbose=0, device="cpu")
    model.learn(256)
    STATE["maskable_model"] = model
    return "MaskablePPO finds `action_masks()` through the `gym.make` wrappers by itself"


def maskable_vec_learn() -> str:
    import shuangkou  # noqa: F401
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env(ENV_ID, n_envs=2, seed=0)
    if not is_masking_supported(venv):
        raise AssertionError("sb3-contrib does not see action_masks() through make_vec_env")
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, seed=0, verbose=0, device="cpu")
    model.learn(256)
    venv.close()
    return "`make_vec_env(..., n_envs=2)` (DummyVecEnv); masks reach MaskablePPO through `env_method`"


def maskable_predict() -> str:
    import gymnasium as gym
    import shuangkou  # noqa: F401
    from sb3_contrib import MaskablePPO

    env = gym.make(ENV_ID)
    model = STATE.get("maskable_model") or MaskablePPO("MlpPolicy", env, seed=0, device="cpu")
    obs, info = env.reset(seed=1)
    steps, done = 0, False
    while not done:
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
        if not info["action_mask"][int(action)]:
            raise AssertionError(f"step {steps}: predict() chose masked-out action {int(action)}")
        obs, reward, term, trunc, info = env.step(action)
        done = term or trunc
        steps += 1
        if steps > MAX_DEAL_STEPS:
            raise AssertionError("the deal did not end")
    if info.get("illegal_action"):
        raise AssertionError("the env flagged a predicted action illegal")
    return f"one deal, {steps} learner steps, every action legal; `action_masks=env.unwrapped.action_masks()`"


# ---------------------------------------------------------------------------- RLlib


def rllib_pettingzoo_env() -> str:
    import shuangkou
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    env = PettingZooEnv(shuangkou.env())
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    while True:
        if len(obs) != 1:
            raise AssertionError(f"step {steps}: observations for {sorted(obs)} mid-deal, expected one agent")
        ((agent, o),) = obs.items()
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rew, term, trunc, info = env.step({agent: action})
        steps += 1
        if term["__all__"] or trunc["__all__"]:
            break
        if steps > MAX_DEAL_STEPS:
            raise AssertionError("the deal did not end")
    if any(i.get("illegal_action") for i in info.values()):
        raise AssertionError("a legal action was treated as illegal")
    env.close()
    return (
        f"one deal, {steps} steps with legal actions from `obs[agent]['action_mask']`; final rewards "
        f"{ {a: float(r) for a, r in sorted(rew.items())} }"
    )


def rllib_precheck() -> str:
    import shuangkou
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.utils.pre_checks import env as pre_checks

    if hasattr(pre_checks, "check_env"):
        pre_checks.check_env(PettingZooEnv(shuangkou.env()))
        return "`ray.rllib.utils.pre_checks.env.check_env`"
    pre_checks.check_multiagent_environments(PettingZooEnv(shuangkou.env()))
    return (
        "this version has no `check_env` in `ray.rllib.utils.pre_checks.env`; ran "
        "`check_multiagent_environments` (what RLlib's env runners call); it steps an unmasked random action"
    )


def _rllib_env_class(rename: bool) -> Any:
    import gymnasium as gym
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    if not rename:
        return PettingZooEnv

    class MaskedPettingZooEnv(PettingZooEnv):
        """RLlib's action-masking RLModule reads obs['observations']; PettingZoo's key is 'observation'."""

        def __init__(self, env: Any) -> None:
            super().__init__(env)
            spaces = {
                a: gym.spaces.Dict({"observations": s["observation"], "action_mask": s["action_mask"]})
                for a, s in self.observation_spaces.items()
            }
            self.observation_spaces = spaces
            self.observation_space = gym.spaces.Dict(spaces)

        @staticmethod
        def _rename(obs: dict) -> dict:
            return {a: {"observations": o["observation"], "action_mask": o["action_mask"]} for a, o in obs.items()}

        def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
            obs, info = super().reset(seed=seed, options=options)
            return self._rename(obs), info

        def step(self, action: dict) -> tuple:
            obs, rew, term, trunc, info = super().step(action)
            return self._rename(obs), rew, term, trunc, info

    return MaskedPettingZooEnv


def rllib_runner(masked: bool) -> Callable[[], str]:
    def check() -> str:
        import shuangkou
        from ray.rllib.algorithms.ppo import PPOConfig
        from ray.tune.registry import register_env

        env_class = _rllib_env_class(rename=masked)
        name = f"shuangkou_compat_{'masked' if masked else 'plain'}"
        register_env(name, lambda cfg: env_class(shuangkou.env()))
        config = (
            PPOConfig()
            .environment(name)
            .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *args, **kwargs: "shared")
            .env_runners(num_env_runners=0, num_envs_per_env_runner=1)
        )
        if masked:
            from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
            from ray.rllib.core.rl_module.rl_module import RLModuleSpec
            from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

            spec = RLModuleSpec(module_class=ActionMaskingTorchRLModule)
            config = config.rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": spec}))
        steps, illegal = sample_two_episodes(config)
        if masked and illegal:
            raise AssertionError(f"{illegal} illegal actions while sampling with the action-masking module")
        return (
            f"2 episodes sampled, {steps} env steps, {illegal} illegal actions while sampling "
            "(untrained module, no training); the runner builds its env with RLlib's pre-check, which steps one "
            "unmasked random action"
        )

    return check


def sample_two_episodes(config: Any) -> tuple[list[int], int]:
    """Two episodes sampled by an RLlib env runner built from `config`: their env steps and
    the illegal actions warned about meanwhile."""
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    runner = MultiAgentEnvRunner(config=config)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            episodes = runner.sample(num_episodes=2, random_actions=False)
    finally:
        runner.stop()
    return [e.env_steps() for e in episodes], count_illegal(caught)


def rllib_adapter() -> str:
    """The package's own adapter, shuangkou.rllib: its env and masked module as they come."""
    import shuangkou.integrations.rllib as skr

    steps, illegal = sample_two_episodes(skr.ppo_config("baibian", hidden=(64,)))
    if illegal:
        raise AssertionError(f"{illegal} illegal actions while sampling with shuangkou.rllib's masked module")
    return (
        f"2 episodes sampled, {steps} env steps, no illegal action (untrained "
        "`MaskedTorchRLModule`, no training); no key rename; `ppo_config` turns RLlib's env pre-check off "
        "(see docs/rllib.md)"
    )


# ---------------------------------------------------------------------------- TorchRL


def torchrl_gymenv() -> str:
    import shuangkou  # noqa: F401
    from torchrl.envs import GymEnv

    STATE["torchrl_env"] = GymEnv(ENV_ID)
    return "`GymEnv('shuangkou/Shuangkou-v0')`"


def _torchrl_env() -> tuple[Any, str]:
    """The GymEnv built by the first check, else the GymWrapper route."""
    if "torchrl_env" in STATE:
        return STATE["torchrl_env"], "`GymEnv(...)`"
    import gymnasium as gym
    import shuangkou  # noqa: F401
    from torchrl.envs import GymWrapper

    return GymWrapper(gym.make(ENV_ID)), "`GymWrapper(gym.make(...))` (GymEnv(...) could not be built)"


def torchrl_specs() -> str:
    from torchrl.envs.utils import check_env_specs

    env, how = _torchrl_env()
    check_env_specs(env)
    return f"on {how}"


def torchrl_rollout() -> str:
    env, how = _torchrl_env()
    td = env.rollout(20)
    steps = td.batch_size[0]
    done = bool(td["next", "done"].any())
    return (
        f"on {how}: {steps} step{'s' if steps != 1 else ''}{', ended by the deal ending' if done else ''}; "
        "the rollout's random actions "
        "ignore the mask, so an illegal one ends the deal (illegal_action='terminate')"
    )


def torchrl_action_mask_plain() -> str:
    from torchrl.envs import TransformedEnv
    from torchrl.envs.transforms import ActionMask

    env, how = _torchrl_env()
    TransformedEnv(env, ActionMask()).rollout(20)
    return f"on {how}"


def torchrl_action_mask_reader() -> str:
    import torch
    from torchrl.data import Binary
    from torchrl.envs import TransformedEnv
    from torchrl.envs.libs.gym import default_info_dict_reader
    from torchrl.envs.transforms import ActionMask
    from torchrl.envs.utils import check_env_specs

    env, how = _torchrl_env()
    n = env.action_spec.shape[-1]
    env.set_info_dict_reader(
        default_info_dict_reader(["action_mask"], spec={"action_mask": Binary(n, dtype=torch.int8)})
    )
    masked = TransformedEnv(env, ActionMask())
    check_env_specs(masked)
    td = masked.rollout(VECTOR_STEPS, break_when_any_done=False)
    chosen = td["action"].bool() & td["action_mask"].bool()
    if not bool((chosen.sum(-1) == 1).all()):
        raise AssertionError("a sampled action is outside its mask")
    deals = int(td["next", "done"].sum())
    return (
        f"on {how}: check_env_specs passes; {td.batch_size[0]} masked-random steps, {deals} deals, every action legal"
    )


# ---------------------------------------------------------------------------- Tianshou


def tianshou_gym_vector() -> str:
    import gymnasium as gym
    import shuangkou  # noqa: F401
    from tianshou.env import DummyVectorEnv

    venv = DummyVectorEnv([lambda: gym.make(ENV_ID) for _ in range(2)])
    venv.seed(0)  # seeds 0 and 1 (reset(seed=0) would give both envs seed 0: the same deals)
    obs, info = venv.reset()
    rng = np.random.default_rng(0)
    deals = 0
    for t in range(VECTOR_STEPS):
        actions = masked_random(rng, np.stack([i["action_mask"] for i in info]))
        obs, rew, term, trunc, info = venv.step(actions)
        if any(i.get("illegal_action") for i in info):
            raise AssertionError(f"step {t}: a masked-random action was flagged illegal")
        done = np.flatnonzero(term | trunc)
        deals += len(done)
        if len(done):  # Tianshou's vector envs do not autoreset: reset the finished ones by id
            new_obs, new_info = venv.reset(done)
            obs[done] = new_obs
            for k, j in enumerate(done):
                info[j] = new_info[k]
    venv.close()
    return (
        f"{VECTOR_STEPS} steps, {deals} deals; masks read from `info[i]['action_mask']` by hand (Tianshou's "
        "policies look for `obs.mask`, see notes)"
    )


def _tianshou_mask_wrapper() -> Any:
    import gymnasium as gym

    class MaskInObs(gym.Wrapper):
        """The observation as {'obs', 'mask'}: where Tianshou's policies look for the mask (`obs.mask`)."""

        def __init__(self, env: gym.Env) -> None:
            super().__init__(env)
            self.observation_space = gym.spaces.Dict(
                {"obs": env.observation_space, "mask": gym.spaces.MultiBinary(int(env.action_space.n))}
            )

        @staticmethod
        def _obs(obs: np.ndarray, info: dict) -> dict:
            return {"obs": obs, "mask": info["action_mask"].astype(bool)}

        def reset(self, **kwargs: Any) -> tuple[dict, dict]:
            obs, info = self.env.reset(**kwargs)
            return self._obs(obs, info), info

        def step(self, action: Any) -> tuple:
            obs, reward, term, trunc, info = self.env.step(action)
            return self._obs(obs, info), reward, term, trunc, info

    return MaskInObs


def tianshou_gym_collect() -> str:
    import gymnasium as gym
    import shuangkou  # noqa: F401
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv

    wrapper = _tianshou_mask_wrapper()
    venv = DummyVectorEnv([lambda: wrapper(gym.make(ENV_ID)) for _ in range(2)])
    venv.seed(0)
    policy = MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(venv.action_space[0])
    collector = Collector(policy, venv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        collector.reset()
        stats = collector.collect(n_episode=4)
    venv.close()
    illegal = count_illegal(caught)
    if illegal:
        raise AssertionError(f"{illegal} illegal actions from Tianshou's masked random policy")
    return (
        f"Gymnasium env + a wrapper putting the mask in the observation: {stats.n_collected_episodes} episodes, "
        f"{stats.n_collected_steps} steps, no illegal action"
    )


def tianshou_marl_collect() -> str:
    import shuangkou
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    probe = PettingZooEnv(shuangkou.env())
    policy = MultiAgentPolicy(
        {a: MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(probe.action_space) for a in probe.agents}
    )
    venv = DummyVectorEnv([lambda: PettingZooEnv(shuangkou.env()) for _ in range(2)])
    venv.seed(0)
    collector = Collector(policy, venv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        collector.reset()
        stats = collector.collect(n_episode=4)
    venv.close()
    illegal = count_illegal(caught)
    if illegal:
        raise AssertionError(f"{illegal} illegal actions from Tianshou's masked random policy")
    return (
        f"`Collector(MultiAgentPolicy(4 masked random policies), DummyVectorEnv([PettingZooEnv(shuangkou.env())]*2))`"
        f": {stats.n_collected_episodes} episodes, {stats.n_collected_steps} steps, no illegal action; masks: "
        "`obs.mask`"
    )


# ---------------------------------------------------------------------------- the plan

TORCHRL_FRAMESKIP = (
    "frameskip",
    "TorchRL's `GymEnv` always calls `gym.make(env_id, frameskip=...)` and drops the keyword only when the "
    "`TypeError` it gets says \"unexpected keyword argument 'frameskip'\" (Python's own wording). The env raises "
    "`shuangkou.errors.UnknownArgumentError` (a `TypeError`) worded \"unknown keyword argument 'frameskip'\", so "
    "TorchRL re-raises it. Workaround: build the env with Gymnasium and wrap it, "
    "`torchrl.envs.GymWrapper(gym.make('shuangkou/Shuangkou-v0'))` (the TorchRL rows below do). Fix in the "
    "package: include Python's wording, e.g. \"ShuangkouEnv.__init__() got an unexpected keyword argument "
    "'frameskip'\", in the message.",
)
TORCHRL_NO_MASK = (
    "NoneType",
    "`ActionMask` reads the mask from the tensordict key `action_mask`, but the Gymnasium env gives the mask "
    "in `info`, which TorchRL's wrapper drops unless told to read it. Register an info reader first, with the "
    "env's dtype (int8; a bool spec makes `check_env_specs` fail on a dtype mismatch):\n\n"
    "<!-- test: skip (needs torch and torchrl; experiments/compat.py runs this very check) -->\n"
    "```python\n"
    "import torch\n"
    "from torchrl.data import Binary\n"
    "from torchrl.envs import GymWrapper, TransformedEnv\n"
    "from torchrl.envs.libs.gym import default_info_dict_reader\n"
    "from torchrl.envs.transforms import ActionMask\n\n"
    "env = GymWrapper(gym.make('shuangkou/Shuangkou-v0'))\n"
    "n = env.action_spec.shape[-1]\n"
    "env.set_info_dict_reader(default_info_dict_reader(['action_mask'], spec={'action_mask': Binary(n, dtype=torch.int8)}))\n"
    "env = TransformedEnv(env, ActionMask())  # env.rollout(...) now samples legal actions only\n"
    "```",
)
RLLIB_NO_DICT = (
    "No default encoder",
    "RLlib's default RLModules have no encoder for a `Dict` observation (PettingZoo's "
    "`{'observation', 'action_mask'}`). Use the action-masking module of RLlib's examples, "
    "`ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule` (PPO), which masks "
    "the logits. It reads the keys `observations` (plural) and `action_mask`, so rename PettingZoo's "
    "`observation` key in a `PettingZooEnv` subclass (override `__init__` to rename the spaces, `reset` and "
    "`step` to rename the observations; `experiments/compat.py` has a 20-line one, `_rllib_env_class`), then "
    "`config.rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={'shared': "
    "RLModuleSpec(module_class=ActionMaskingTorchRLModule)}))`. The next row checks exactly that. Or use "
    "the package's adapter, `shuangkou.rllib` ([rllib.md](rllib.md)): its env needs no rename and its "
    "`ppo_config()` brings a masked module (the row after).",
)
SK_VECTOR_WRAPPERS = (
    "Expected env to be a `gymnasium.vector.VectorEnv`",
    "`shuangkou.VectorEnv` has the shape of Gymnasium's vector API but is multi-agent (rewards are per seat, "
    "[num_envs, 4]; each env's action is for `info['current_player']`), and is not a subclass of "
    "`gymnasium.vector.VectorEnv`, so Gymnasium's vector wrappers refuse it. For a single learner use "
    "`gymnasium.vector.SyncVectorEnv` / `AsyncVectorEnv` over `shuangkou/Shuangkou-v0` (the rows above); with "
    "`shuangkou.VectorEnv`, keep episode statistics from its own `rewards`, `terminations` and "
    "`info['final_scores']`.",
)


def plan() -> list[Client]:
    vec = [
        Check(f"gym-{c}-{m}", f"`{c}` x2, autoreset_mode={m}, {VECTOR_STEPS} masked-random steps", gym_vector(c, m))
        for c in ("SyncVectorEnv", "AsyncVectorEnv")
        for m in ("NEXT_STEP", "SAME_STEP")
    ]
    return [
        Client(
            "gymnasium",
            ["gymnasium"],
            ["gymnasium"],
            [
                Check("gym-check", "`gymnasium.utils.env_checker.check_env`", gym_check_env),
                *vec,
                Check("sk-vector", f"`shuangkou.VectorEnv()`: vector API, {VECTOR_STEPS} masked steps", sk_vector_api),
                Check(
                    "sk-vector-wrap",
                    "`gymnasium.wrappers.vector.RecordEpisodeStatistics(shuangkou.VectorEnv())`",
                    sk_vector_wrapper,
                    [SK_VECTOR_WRAPPERS],
                ),
            ],
        ),
        Client(
            "pettingzoo",
            ["pettingzoo"],
            ["pettingzoo"],
            [
                Check("pz-api", "`pettingzoo.test.api_test`", pz_api_test),
                Check("pz-seed", "`pettingzoo.test.seed_test`", pz_seed_test),
                Check("pz-game", "random game loop (`agent_iter`, masked actions, `state()`)", pz_random_game),
            ],
        ),
        Client(
            "stable-baselines3",
            ["stable-baselines3"],
            ["stable_baselines3"],
            [Check("sb3-check", "`stable_baselines3.common.env_checker.check_env`", sb3_check_env)],
        ),
        Client(
            "sb3-contrib",
            ["sb3-contrib"],
            ["sb3_contrib"],
            [
                Check(
                    "mppo-learn",
                    '`MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64).learn(256)`',
                    maskable_learn,
                ),
                Check("mppo-vec", "MaskablePPO `.learn(256)` on `make_vec_env(..., n_envs=2)`", maskable_vec_learn),
                Check("mppo-predict", "`MaskablePPO.predict(obs, action_masks=...)`, one deal", maskable_predict),
            ],
        ),
        Client(
            "RLlib",
            ["ray"],
            ["ray.rllib"],
            [
                Check(
                    "rllib-env",
                    "`PettingZooEnv(shuangkou.env())`: reset, step with legal actions",
                    rllib_pettingzoo_env,
                ),
                Check("rllib-precheck", "RLlib env pre-check", rllib_precheck),
                Check(
                    "rllib-runner",
                    "`MultiAgentEnvRunner.sample`, PPO's default RLModule",
                    rllib_runner(masked=False),
                    [RLLIB_NO_DICT],
                ),
                Check(
                    "rllib-runner-masked",
                    "`MultiAgentEnvRunner.sample`, `ActionMaskingTorchRLModule` + key rename",
                    rllib_runner(masked=True),
                ),
                Check(
                    "rllib-adapter",
                    "`MultiAgentEnvRunner.sample`, `shuangkou.rllib.ppo_config()`",
                    rllib_adapter,
                ),
            ],
        ),
        Client(
            "torchrl",
            ["torchrl", "tensordict"],
            ["torchrl", "tensordict"],
            [
                Check(
                    "trl-gymenv", '`torchrl.envs.GymEnv("shuangkou/Shuangkou-v0")`', torchrl_gymenv, [TORCHRL_FRAMESKIP]
                ),
                Check("trl-specs", "`torchrl.envs.utils.check_env_specs(env)`", torchrl_specs),
                Check("trl-rollout", "`env.rollout(20)`", torchrl_rollout),
                Check(
                    "trl-mask",
                    "`TransformedEnv(env, ActionMask()).rollout(20)`",
                    torchrl_action_mask_plain,
                    [TORCHRL_NO_MASK],
                ),
                Check(
                    "trl-mask-reader",
                    f"`ActionMask` + info reader for `action_mask`: check_env_specs, rollout({VECTOR_STEPS})",
                    torchrl_action_mask_reader,
                ),
            ],
        ),
        Client(
            "tianshou",
            ["tianshou"],
            ["tianshou"],
            [
                Check(
                    "ts-venv",
                    f"`DummyVectorEnv([lambda: gym.make(...)] * 2)`: seed, reset, {VECTOR_STEPS} masked steps",
                    tianshou_gym_vector,
                ),
                Check(
                    "ts-gym-collect",
                    "`Collector` + masked random policy over `gym.make(...)` with the mask in the observation",
                    tianshou_gym_collect,
                ),
                Check("ts-marl", "`tianshou.env.PettingZooEnv(shuangkou.env())` + `Collector`", tianshou_marl_collect),
            ],
        ),
    ]


# ---------------------------------------------------------------------------- running


def run_check(client: str, version: str, check: Check, show_traceback: bool) -> Row:
    print(f"  {check.label} ...", end=" ", flush=True)
    captured = io.StringIO()
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(captured):  # e.g. the "human" render mode that check_env tries
                notes = check.fn() or ""
            result, workaround = "pass", ""
        except Exception as e:
            result, notes = "FAIL", error_text(e)
            workaround = next((text for needle, text in check.workarounds if needle in notes), "")
            if not workaround:
                workaround = "Not a known limitation: see the exception in the table (`--traceback` prints it whole)."
            if show_traceback:
                print(file=sys.stderr)
                traceback.print_exc()
    seconds = time.perf_counter() - start
    illegal = count_illegal(caught)
    if illegal:
        notes += f"; {illegal} illegal-action warning{'s' if illegal > 1 else ''} (unmasked actions, see notes)"
        OBSERVATIONS["illegal_warnings"] = (
            "Several checkers (Gymnasium's and SB3's `check_env`, RLlib's pre-check, TorchRL's `check_env_specs` "
            "and `rollout`) step actions sampled from the action space without the mask. Under the default "
            "`illegal_action='terminate'` such an action ends the deal with `illegal_reward` (-1) for the offender "
            "(in the AEC env, for the offender's team) and a warning naming it, as PettingZoo's classic envs do, so the checkers run through; the warnings "
            "counted in the table are these. `illegal_action='random'` plays a random legal action instead, "
            "`'raise'` raises `ValueError`."
        )
    print(f"{result} ({seconds:.1f} s)", flush=True)
    if result == "FAIL":
        print(f"    {notes}", flush=True)
    return Row(client, version, check.label, result, notes, workaround, seconds)


def run(selected: set[str] | None, show_traceback: bool) -> list[Row]:
    rows: list[Row] = []
    for client in plan():
        if selected is not None and client.name.lower() not in selected:
            continue
        print(f"{client.name}:", flush=True)
        version = dist_version(client.dists[0]) or "-"
        extra = [f"{d} {dist_version(d)}" for d in client.dists[1:] if dist_version(d)]
        if extra:
            version += f" ({', '.join(extra)})"
        try:
            for module in client.modules:
                importlib.import_module(module)
            logging.getLogger("torchrl").setLevel(logging.WARNING)  # its INFO lines would split the progress lines
        except Exception as e:
            print(f"  not installed: {error_text(e)}", flush=True)
            rows.append(Row(client.name, version, "import", "not installed", error_text(e)))
            continue
        STATE.clear()
        for check in client.checks:
            rows.append(run_check(client.name, version, check, show_traceback))
    with contextlib.suppress(Exception):
        import ray

        if ray.is_initialized():
            ray.shutdown()
    return rows


# ---------------------------------------------------------------------------- markdown


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def environment_lines() -> list[str]:
    import shuangkou

    dists = ["numpy", "torch", "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib", "ray", "torchrl"]
    dists += ["tensordict", "tianshou"]
    versions = [f"{d} {v}" for d in dists if (v := dist_version(d))]
    lines = [
        f"- shuangkou {shuangkou.__version__}, Python {platform.python_version()} "
        f"({platform.python_implementation()}, {platform.system()} {platform.machine()})",
        f"- installed: {', '.join(versions)}",
    ]
    ray_requires = importlib.metadata.requires("ray") if dist_version("ray") else None
    pins = sorted({r.split(";")[0].strip() for r in ray_requires or [] if r.startswith("gymnasium")})
    if pins:
        lines.append(
            f"- ray[rllib] pins {', '.join(f'`{p}`' for p in pins)}, so with RLlib in the same environment pip "
            "resolves that Gymnasium version; the other clients accept it"
        )
    return lines


def markdown(rows: list[Row], command: str, total_seconds: float) -> str:
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    failed = [r for r in rows if r.result == "FAIL"]
    missing = [r for r in rows if r.result == "not installed"]
    out = [
        "# Compatibility with RL libraries",
        "",
        "Generated by `experiments/compat.py`: for each client library installed, a short real check of the "
        "shuangkou environments as constructed with default arguments — the Gymnasium env "
        f'`gym.make("{ENV_ID}")` (after `import shuangkou`), the PettingZoo AEC env `shuangkou.env()` and the '
        "batched `shuangkou.VectorEnv()`. Each check runs in its own try/except, and a failure shows the "
        "exception. Nothing here trains for real (MaskablePPO runs 256 steps, RLlib only samples).",
        "",
        f"- command: `{command}`",
        f"- generated: {today} (UTC), in {total_seconds:.0f} s",
        *environment_lines(),
        f"- {sum(r.result == 'pass' for r in rows)} checks pass, {len(failed)} fail"
        + (f", {len(missing)} client(s) not installed" if missing else ""),
        "",
        "| client | version | check | result | notes |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        result = "**FAIL**" if r.result == "FAIL" else r.result
        out.append(f"| {r.client} | {cell(r.version)} | {cell(r.check)} | {result} | {cell(r.notes)} |")
    out += ["", "## Notes", ""]
    if failed:
        out += ["### Failures and their workarounds", ""]
        for r in failed:
            out += [f"**{r.client}: {r.check}.** {r.workaround}", ""]
    if missing:
        out += ["### Clients not installed", ""]
        for r in missing:
            out += [f"- {r.client}: {cell(r.notes)}"]
        out += [""]
    out += [
        "### Action masks, client by client",
        "",
        "- Gymnasium: `info['action_mask']` (int8 [num_actions], 1 = legal), the form "
        "`env.action_space.sample(mask=...)` takes; batched to [num_envs, num_actions] by the vector envs, "
        "all zero on a deal's terminal step (NEXT_STEP) and already the next deal's (SAME_STEP).",
        "- PettingZoo: `obs['action_mask']` of the agent to act (all zero for the others).",
        "- sb3-contrib: MaskablePPO calls the env's `action_masks()` (bool) itself, through `gym.make`'s wrappers "
        "and SB3's VecEnvs; for `predict`, pass `action_masks=env.unwrapped.action_masks()` (or "
        "`sb3_contrib.common.maskable.utils.get_action_masks(vec_env)`).",
        "- RLlib: `PettingZooEnv(shuangkou.env())` keeps the mask in each agent's observation dict; for PPO use "
        "`ActionMaskingTorchRLModule` with the key `observation` renamed to `observations` (above).",
        "- TorchRL: read `action_mask` from `info` with `set_info_dict_reader(default_info_dict_reader(...))` "
        "(int8 spec), then `TransformedEnv(env, ActionMask())`.",
        "- Tianshou: its policies take the mask from `obs.mask`. `tianshou.env.PettingZooEnv(shuangkou.env())` "
        "provides it (`{'agent_id', 'obs', 'mask'}`) and works with `Collector` and `MultiAgentPolicy`; over the "
        "Gymnasium env, either read `info[i]['action_mask']` yourself or use a `gymnasium.Wrapper` whose "
        "`reset`/`step` return `{'obs': obs, 'mask': info['action_mask'].astype(bool)}` as the observation (with "
        "a matching `Dict` observation space; `experiments/compat.py` has one, `_tianshou_mask_wrapper`). Seed Tianshou's vector envs with "
        "`venv.seed(s)` (envs get s, s+1, ...): `venv.reset(seed=s)` gives every env the same seed, so the same "
        "deals.",
        "",
    ]
    if OBSERVATIONS:
        out += ["### Behaviour of the package worth knowing", ""]
        for key in ("illegal_warnings", "reward_default", "illegal_dtype"):
            if key in OBSERVATIONS:
                out += [f"- {OBSERVATIONS[key]}"]
        out += [""]
    return "\n".join(out)


def kept_part(path: Path) -> str:
    """The hand-written end of the report at `path`: from its first line starting with
    KEPT_MARKER on ('' where the file or the marker is missing)."""
    if not path.is_file():
        return ""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if line.startswith(KEPT_MARKER)), None)
    return "" if at is None else "".join(lines[at:])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the markdown report (default {DEFAULT_OUT})")
    p.add_argument("--clients", default=None, help="comma-separated subset, e.g. gymnasium,torchrl (default: all)")
    p.add_argument("--traceback", action="store_true", help="print the full traceback of every failure")
    args = p.parse_args()
    selected = {c.strip().lower() for c in args.clients.split(",")} if args.clients else None
    try:
        import shuangkou  # noqa: F401
    except ImportError as e:
        p.error(f"shuangkou is not importable in this Python ({e}): install it first")
    start = time.perf_counter()
    rows = run(selected, args.traceback)
    total = time.perf_counter() - start
    command = shlex.join(["python", "experiments/compat.py", *sys.argv[1:]])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text, kept = markdown(rows, command, total) + "\n", kept_part(args.out)
    if kept:
        text = text.rstrip("\n") + "\n\n" + kept
    args.out.write_text(text, encoding="utf-8")
    fails = sum(r.result == "FAIL" for r in rows)
    print(f"{len(rows)} checks, {fails} failed; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
