"""The RLlib adapter (shuangkou.rllib): its multi-agent env under RLlib's check and a
masked random deal, the action-masking RLModule on real observations, and one PPO
iteration on a local Ray bound to 127.0.0.1. Skipped without ray[rllib] and torch."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ray.rllib")

import shuangkou as sk  # noqa: E402
import shuangkou.integrations.rllib as skr  # noqa: E402
import torch  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
AGENTS = [f"player_{i}" for i in range(4)]


def play_masked_random_deal(env: skr.ShuangkouMultiAgentEnv, seed: int) -> tuple[list[int], dict, dict, list]:
    """One deal with uniformly random legal actions; checks the turn-based contract on the
    way. Returns the actions, the final rewards, terminateds and the observations seen."""
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    game = sk.Game(env.rules, seed=seed)  # the same deal, stepped alongside
    actions: list[int] = []
    seen = []
    while True:
        assert list(obs) == [AGENTS[game.current_player()]], "only the seat to act observes mid-deal"
        ((agent, o),) = obs.items()
        assert env.observation_spaces[agent].contains(o)
        legal = np.flatnonzero(o["action_mask"])
        assert legal.tolist() == env.legal_actions() == game.legal_action_ids().tolist()
        seen.append(o)
        action = int(rng.choice(legal))
        obs, rewards, terminateds, truncateds, infos = env.step({agent: np.int64(action)})
        game.apply_action(action)
        actions.append(action)
        assert not truncateds["__all__"]
        if terminateds["__all__"]:
            break
        assert rewards == {agent: 0.0}
        assert len(actions) < 500, "the deal did not end"
    assert game.is_over()
    assert set(obs) == set(rewards) == set(AGENTS) == set(terminateds) - {"__all__"}
    assert all(terminateds.values())
    assert not any(infos[a].get("illegal_action") for a in AGENTS)
    for a in AGENTS:
        assert not obs[a]["action_mask"].any(), "no action is legal once the deal is over"
    expected = game.rewards(env.aec.reward_mode)
    assert [rewards[a] for a in AGENTS] == pytest.approx(list(expected))
    return actions, rewards, terminateds, seen


# ------------------------------------------------------------------------- env, no Ray needed


def test_env_passes_rllibs_multi_agent_check():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = skr.ShuangkouMultiAgentEnv({"variant": "baibian"})
    with warnings.catch_warnings(record=True):  # its random action ignores the mask: an illegal-action warning
        warnings.simplefilter("always")
        check_multiagent_environments(env)
    space = env.observation_spaces["player_0"]
    assert sorted(space.spaces) == ["action_mask", "observations"]  # what RLlib's action masking reads
    assert space["observations"].shape == (sk._core.observation_size(),)
    assert space["action_mask"].shape == (env.num_actions,) == (len(env.rules.catalogue),)
    assert env.possible_agents == AGENTS


@pytest.mark.parametrize(
    "config",
    [{}, {"variant": "classic", "reward": "score"}, {"variant": "qianbian", "max_bomb": 10, "reward": "log"}],
    ids=["baibian-win", "classic-score", "qianbian-log"],
)
def test_a_masked_random_deal_plays_to_the_end_with_the_packages_rewards(config):
    env = skr.ShuangkouMultiAgentEnv(config)
    for seed in (0, 1):
        _, rewards, _, _ = play_masked_random_deal(env, seed)
        if config.get("reward", "win") == "win":
            assert rewards["player_0"] == rewards["player_2"] == -rewards["player_1"] == -rewards["player_3"]


def test_env_errors_name_the_problem():
    with pytest.raises(ValueError, match="nope"):
        skr.ShuangkouMultiAgentEnv({"variant": "nope"})
    with pytest.raises(ValueError, match="reward must be one of"):
        skr.ShuangkouMultiAgentEnv({"reward": "points"})
    with pytest.raises(TypeError):
        skr.ShuangkouMultiAgentEnv({"no_such_option": 1})
    env = skr.ShuangkouMultiAgentEnv()
    with pytest.raises(RuntimeError, match="reset"):
        env.step({"player_0": 0})
    obs, _ = env.reset(seed=3)
    (agent,) = obs
    other = next(a for a in AGENTS if a != agent)
    with pytest.raises(ValueError, match=f"action for {agent}"):
        env.step({other: 0})
    with pytest.raises(ValueError, match="only"):
        env.step({agent: 0, other: 0})
    with pytest.raises(ValueError, match="action space"):
        env.step({agent: env.num_actions})
    with pytest.raises(ValueError, match="policies must be one of"):
        skr.ppo_config(policies="each")
    with pytest.raises(ValueError, match="max_bomb"):
        skr.ppo_config("baibian", max_bomb=99)  # the env's error, at once


@pytest.mark.parametrize("config", [5, "baibian", [("variant", "jj")], 0.5])
def test_an_env_config_that_is_not_a_mapping_is_named(config):
    with pytest.raises(TypeError, match=r"config must be a mapping of the AEC env's arguments .* or None, got "):
        skr.ShuangkouMultiAgentEnv(config)


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"lr": -1}, "lr must be a finite number > 0, got -1"),
        ({"lr": 0.0}, "lr must be a finite number > 0, got 0.0"),
        ({"lr": float("nan")}, "lr must be a finite number > 0, got nan"),
        ({"lr": float("inf")}, "lr must be a finite number > 0, got inf"),
        ({"lr": True}, "lr must be a finite number > 0, got True"),
        ({"lr": "3e-4"}, "lr must be a finite number > 0, got '3e-4'"),
        ({"num_epochs": 0}, "num_epochs must be an integer 1..1000, got 0"),
        ({"num_epochs": 2.0}, "num_epochs must be an integer 1..1000, got 2.0"),
        ({"train_batch_size": 0}, "train_batch_size must be an integer 1..16777216, got 0"),
        ({"train_batch_size": True}, "train_batch_size must be an integer 1..16777216, got True"),
        ({"minibatch_size": 0}, "minibatch_size must be an integer 1..2000 (at most train_batch_size, 2000), got 0"),
        ({"minibatch_size": 2001}, "minibatch_size must be an integer 1..2000"),
        ({"num_env_runners": -3}, "num_env_runners must be an integer 0..1024 (0: sampling in the driver), got -3"),
        ({"seed": "x"}, "seed must be an integer 0..4294967295 or None, got 'x'"),
        ({"seed": -1}, "seed must be an integer 0..4294967295 or None, got -1"),
        ({"seed": 2**32}, "seed must be an integer 0..4294967295 or None, got 4294967296"),
        ({"seed": False}, "seed must be an integer 0..4294967295 or None, got False"),
    ],
)
def test_ppo_config_refuses_bad_training_arguments(kwargs, needle):
    """RLlib's own validate() let lr=-1, num_epochs=0, train_batch_size=0, num_env_runners=-3
    and seed='x' through."""
    with pytest.raises(ValueError, match="ppo_config: ") as e:
        skr.ppo_config("baibian", **kwargs)
    assert needle in str(e.value)


@pytest.mark.parametrize(
    "hidden, needle",
    [
        ([0], "(the width 0)"),
        ([], "got []"),
        ([10**9], f"(the width {10**9})"),  # (was torch's allocator error, a 1.6 TB layer)
        ([skr.MAX_WIDTH + 1], f"(the width {skr.MAX_WIDTH + 1})"),
        ([64, True], "(the width True)"),
        ([64.0], "(the width 64.0)"),
        (64, "got 64"),
        ("64", "got '64'"),
        ([8] * (skr.MAX_LAYERS + 1), "got [8, 8"),
    ],
)
def test_hidden_layers_are_refused_before_anything_is_built(hidden, needle):
    allowed = f"hidden must be a list of 1..{skr.MAX_LAYERS} layer widths, each an integer 1..{skr.MAX_WIDTH:,}"
    with pytest.raises(ValueError, match=re.escape(allowed)) as e:
        skr.ppo_config("baibian", hidden=hidden)
    assert needle in str(e.value)
    with pytest.raises(ValueError, match=re.escape(allowed)):
        skr.module_spec(hidden=hidden)
    config = skr.ppo_config("baibian", hidden=[skr.MAX_WIDTH, 1] + [2] * (skr.MAX_LAYERS - 2))  # the limits pass
    assert config.rl_module_spec.rl_module_specs["shared"].model_config["fcnet_hiddens"][0] == skr.MAX_WIDTH


@pytest.mark.parametrize(
    "model_config, needle",
    [
        ({"fcnet_hiddens": 64}, "fcnet_hiddens must be a list of 1..64 layer widths"),  # (was a TypeError in torch)
        ({"fcnet_hiddens": [0]}, "(the width 0)"),
        ({"fcnet_hiddens": [10**9]}, "each an integer 1..16,384"),
        ({"fcnet_activation": 5}, "fcnet_activation must be one of ['relu', 'silu', 'swish', 'tanh'], got 5"),
        ({"vf_share_layers": "yes"}, "vf_share_layers must be True or False, got 'yes'"),
        ([("fcnet_hiddens", [8])], "model_config must be a dict, got list"),
    ],
)
def test_the_module_names_a_bad_model_config(model_config, needle):
    env = skr.ShuangkouMultiAgentEnv()
    with pytest.raises(ValueError, match="MaskedTorchRLModule: ") as e:
        skr.MaskedTorchRLModule(
            observation_space=env.observation_spaces["player_0"],
            action_space=env.action_spaces["player_0"],
            model_config=model_config,
        )
    assert needle in str(e.value)


def small_module(seed: int = 0) -> skr.MaskedTorchRLModule:
    env = skr.ShuangkouMultiAgentEnv()
    torch.manual_seed(seed)
    return skr.MaskedTorchRLModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"fcnet_hiddens": [16]},
    )


def test_arena_agent_refuses_what_is_not_a_module_or_a_bool():
    for module in (5, "shared", None, skr.MaskedTorchRLModule):
        with pytest.raises(TypeError, match=r"arena_agent: module must be a torch RLModule of one policy"):
            skr.arena_agent(module)
    module = small_module()
    for greedy in ("no", 1, None):
        with pytest.raises(ValueError, match=f"arena_agent: greedy must be True or False, got {greedy!r}"):
            skr.arena_agent(module, greedy=greedy)
    for seed in (-1, "1", 1.0, True):
        with pytest.raises(ValueError, match=r"arena_agent: seed must be an integer 0\.\.18446744073709551615"):
            skr.arena_agent(module, seed=seed)


def test_a_sampling_arena_agent_plays_two_identical_arenas_alike():
    """The sampling agent's generator is seeded again at each run's reset(rules), not once
    when it is made: the second of two identical arenas plays as the first did."""
    agent = skr.arena_agent(small_module(), greedy=False, seed=3)
    runs = [sk.arena("baibian", agents=[agent, "random"], deals=4, seed=0, threads=1)["pairs"] for _ in range(2)]
    assert runs[0] == runs[1]

    def selfplay(player: skr.ModuleAgent) -> list:
        out = sk.selfplay("baibian", games=4, agents=[player, "random"], seed=1, threads=1)
        return [out[k] for k in ("outcomes", "scores", "bombs", "length")]

    assert selfplay(agent) == selfplay(agent)
    assert selfplay(skr.arena_agent(agent.module, greedy=False, seed=4)) != selfplay(agent)  # the seed counts


def test_an_illegal_action_ends_the_deal_as_the_aec_env_says():
    env = skr.ShuangkouMultiAgentEnv({"illegal_reward": -2.0})
    obs, _ = env.reset(seed=5)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="illegal action"):
        _, rewards, terminateds, _, infos = env.step({agent: illegal})
    assert terminateds["__all__"] and infos[agent]["illegal_action"]
    seat = AGENTS.index(agent)
    assert [rewards[a] for a in AGENTS] == [-2.0 if s % 2 == seat % 2 else 0.0 for s in range(4)]
    with pytest.raises(RuntimeError, match="over"):
        env.step({agent: 0})


def test_policy_mappings():
    ids, mapping = skr.policy_mapping("shared")
    assert ids == [skr.SHARED_POLICY] and {mapping(a, None) for a in AGENTS} == {skr.SHARED_POLICY}
    ids, mapping = skr.policy_mapping("team")
    assert ids == list(skr.TEAM_POLICIES)
    assert [mapping(a, None) for a in AGENTS] == ["team_0", "team_1", "team_0", "team_1"]


def test_import_without_ray_says_how_to_install_it():
    code = "import sys; sys.modules['ray'] = None\ntry:\n import shuangkou.integrations.rllib\nexcept ImportError as e:\n print(e)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "scripts/setup.sh --ray --rllib" in out.stdout, out.stdout + out.stderr


# ---------------------------------------------------------------------- the masked module


def real_observations(n_deals: int = 3) -> dict[str, torch.Tensor]:
    """Observations of masked random deals, the final (all-masked) ones included."""
    env = skr.ShuangkouMultiAgentEnv()
    seen = []
    for seed in range(n_deals):
        env.reset(seed=seed)
        _, _, _, obs = play_masked_random_deal(env, seed)
        seen += obs
        seen.append(env._observe("player_0"))  # a final observation: no legal action
    return {k: torch.from_numpy(np.stack([o[k] for o in seen])) for k in ("observations", "action_mask")}


def test_the_module_never_puts_probability_on_an_illegal_action():
    env = skr.ShuangkouMultiAgentEnv()
    module = skr.MaskedTorchRLModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"fcnet_hiddens": [32, 32]},
    )
    obs = real_observations()
    mask = obs["action_mask"] > 0
    live = mask.any(dim=1)
    assert live.sum() > 300 and (~live).sum() == 3
    torch.manual_seed(0)
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        logits = forward({Columns.OBS: dict(obs)})[Columns.ACTION_DIST_INPUTS]
        assert torch.isfinite(logits).all()
        probs = torch.softmax(logits, dim=1)
        assert (probs[~mask & live[:, None]] == 0).all()
        assert torch.allclose(probs[live].masked_fill(~mask[live], 0).sum(dim=1), torch.ones(int(live.sum())))
        dist = module.get_exploration_action_dist_cls().from_logits(logits[live])
        for _ in range(5):
            sampled = dist.sample()
            assert mask[live].gather(1, sampled[:, None]).all()
    values = module.compute_values({Columns.OBS: dict(obs)})
    assert values.shape == (len(mask),) and torch.isfinite(values).all()
    # The mask is not an input: the same observation under another mask keeps its legal logits.
    other = {"observations": obs["observations"], "action_mask": torch.ones_like(obs["action_mask"])}
    a = module.forward_inference({Columns.OBS: dict(obs)})[Columns.ACTION_DIST_INPUTS]
    b = module.forward_inference({Columns.OBS: other})[Columns.ACTION_DIST_INPUTS]
    assert torch.equal(a[mask], b[mask])
    agent = skr.arena_agent(module, greedy=False)
    picked = agent(obs["observations"][live].numpy(), obs["action_mask"][live].numpy(), None)
    assert mask[live].numpy()[np.arange(len(picked)), picked].all()


def test_the_module_refuses_a_space_without_the_mask():
    from gymnasium import spaces

    with pytest.raises(ValueError, match="'observations' and 'action_mask'"):
        skr.MaskedTorchRLModule(observation_space=spaces.Box(0, 1, (4,)), action_space=spaces.Discrete(3))


# ------------------------------------------------------------------------------ PPO on Ray


@pytest.fixture(scope="module")
def ray_local():
    import ray

    started = not ray.is_initialized()
    skr.start_ray()
    yield ray
    if started:
        ray.shutdown()


def test_the_local_ray_listens_on_the_loopback_only(ray_local):
    addresses = {n["NodeManagerAddress"] for n in ray_local.nodes() if n["Alive"]}
    assert addresses == {"127.0.0.1"}


def test_one_ppo_iteration_then_the_module_plays_the_arena(ray_local):
    config = skr.ppo_config("baibian", train_batch_size=256, minibatch_size=128, num_epochs=1, hidden=(32,), seed=0)
    algo = config.build_algo() if hasattr(config, "build_algo") else config.build()
    try:
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 256
        learner = result["learners"][skr.SHARED_POLICY]
        assert np.isfinite(learner["total_loss"]) and np.isfinite(learner["entropy"])
        module = algo.get_module(skr.SHARED_POLICY)
        assert isinstance(module, skr.MaskedTorchRLModule)
        agent = skr.arena_agent(module)
        out = sk.arena(variant="baibian", agents=[agent, "random"], deals=4, seed=0, threads=1)
        assert out["agents"] == ["rllib", "random"] and out["pairs"][0]["deals"] == 4
    finally:
        algo.stop()
