"""RLlib on Shuangkou: a multi-agent env, an action-masking RLModule and a PPO config.

    import shuangkou as sk
    import shuangkou.integrations.rllib as skr

    skr.start_ray()                                  # a local Ray on 127.0.0.1 only
    algo = skr.ppo_config("baibian").build_algo()    # PPO, one policy shared by the 4 seats
    algo.train()                                     # one iteration: 2000 env steps
    agent = skr.arena_agent(algo.get_module(skr.SHARED_POLICY))  # an sk.arena agent
    print(sk.arena("baibian", agents=[agent, "random"], deals=100)["pairs"][0]["wp"])

Needs Ray's RLlib and torch (``bash scripts/setup.sh --ray --rllib``, or
``pip install '.[ray,rllib]' in the clone``); nothing else in the
package imports this module. Importing it registers the env with Tune under ``"shuangkou"``
(`ENV_NAME`), so ``config.environment("shuangkou", env_config={...})`` works too.

- `ShuangkouMultiAgentEnv`: RLlib's `MultiAgentEnv` over the package's PettingZoo AEC env
  (one deal per episode; agents ``player_0``..``player_3``, player i in seat i). Turn-based:
  `reset` and `step` return an observation for the seat to act only; the step that ends the
  deal returns the final observation, the reward and ``terminated=True`` of every seat, and
  ``terminateds["__all__"] = True``. Rewards are 0 until then. `env_config` is the AEC env's
  arguments (``variant``, ``reward``, ``illegal_action``, ``illegal_reward``, any rule
  parameter; docs/envs.md). Observations are ``{"observations": float32[445],
  "action_mask": int8[num_actions]}``: the keys RLlib's action-masking modules read.
- `MaskedTorchRLModule`: a PPO-ready torch RLModule (`ValueFunctionAPI`): an MLP over
  ``obs["observations"]`` for the logits and another for the value (the mask is not fed to
  them); logits of actions the mask forbids are set to the lowest float32, so they get
  probability 0 in exploration, inference and training alike.
- `ppo_config(variant, **env_options)`: PPO wired to both, small defaults for a laptop.
- `arena_agent(module)`: a trained module as an `sk.arena` agent.

docs/rllib.md has the details and a walk-through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, is_dataclass
from typing import Any, Callable

import numpy as np

try:
    import torch
    from gymnasium import spaces
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModule, MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.tune.registry import register_env
    from torch import nn

    from ..envs.aec import raw_env  # (PettingZoo)
except ImportError as e:  # pragma: no cover - depends on what is installed
    raise ImportError(
        "shuangkou.rllib needs Ray with RLlib, torch, Gymnasium and PettingZoo: "
        f"bash scripts/setup.sh --ray --rllib (or pip install '.[ray,rllib]' in the clone); importing them failed: {e}"
    ) from None


from ..agents import Agent, Decisions
from ..envs.options import observation_box
from ..runs.ray_cluster import connect
from ..util.checks import int_arg

__all__ = [
    "ENV_NAME",
    "OBS_KEY",
    "MASK_KEY",
    "SHARED_POLICY",
    "TEAM_POLICIES",
    "MaskedTorchRLModule",
    "ModuleAgent",
    "ShuangkouMultiAgentEnv",
    "arena_agent",
    "check_hidden",
    "check_model_config",
    "mask_logits",
    "module_spec",
    "policy_mapping",
    "ppo_config",
    "register",
    "start_ray",
]

ENV_NAME = "shuangkou"  # the Tune registry name of ShuangkouMultiAgentEnv
OBS_KEY = "observations"  # the observation keys RLlib's action-masking modules read
MASK_KEY = "action_mask"
SHARED_POLICY = "shared"  # policies="shared": one policy plays every seat (self-play)
TEAM_POLICIES = ("team_0", "team_1")  # policies="team": seats 0 and 2, seats 1 and 3
POLICY_MAPPINGS = ("shared", "team")
FLOAT_MIN = torch.finfo(torch.float32).min  # the logit of a masked-out action
MAX_LAYERS = 64  # the most hidden layers of MaskedTorchRLModule's MLPs (as the DMC network's model format)
MAX_WIDTH = 16384  # the widest hidden layer: a 16384 x 16384 layer is a 1 GiB matrix, 4 GiB with Adam's state
MAX_BATCH = 1 << 24  # the most env steps of a train batch (and of a minibatch)
MAX_EPOCHS = 1000  # the most passes over a train batch
MAX_ENV_RUNNERS = 1024  # the most env runners (each a Ray actor)


# ------------------------------------------------------------------------------------ env


class ShuangkouMultiAgentEnv(MultiAgentEnv):
    """Shuangkou as an RLlib `MultiAgentEnv`: one deal per episode, the four seats as
    agents ``player_0``..``player_3``, turn-based (see the module's docstring).

    config: the arguments of the package's AEC env (`shuangkou.env`), as RLlib's
    ``env_config``: ``variant`` (default "baibian"), ``reward`` ("win", "score" or "log"),
    ``illegal_action`` ("terminate", "raise" or "random"), ``illegal_reward`` and any rule
    parameter (``max_bomb=10``, ...). A bad value raises the AEC env's ValueError; an
    unknown key its TypeError.

    ``reset(seed=s)`` deals ``sk.Game(variant, seed=s)``; without a seed a deal is drawn from
    the env's RNG. `step` takes ``{agent: action id}`` for the agent to act (the only key
    of the last observation dict); an action the mask forbids is handled as
    ``illegal_action`` says (the default ends the deal, the offender's team gets
    ``illegal_reward``, and a warning names it), as in the AEC env.
    """

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        if config is not None and not isinstance(config, Mapping):
            raise TypeError(
                "ShuangkouMultiAgentEnv: config must be a mapping of the AEC env's arguments (RLlib's env_config, "
                f"e.g. {{'variant': 'baibian', 'reward': 'win'}}) or None, got {type(config).__name__} {config!r:.60}"
            )
        config = dict(config or {})  # (RLlib passes an EnvContext: a dict with the worker's index)
        self.aec = raw_env(**config)  # checks every argument
        self.render_mode = self.aec.render_mode
        self.rules = self.aec.rules
        self.num_actions = self.aec.num_actions
        self.observation_size = self.aec.observation_size
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        self._over = False
        space = spaces.Dict(
            {
                OBS_KEY: observation_box(self.observation_size),
                MASK_KEY: spaces.Box(0, 1, (self.num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.aec.observe(agent)
        return {OBS_KEY: obs["observation"], MASK_KEY: obs["action_mask"]}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Deals a new deal; returns the observation (and an empty info) of the seat to lead."""
        self.aec.reset(seed=seed, options=options)
        self._over = False
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {agent: {}}

    def step(self, action_dict: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Plays the action of the agent to act: ``(obs, rewards, terminateds, truncateds,
        infos)``, each keyed by agent; mid-deal ``obs`` holds the next agent to act only and
        ``rewards`` the 0 of the agent that acted; at the end every agent gets its final
        observation, reward and info (``score``, ``outcome``, ``finish_order``)."""
        aec = self.aec
        if aec.game is None:
            raise RuntimeError("ShuangkouMultiAgentEnv: call reset() before step()")
        agent = aec.agent_selection
        if self._over:
            raise RuntimeError("ShuangkouMultiAgentEnv: the deal is over; call reset() before step()")
        if agent not in action_dict:
            raise ValueError(
                f"ShuangkouMultiAgentEnv: the action dict must hold an action for {agent}, the agent to act "
                f"(turn-based: one agent a step), got keys {sorted(map(str, action_dict))}"
            )
        others = sorted(str(a) for a in action_dict if a != agent)
        if others:
            raise ValueError(f"ShuangkouMultiAgentEnv: only {agent} acts now, got actions for {others} too")
        aec.step(action_dict[agent])
        if not all(aec.terminations.values()):
            nxt = aec.agent_selection
            return {nxt: self._observe(nxt)}, {agent: 0.0}, {"__all__": False}, {"__all__": False}, {}
        done = self.possible_agents
        obs = {a: self._observe(a) for a in done}
        rewards = {a: float(aec.rewards[a]) for a in done}
        terminateds: dict[str, bool] = {a: True for a in done}
        terminateds["__all__"] = True
        truncateds: dict[str, bool] = {a: False for a in done}
        truncateds["__all__"] = False
        infos = {a: dict(aec.infos[a]) for a in done}
        self._over = True  # (`agents` keeps the four: RLlib's checks read it after the last step)
        return obs, rewards, terminateds, truncateds, infos

    def legal_actions(self) -> list[int]:
        """The legal action ids of the agent to act (sorted); empty once the deal is over."""
        return self.aec.legal_actions()

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


def register(name: str = ENV_NAME) -> str:
    """Registers `ShuangkouMultiAgentEnv` with Tune under `name` (done for ``"shuangkou"``
    on import): ``config.environment(name, env_config={...})`` then builds it."""
    register_env(name, lambda env_config: ShuangkouMultiAgentEnv(env_config))
    return name


register()


# --------------------------------------------------------------------------------- module


_ACTIVATIONS: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh, "silu": nn.SiLU, "swish": nn.SiLU}


def _model_options(config: Any) -> dict[str, Any]:
    """The keys of a model_config (None, a dict or RLlib's DefaultModelConfig) that the
    module reads, as a dict; ValueError for anything but a mapping."""
    if config is None:
        return {}
    if is_dataclass(config) and not isinstance(config, type):
        config = asdict(config)
    if not isinstance(config, Mapping):
        raise ValueError(f"MaskedTorchRLModule: model_config must be a dict, got {type(config).__name__}")
    return {k: config[k] for k in ("fcnet_hiddens", "fcnet_activation", "vf_share_layers") if config.get(k) is not None}


def check_hidden(hidden: Any, what: str = "hidden") -> list[int]:
    """`hidden` as a list of layer widths: a sequence (a list, a tuple) of 1..`MAX_LAYERS` ints (never
    bools) of 1..`MAX_WIDTH`; ValueError naming `what`, the limits and the value otherwise."""
    allowed = f"a list of 1..{MAX_LAYERS} layer widths, each an integer 1..{MAX_WIDTH:,}"
    if isinstance(hidden, (str, bytes)) or not isinstance(hidden, Sequence) or not 1 <= len(hidden) <= MAX_LAYERS:
        raise ValueError(f"{what} must be {allowed}, got {hidden!r:.80}")
    for width in hidden:
        if (
            isinstance(width, (bool, np.bool_))
            or not isinstance(width, (int, np.integer))
            or not 1 <= width <= MAX_WIDTH
        ):
            raise ValueError(f"{what} must be {allowed}, got {list(hidden)!r:.80} (the width {width!r:.30})")
    return [int(w) for w in hidden]


def check_model_config(config: Any) -> tuple[list[int], str, bool]:
    """(hidden widths, activation, vf_share_layers) of a MaskedTorchRLModule model_config
    (its defaults for keys it leaves out or sets to None); ValueError naming the key, what
    it allows and the value for a bad one."""
    options = _model_options(config)
    hidden = check_hidden(options.get("fcnet_hiddens", [256, 256]), "MaskedTorchRLModule: fcnet_hiddens")
    activation = options.get("fcnet_activation", "relu")
    if not isinstance(activation, str) or activation not in _ACTIVATIONS:
        raise ValueError(
            f"MaskedTorchRLModule: fcnet_activation must be one of {sorted(_ACTIVATIONS)}, got {activation!r:.60}"
        )
    shared = options.get("vf_share_layers", False)
    if not isinstance(shared, (bool, np.bool_)):
        raise ValueError(f"MaskedTorchRLModule: vf_share_layers must be True or False, got {shared!r:.60}")
    return hidden, activation, bool(shared)


def _mlp(inputs: int, hidden: Sequence[int], activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(inputs, width), _ACTIVATIONS[activation]()]
        inputs = width
    return nn.Sequential(*layers)


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`logits` with every entry the mask forbids (mask 0) set to the lowest float32: a
    finite value, so a row with no legal action (a final observation) stays uniform
    instead of NaN, and every other row gives those actions probability 0."""
    return torch.where(mask > 0, logits, torch.full_like(logits, FLOAT_MIN))


class MaskedTorchRLModule(TorchRLModule, ValueFunctionAPI):
    """A PPO-ready RLModule for observations ``{"observations": Box, "action_mask": Box}``.

    The policy is an MLP over ``obs["observations"]`` whose logits are masked with
    ``obs["action_mask"]`` (`mask_logits`) in every forward pass; the value function is a
    second MLP over the same vector (`compute_values`, for PPO's GAE and value loss). The
    mask is never an input of either network.

    model_config (a dict; RLlib's `DefaultModelConfig` keys): ``fcnet_hiddens`` (default
    ``[256, 256]``: 1..`MAX_LAYERS` widths of 1..`MAX_WIDTH`), ``fcnet_activation`` ("relu",
    the default, "tanh" or "silu") and ``vf_share_layers`` (default False: the value MLP is
    separate); a bad value is a ValueError naming the key (`check_model_config`), before any
    layer is built.
    """

    def setup(self) -> None:
        space = self.observation_space
        if not isinstance(space, spaces.Dict) or OBS_KEY not in space.spaces or MASK_KEY not in space.spaces:
            raise ValueError(
                f"MaskedTorchRLModule needs a Dict observation space with the keys {OBS_KEY!r} and {MASK_KEY!r} "
                f"(ShuangkouMultiAgentEnv's), got {space}"
            )
        if not isinstance(self.action_space, spaces.Discrete):
            raise ValueError(f"MaskedTorchRLModule needs a Discrete action space, got {self.action_space}")
        inputs = int(np.prod(space[OBS_KEY].shape))
        hidden, activation, self.shared_vf = check_model_config(self.model_config)
        self.pi_encoder = _mlp(inputs, hidden, activation)
        self.pi_head = nn.Linear(hidden[-1], int(self.action_space.n))
        self.vf_encoder = None if self.shared_vf else _mlp(inputs, hidden, activation)
        self.vf_head = nn.Linear(hidden[-1], 1)

    def _split(self, batch: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        obs = batch[Columns.OBS]
        if not isinstance(obs, Mapping) or OBS_KEY not in obs or MASK_KEY not in obs:
            raise ValueError(
                f"MaskedTorchRLModule: batch['obs'] must be a dict with {OBS_KEY!r} and {MASK_KEY!r}, "
                f"got {type(obs).__name__}{'' if not isinstance(obs, Mapping) else ' with ' + str(sorted(obs))}"
            )
        x = obs[OBS_KEY]
        return x.reshape(x.shape[0], -1).float(), obs[MASK_KEY]

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        x, mask = self._split(batch)
        features = self.pi_encoder(x)
        out = {Columns.ACTION_DIST_INPUTS: mask_logits(self.pi_head(features), mask)}
        if self.shared_vf:
            out[Columns.EMBEDDINGS] = features
        return out

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None) -> torch.Tensor:
        """The value of each observation of the batch, [B]."""
        if embeddings is None:
            x, _ = self._split(batch)
            embeddings = self.pi_encoder(x) if self.vf_encoder is None else self.vf_encoder(x)
        return self.vf_head(embeddings).squeeze(-1)


# ----------------------------------------------------------------------------------- PPO


def policy_mapping(policies: str = "shared") -> tuple[list[str], Callable[..., str]]:
    """The policy ids and the mapping of agents to them: "shared" (one policy, `SHARED_POLICY`,
    plays the four seats; it sees every observation from the acting seat's view, so one
    network learns from both teams) or "team" (`TEAM_POLICIES`: ``team_0`` plays seats 0
    and 2, ``team_1`` seats 1 and 3)."""
    if policies == "shared":
        return [SHARED_POLICY], _to_shared
    if policies == "team":
        return list(TEAM_POLICIES), _to_team
    raise ValueError(f"policies must be one of {', '.join(POLICY_MAPPINGS)}, got {policies!r:.60}")


def _to_shared(agent_id: str, *args: Any, **kwargs: Any) -> str:
    return SHARED_POLICY


def _to_team(agent_id: str, *args: Any, **kwargs: Any) -> str:
    seat = int(str(agent_id).rpartition("_")[2])
    return TEAM_POLICIES[seat % 2]


def module_spec(
    policy_ids: Sequence[str] = (SHARED_POLICY,), hidden: Sequence[int] = (256, 256), activation: str = "relu"
) -> MultiRLModuleSpec:
    """A `MultiRLModuleSpec` of one `MaskedTorchRLModule` per policy id; ValueError (from
    `check_model_config`) for a bad `hidden` or `activation`."""
    config = {"fcnet_hiddens": check_hidden(hidden), "fcnet_activation": activation, "vf_share_layers": False}
    check_model_config(config)
    specs = {pid: RLModuleSpec(module_class=MaskedTorchRLModule, model_config=dict(config)) for pid in policy_ids}
    return MultiRLModuleSpec(rl_module_specs=specs)


def ppo_config(
    variant: Any = "baibian",
    *,
    policies: str = "shared",
    hidden: Sequence[int] = (256, 256),
    train_batch_size: int = 2000,
    minibatch_size: int = 256,
    num_epochs: int = 4,
    lr: float = 3e-4,
    num_env_runners: int = 0,
    seed: int | None = None,
    **env_options: Any,
) -> PPOConfig:
    """A `PPOConfig` on `ShuangkouMultiAgentEnv` (``env_config = {"variant": variant,
    **env_options}``, checked now by building one env) with `MaskedTorchRLModule` for every
    policy of `policy_mapping(policies)`, sized for a laptop: sampling in the driver
    (``num_env_runners=0``), one local learner, 2000 env steps a `train()`.

    RLlib's env pre-check is off: it steps an unmasked random action, which would end its
    first deal as an illegal action (with a warning); tests/python/test_rllib.py runs the
    check itself. Start Ray first (`start_ray()`: a local Ray on 127.0.0.1 only),
    then ``ppo_config(...).build_algo()``; change anything further on the returned config.

    Every argument is checked here, before anything is built (RLlib's own validation lets
    several bad ones through): ``train_batch_size`` 1..`MAX_BATCH`, ``minibatch_size``
    1..train_batch_size, ``num_epochs`` 1..`MAX_EPOCHS`, ``lr`` a finite number > 0,
    ``num_env_runners`` 0..`MAX_ENV_RUNNERS`, ``seed`` None or 0..2**32-1, ``hidden``
    1..`MAX_LAYERS` widths of 1..`MAX_WIDTH` (integers, never bools); ValueError naming the
    argument, what it allows and the value given.
    """
    _check_training(train_batch_size, minibatch_size, num_epochs, lr, num_env_runners, seed)
    env_config = {"variant": variant, **env_options}
    ShuangkouMultiAgentEnv(env_config).close()  # the env's own errors, now rather than in a worker
    policy_ids, mapping = policy_mapping(policies)
    config = (
        PPOConfig()
        .environment(ShuangkouMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .multi_agent(policies=set(policy_ids), policy_mapping_fn=mapping)
        .rl_module(rl_module_spec=module_spec(policy_ids, hidden))
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
        )
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


def _check_training(
    train_batch_size: Any, minibatch_size: Any, num_epochs: Any, lr: Any, num_env_runners: Any, seed: Any
) -> None:
    """ValueError naming the first of ppo_config's training arguments that is out of its range."""
    batch = int_arg(train_batch_size, "ppo_config: train_batch_size", 1, MAX_BATCH)
    int_arg(minibatch_size, "ppo_config: minibatch_size", 1, batch, f" (at most train_batch_size, {batch})")
    int_arg(num_epochs, "ppo_config: num_epochs", 1, MAX_EPOCHS)
    if isinstance(lr, (bool, np.bool_)) or not isinstance(lr, (int, float, np.integer, np.floating)):
        raise ValueError(f"ppo_config: lr must be a finite number > 0, got {lr!r:.60}")
    if not 0 < lr < float("inf"):  # (NaN fails this too)
        raise ValueError(f"ppo_config: lr must be a finite number > 0, got {lr!r:.60}")
    int_arg(num_env_runners, "ppo_config: num_env_runners", 0, MAX_ENV_RUNNERS, " (0: sampling in the driver)")
    if seed is not None:
        int_arg(seed, "ppo_config: seed", 0, 2**32 - 1, " or None")


# ----------------------------------------------------------------------------------- Ray


def start_ray() -> Any:
    """The ray module, connected as ``shuangkou.ray_cluster.connect(True)`` connects it: to
    the Ray this process already uses, or else to a new local Ray on 127.0.0.1 only
    (docs/ray.md)."""

    return connect(True)


# --------------------------------------------------------------------------------- arena


class ModuleAgent(Agent):
    """A trained RLModule as an `sk.arena` agent (made by `arena_agent`): an `Agent` that is
    also a callable ``agent(obs, mask, seats) -> action ids``. A sampling agent (greedy
    False) draws from a numpy Generator seeded with `seed` again at every ``reset(rules)``,
    which the arena and selfplay call before each run: two identical runs play alike."""

    def __init__(self, module: RLModule, greedy: bool, seed: int) -> None:
        self.module, self.greedy, self.seed = module, greedy, seed
        self.name = "rllib"
        self.__name__ = "rllib"
        self._rng = np.random.default_rng(seed)

    def reset(self, rules: Any) -> None:
        self._rng = np.random.default_rng(self.seed)

    def act(self, decisions: Decisions) -> np.ndarray:
        return self(decisions.obs, decisions.mask, decisions.seats)

    def __call__(self, obs: np.ndarray, mask: np.ndarray, seats: np.ndarray | None = None) -> np.ndarray:
        batch = {Columns.OBS: {OBS_KEY: torch.tensor(obs, dtype=torch.float32), MASK_KEY: torch.tensor(mask)}}
        logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
        if not self.greedy:  # the Gumbel-max trick: a sample of softmax(logits); masked logits stay far below
            logits = logits + self._rng.gumbel(size=logits.shape).astype(np.float32)
        return np.where(np.asarray(mask) > 0, logits, -np.inf).argmax(axis=1).astype(np.int64)


def arena_agent(module: RLModule, greedy: bool = True, seed: int = 0) -> ModuleAgent:
    """A trained `MaskedTorchRLModule` (``algo.get_module(policy_id)``) as an `sk.arena`
    agent (a `ModuleAgent`), also callable as ``agent(obs, mask, seats) -> action ids`` on
    batches (obs float32 [B, 445], mask int8 [B, num_actions]). greedy: the most probable
    legal action; otherwise one sampled from the masked distribution, by a numpy Generator
    seeded with `seed` (0..2**64-1) at the agent's making and again at every run's
    ``reset``. TypeError for a module that is not a torch RLModule, ValueError for a
    greedy that is not True or False or a bad seed."""
    if not isinstance(module, TorchRLModule) or isinstance(module, MultiRLModule):
        raise TypeError(
            "arena_agent: module must be a torch RLModule of one policy (algo.get_module(policy_id), e.g. "
            f"a MaskedTorchRLModule), got {type(module).__name__} {module!r:.60}"
        )
    if not isinstance(greedy, (bool, np.bool_)):
        raise ValueError(f"arena_agent: greedy must be True or False, got {greedy!r:.60}")
    return ModuleAgent(module, bool(greedy), int_arg(seed, "arena_agent: seed", 0, 2**64 - 1))
