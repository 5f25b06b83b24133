"""Trained Stable-Baselines3 and sb3-contrib policies as agents of the arena.

    import shuangkou as sk
    agent = sk.policy_agent("runs/ppo/model.zip", variant="baibian")  # or a model / policy in memory
    result = sk.arena("baibian", agents=[agent, "random", "heuristic"], deals=1000)

`policy_agent` wraps a model (MaskablePPO, PPO, A2C, DQN, QRDQN, ...), its policy, or
the ``.zip`` that ``model.save`` wrote, as an `Agent`: it takes every agent's place
(`arena`, `selfplay`, the Gymnasium env's ``opponents``). Each call decides a whole
batch in one forward pass, and only legal actions come out: the policy's action
logits (or Q-values) are masked to the legal ids before the argmax (deterministic, the
default) or before sampling (``deterministic=False``, from a numpy generator seeded by
``seed`` again at every run, so a run repeats exactly). For a MaskablePPO model that
is what ``model.predict(obs, action_masks=mask)`` does; an unmasked PPO or DQN plays
its best legal action.

The observation the agent feeds the policy is the one the Gymnasium env
``shuangkou/Shuangkou-v0`` gives its learner: both are the 445 float32s of
``shuangkou.observation_slices`` from the acting seat's view, made by the same C++
encoder, so no conversion is needed (tests/python/test_policies.py checks that they
agree position by position).

Before a run plays any deal, `PolicyAgent.reset` checks the model against the rules
played: the observation must be the env's (Box of shape (445,)), the action space
``Discrete(n)`` of the rules' catalogue (a model trained in baibian, 351 actions, does
not fit qianbian's 12,580), and, where the rules it was trained on are known (``variant=``,
or the Gymnasium env still attached to the model), those rules must be the ones played
(the arena's ``team_formation: fixed`` aside). A mismatch is a ValueError naming it;
the arena reports it as an `AgentError` whose message holds it (``__cause__`` is the
ValueError). ``check(rules)`` runs the same check directly. Docs: docs/policies.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Union

import numpy as np

from . import _core
from .agents import MAX_LABEL, Agent, Decisions
from .envs.actions import rules_of

__all__ = ["PolicyAgent", "policy_agent"]

ENV_ID = "shuangkou/Shuangkou-v0"
# Parameters a model may have been trained with that the arena overrides: it plays
# team_formation fixed (duplicate deals), the same game otherwise.
IGNORED_PARAMS = ("team_formation",)
INSTALL_HINT = "pip install stable-baselines3 sb3-contrib"

# A model: the path of a saved .zip, a BaseAlgorithm or a BasePolicy (Stable-Baselines3 is optional).
ModelLike = Union[str, os.PathLike, Any]


def _sb3() -> Any:
    """The stable_baselines3 module; ImportError naming what to install otherwise."""
    try:
        import stable_baselines3
    except ImportError as e:
        raise ImportError(f"policy_agent needs Stable-Baselines3 ({INSTALL_HINT}): {e}") from e
    return stable_baselines3


def _algorithm_for(policy_class: type, path: Path) -> Any:
    """The algorithm class that loads a zip whose policy is of `policy_class`."""
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.policies import ActorCriticPolicy
    from stable_baselines3.dqn.policies import DQNPolicy

    candidates: list[tuple[type, Any]] = []
    try:
        from sb3_contrib import QRDQN, MaskablePPO
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
        from sb3_contrib.qrdqn.policies import QRDQNPolicy

        candidates += [(MaskableActorCriticPolicy, MaskablePPO), (QRDQNPolicy, QRDQN)]
    except ImportError:
        pass
    candidates += [(ActorCriticPolicy, PPO), (DQNPolicy, DQN)]  # (PPO.load reads A2C's zips too)
    for base, algorithm in candidates:
        if issubclass(policy_class, base):
            return algorithm
    raise ValueError(
        f"{path}: cannot tell which algorithm saved this model (its policy is {policy_class.__name__}); "
        "pass algorithm=, e.g. policy_agent(path, algorithm=sb3_contrib.MaskablePPO)"
    )


def _load(path: Path, algorithm: Any, device: str) -> Any:
    """The model saved at `path` by ``model.save``, loaded by `algorithm` (found from the
    zip's policy class when None); ValueError naming the file and the problem."""
    _sb3()
    from stable_baselines3.common.base_class import BaseAlgorithm
    from stable_baselines3.common.save_util import load_from_zip_file

    if not path.is_file():
        raise ValueError(f"policy_agent: no model file {path}" + ("" if path.suffix else " (model.save adds .zip)"))
    if algorithm is not None and not (isinstance(algorithm, type) and issubclass(algorithm, BaseAlgorithm)):
        raise ValueError(f"algorithm must be a Stable-Baselines3 algorithm class (e.g. MaskablePPO), got {algorithm!r}")
    if algorithm is None:
        try:
            data, _, _ = load_from_zip_file(path, device=device)
        except Exception as e:  # noqa: BLE001 - any unreadable file: a zip that SB3 cannot read
            raise ValueError(
                f"{path} is not a model saved by Stable-Baselines3's model.save ({type(e).__name__}: {e}); "
                "a policy saved by policy.save loads with its class, e.g. MaskableActorCriticPolicy.load(path), "
                "and then goes to policy_agent"
            ) from e
        policy_class = (data or {}).get("policy_class")
        if not isinstance(policy_class, type):
            raise ValueError(f"{path}: the zip names no policy class; pass algorithm=, e.g. sb3_contrib.MaskablePPO")
        algorithm = _algorithm_for(policy_class, path)
    try:
        return algorithm.load(path, device=device)
    except Exception as e:  # noqa: BLE001 - SB3 raises many kinds for a file of another algorithm
        raise ValueError(f"{path}: {algorithm.__name__}.load failed ({type(e).__name__}: {e})") from e


def _env_rules(model: Any) -> _core.Rules | None:
    """The rules of the Gymnasium env still attached to a model (None if there is none,
    or it is not shuangkou's)."""
    env = getattr(model, "env", None)
    if env is None:
        return None
    try:
        found = env.get_attr("rules", indices=[0])[0]
    except Exception:  # noqa: BLE001 - another env, or one that cannot be asked
        return None
    return found if isinstance(found, _core.Rules) else None


def _sizes_hint(n: int) -> str:
    """Which presets have an action catalogue of `n` ids, for an error message."""
    names = [p for p in _core.preset_names() if rules_of(p).num_actions == n]
    if not names:
        return f"no preset has {n:,} actions"
    return f"Discrete({n}) is the action space of {' and '.join(names)}"


def _short(rules: _core.Rules) -> str:
    """The rules' name without the parameters the arena sets itself ("baibian", not
    "baibian team_formation=fixed")."""
    kept = [w for w in rules.name.split() if w.partition("=")[0] not in IGNORED_PARAMS]
    return " ".join(kept) or rules.name


def _same_catalogue(a: _core.Rules, b: _core.Rules) -> bool:
    """Whether action id i means the same move under both rule sets, for every i."""
    ca, cb = a.catalogue, b.catalogue
    return len(ca) == len(cb) and all(ca.pattern(i) == cb.pattern(i) for i in range(len(ca)))


class PolicyAgent(Agent):
    """A Stable-Baselines3 / sb3-contrib policy playing as an arena agent: build it with
    `policy_agent`.

    Attributes: ``policy`` (the SB3 policy, a torch module), ``model`` (the algorithm,
    or None for a bare policy), ``trained_rules`` (the rules it was trained on, or None
    when unknown), ``deterministic``, ``seed``, ``strict``, ``name`` (its label in
    reports)."""

    def __init__(
        self,
        policy: Any,
        model: Any = None,
        *,
        trained_rules: _core.Rules | None = None,
        deterministic: bool = True,
        seed: int | None = 0,
        strict: bool = True,
        name: str = "policy",
    ) -> None:
        from gymnasium import spaces

        self.policy, self.model, self.trained_rules = policy, model, trained_rules
        self.deterministic, self.seed, self.strict, self.name = deterministic, seed, strict, name
        obs_space, act_space = policy.observation_space, policy.action_space
        size = _core.observation_size()
        if not (isinstance(obs_space, spaces.Box) and tuple(obs_space.shape) == (size,)):
            raise ValueError(
                f"{name}: the model observes {obs_space}, but an agent is given the observation of the Gymnasium env "
                f"{ENV_ID}, Box of shape ({size},) (docs/observation.md): train on that env's observations "
                "(a wrapper that changes them, such as one putting the mask in the observation, does not fit)"
            )
        if not isinstance(act_space, spaces.Discrete) or int(act_space.start) != 0:
            raise ValueError(
                f"{name}: the model's action space is {act_space}; an agent chooses ids of the rules' action "
                "catalogue, Discrete(num_actions) from 0"
            )
        self.num_actions = int(act_space.n)
        self._kind = self._policy_kind()
        if self._kind != "logits" and not deterministic:
            raise ValueError(
                f"{name}: {type(policy).__name__} gives Q-values, not a distribution to sample from: "
                "play it with deterministic=True (its best legal action)"
            )
        if trained_rules is not None:
            self._check_size(trained_rules, " (the rules it was trained on)")
        self._rng = np.random.default_rng(seed)

    def _policy_kind(self) -> str:
        """How actions are scored: "logits" (actor-critic policies), "q" (DQN), "quantiles" (QRDQN)."""
        p = self.policy
        if "Recurrent" in type(p).__name__:
            raise ValueError(
                f"{self.name}: {type(p).__name__} is recurrent; policy_agent plays policies without memory "
                "(MaskablePPO, PPO, A2C, DQN, QRDQN)"
            )
        if hasattr(p, "q_net") and callable(p.q_net):
            return "q"
        if hasattr(p, "quantile_net") and callable(p.quantile_net):
            return "quantiles"
        if callable(getattr(p, "get_distribution", None)):
            return "logits"
        raise ValueError(
            f"{self.name}: {type(p).__name__} has no action distribution (get_distribution) and no Q-network "
            "(q_net, quantile_net): not a policy policy_agent can play"
        )

    # ------------------------------------------------------------------ checks
    def _check_size(self, rules: _core.Rules, how: str) -> None:
        n = rules.num_actions
        if self.num_actions != n:
            raise ValueError(
                f"{self.name}: the model's action space is Discrete({self.num_actions}), {_short(rules)}{how} has "
                f"{n:,} actions: the model is for other rules ({_sizes_hint(self.num_actions)})"
            )

    def check(self, rules: Any) -> None:
        """ValueError naming the mismatch if the model cannot play `rules` (a preset, a
        YAML file or a `Rules`): another action catalogue, or (``strict``) other rules than
        it was trained on where those are known. Changes nothing."""
        rules = rules if isinstance(rules, _core.Rules) else rules_of(rules)
        self._check_size(rules, "")
        trained = self.trained_rules
        if trained is None:
            return
        diffs = ", ".join(
            f"{k} {v} -> {rules.params.get(k)}"
            for k, v in trained.params.items()
            if k not in IGNORED_PARAMS and rules.params.get(k) != v
        )
        if not diffs:
            return
        what = f"{self.name} was trained on {_short(trained)}, not {_short(rules)}"
        if not _same_catalogue(trained, rules):
            raise ValueError(f"{what}: its action ids mean other moves there ({diffs})")
        if self.strict:
            raise ValueError(
                f"{what} (strict=False plays it there anyway: the observation and the action catalogue are the "
                f"same): {diffs}"
            )

    # ------------------------------------------------------------------ the Agent interface
    def reset(self, rules: _core.Rules) -> None:
        """Checks the model against the rules about to be played (`check`), and seeds the
        sampling generator again (``deterministic=False``), so every run repeats."""
        self.check(rules)
        self._rng = np.random.default_rng(self.seed)

    def act(self, decisions: Decisions) -> np.ndarray:
        return self.choose(decisions.obs, decisions.mask)

    # ------------------------------------------------------------------ deciding
    def scores(self, obs: np.ndarray) -> np.ndarray:
        """The policy's score of every action for each row of `obs` (float32 [B, 445]):
        action logits, or Q-values for DQN and QRDQN; float32 [B, num_actions]."""
        import torch

        p = self.policy
        p.set_training_mode(False)
        with torch.no_grad():
            obs_t, _ = p.obs_to_tensor(np.asarray(obs, dtype=np.float32))
            if self._kind == "q":
                out = p.q_net(obs_t)
            elif self._kind == "quantiles":
                out = p.quantile_net(obs_t).mean(dim=1)
            else:
                out = p.get_distribution(obs_t).distribution.logits
        return out.cpu().numpy().astype(np.float32, copy=False)

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action id per row (int64 [B]): `obs` float32 [B, 445], `mask` [B,
        num_actions] (nonzero where legal; every row needs a legal action). The best legal
        action by the policy's scores, or (``deterministic=False``) one drawn from the
        policy's distribution restricted to the legal actions."""
        obs, legal = np.asarray(obs), np.asarray(mask) != 0
        if obs.ndim != 2 or legal.shape != (len(obs), self.num_actions):
            raise ValueError(
                f"{self.name}: expected obs [B, {_core.observation_size()}] and mask [B, {self.num_actions}], "
                f"got {obs.shape} and {legal.shape}"
            )
        if not legal.any(axis=1).all():
            raise ValueError(f"{self.name}: row {int(np.flatnonzero(~legal.any(axis=1))[0])} has no legal action")
        scores = np.where(legal, self.scores(obs).astype(np.float64), -np.inf)
        if self.deterministic:
            return scores.argmax(axis=1).astype(np.int64)
        probs = np.exp(scores - scores.max(axis=1, keepdims=True))  # 0 where illegal
        cdf = np.cumsum(probs, axis=1)
        u = (1.0 - self._rng.random(len(obs))) * cdf[:, -1]  # in (0, total]: never lands on an illegal id
        chosen = (cdf < u[:, None]).sum(axis=1)
        return np.minimum(chosen, self.num_actions - 1).astype(np.int64)

    def __repr__(self) -> str:
        trained = f", trained on {self.trained_rules.name}" if self.trained_rules is not None else ""
        return f"PolicyAgent({self.name!r}, {type(self.policy).__name__}{trained}, deterministic={self.deterministic})"


def policy_agent(
    model: ModelLike,
    *,
    variant: Any = None,
    deterministic: bool = True,
    seed: int | None = 0,
    strict: bool = True,
    algorithm: Any = None,
    device: str = "cpu",
    name: str | None = None,
) -> PolicyAgent:
    """A Stable-Baselines3 / sb3-contrib policy as an agent for `shuangkou.arena`,
    `shuangkou.selfplay` and the Gymnasium env's ``opponents``; only legal actions come out.

    model: a model (``MaskablePPO``, ``PPO``, ``A2C``, ``DQN``, ``QRDQN``, ... any
    ``BaseAlgorithm``), its policy (``model.policy``), or the path of the ``.zip`` that
    ``model.save`` wrote (loaded by the algorithm its policy class names, or by
    `algorithm`, e.g. ``sb3_contrib.MaskablePPO``, on `device`). It must have been
    trained on observations of the Gymnasium env ``shuangkou/Shuangkou-v0`` (Box (445,))
    with its action space (``Discrete(num_actions)``).
    variant: the rules it was trained on (a preset, a YAML file or a `Rules`); when given,
    or when the model still holds its Gymnasium env, a run of other rules is refused
    (`strict`; ``strict=False`` allows rules of the same action catalogue).
    deterministic: the best legal action (default); False draws from the policy's
    distribution over the legal actions with a generator seeded by `seed` at each run
    (not for Q-value policies). name: the label in reports (default: the file's stem, or
    the model's class name).

    Raises ValueError naming the problem (a model of another observation or action space,
    rules it does not fit, a file that is not a saved model, a recurrent policy) and
    ImportError where Stable-Baselines3 is missing.
    """
    if not isinstance(deterministic, (bool, np.bool_)) or not isinstance(strict, (bool, np.bool_)):
        raise ValueError(f"deterministic and strict must be True or False, got {deterministic!r}, {strict!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}")
    if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > MAX_LABEL):
        raise ValueError(f"name must be a non-empty string of at most {MAX_LABEL} characters, got {name!r:.60}")
    trained = None if variant is None else rules_of(variant)  # ValueError for a bad variant
    if isinstance(model, (str, os.PathLike)):
        path = Path(model)
        loaded = _load(path, algorithm, device)
        label = path.stem[:MAX_LABEL] or "policy"
        model = loaded
    else:
        label = None
    _sb3()
    from stable_baselines3.common.base_class import BaseAlgorithm
    from stable_baselines3.common.policies import BasePolicy

    if isinstance(model, BaseAlgorithm):
        policy, owner = model.policy, model
    elif isinstance(model, BasePolicy):
        policy, owner = model, None
    else:
        raise ValueError(
            "policy_agent takes a Stable-Baselines3 model (e.g. MaskablePPO), its policy, or the path of its saved "
            f".zip; got {type(model).__name__}"
        )
    if trained is None and owner is not None:
        trained = _env_rules(owner)
    return PolicyAgent(
        policy,
        owner,
        trained_rules=trained,
        deterministic=bool(deterministic),
        seed=None if seed is None else int(seed),
        strict=bool(strict),
        name=name or label or type(owner if owner is not None else policy).__name__,
    )
