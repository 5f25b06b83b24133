"""Stable-Baselines3 / sb3-contrib policies as arena agents (shuangkou.policy_agent,
docs/policies.md) and the example from training to the arena (experiments/ppo_to_arena.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
gym = pytest.importorskip("gymnasium")
torch = pytest.importorskip("torch")

import shuangkou as sk  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from shuangkou.agents import AgentError, AgentRulesError  # noqa: E402
from stable_baselines3 import DQN, PPO  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ENV_KWARGS = dict(variant="baibian", opponents="random", control_partner=True, team_formation="fixed")


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Tiny networks: one thread is fastest, and several fight the other tests for the cores."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def make_env(**kwargs):
    return gym.make("shuangkou/Shuangkou-v0", **{**ENV_KWARGS, **kwargs})


@pytest.fixture(scope="module")
def model():
    """A MaskablePPO trained for a few hundred steps on the Gymnasium env (its env still attached)."""
    m = MaskablePPO(
        "MlpPolicy",
        make_env(),
        n_steps=128,
        batch_size=64,
        n_epochs=2,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [64, 64]},
    )
    return m.learn(256)


def recorded(agent: sk.PolicyAgent) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Makes `agent` log every batch it decides: (obs, mask, chosen actions)."""
    log: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    choose = agent.choose

    def logged(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = choose(obs, mask)
        log.append((obs.copy(), mask.copy(), actions.copy()))
        return actions

    agent.choose = logged  # (an instance attribute: act() calls it)
    return log


def assert_all_legal(log) -> int:
    n = 0
    for _, mask, actions in log:
        assert (mask[np.arange(len(actions)), actions] == 1).all()
        n += len(actions)
    return n


# ---------------------------------------------------------------------------- playing


def test_maskable_ppo_plays_arena_runs_against_random_with_every_action_legal(model):
    agent = sk.policy_agent(model)
    assert agent.name == "MaskablePPO" and agent.trained_rules == sk.Rules("baibian", team_formation="fixed")
    log = recorded(agent)
    result = sk.arena("baibian", agents=[agent, "random"], deals=60, seed=3, batch=16)
    (pair,) = result["pairs"]
    assert (pair["a"], pair["b"], pair["deals"]) == ("MaskablePPO", "random", 60)
    assert 0 <= pair["wp_ci"][0] <= pair["wp"] <= pair["wp_ci"][1] <= 1
    assert assert_all_legal(log) > 60 * 2 * 10  # both halves, every deal to its end: many decisions
    assert max(len(a) for _, _, a in log) > 1  # decided in batches


def test_actions_are_maskable_ppos_own_masked_predictions(model):
    agent = sk.policy_agent(model)
    log = recorded(agent)
    sk.selfplay("baibian", games=40, agents=[agent, "random"], seed=1, team_formation="fixed")
    obs = np.concatenate([o for o, _, _ in log])
    mask = np.concatenate([m for _, m, _ in log])
    chosen = np.concatenate([a for _, _, a in log])
    predicted, _ = model.predict(obs, action_masks=mask.astype(bool), deterministic=True)
    np.testing.assert_array_equal(chosen, predicted)


def _mix64(z: int) -> int:
    m = (1 << 64) - 1
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


def _derive_seed(base: int, index: int) -> int:
    """The core's derive_seed (core/rng.h): deal i of a self-play run of seed s is dealt from
    derive_seed(s, i); deal k of the Gymnasium env reset with seed s from derive_seed(derive_seed(s, 0), k)."""
    return _mix64(base ^ _mix64((index + 0x9E3779B97F4A7C15) & ((1 << 64) - 1)))


@pytest.mark.parametrize("reset_seed", [5, 11])
def test_the_arena_feeds_the_policy_the_gymnasium_envs_observations(model, reset_seed):
    """One deal played twice: in the Gymnasium env the model was trained in (model.predict with
    the env's mask), and by selfplay with the policy agent; the observations, masks, actions
    and final scores agree step by step."""
    assert _derive_seed(_derive_seed(reset_seed, 0), 0) == sk.VectorEnv.episode_seed(reset_seed, 0, 0)
    env = make_env()
    obs, info = env.reset(seed=reset_seed)
    in_env, done = [], False
    while not done:
        mask = env.unwrapped.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        in_env.append((obs, mask, int(action)))
        obs, _, done, _, info = env.step(int(action))

    agent = sk.policy_agent(model)
    log = recorded(agent)
    res = sk.selfplay(
        "baibian", games=1, agents=[agent, "random"], seed=_derive_seed(reset_seed, 0), team_formation="fixed"
    )
    assert len(log) == len(in_env) > 5
    for (o, m, a), (eo, em, ea) in zip(log, in_env):
        np.testing.assert_array_equal(o[0], eo)  # float32 [445], the same bits
        np.testing.assert_array_equal(m[0] != 0, em)
        assert int(a[0]) == ea
    np.testing.assert_array_equal(res.arrays["scores"][0], info["final_scores"])


# ---------------------------------------------------------------------------- saving and loading


def test_saved_then_loaded_from_path_plays_the_same_actions(model, tmp_path):
    model.save(tmp_path / "ppo_baibian.zip")
    in_memory = sk.policy_agent(model)
    for loaded in (
        sk.policy_agent(tmp_path / "ppo_baibian.zip"),  # the algorithm found from the zip's policy class
        sk.policy_agent(str(tmp_path / "ppo_baibian.zip"), algorithm=MaskablePPO, variant="baibian"),
    ):
        assert loaded.name == "ppo_baibian" and isinstance(loaded.model, MaskablePPO)
        runs = [sk.arena("baibian", agents=[a, "random"], deals=30, seed=2) for a in (in_memory, loaded)]
        np.testing.assert_array_equal(*(r.arrays[(r["agents"][0], "random")]["score_diff"] for r in runs))
    rng = np.random.default_rng(0)
    obs = rng.uniform(-1, 1, (64, 445)).astype(np.float32)
    mask = (rng.random((64, 351)) < 0.1).astype(np.int8)
    mask[:, 0] = 1
    np.testing.assert_array_equal(in_memory.choose(obs, mask), loaded.choose(obs, mask))


def test_bad_models_and_files_are_refused_with_a_clear_message(model, tmp_path):
    with pytest.raises(ValueError, match="no model file"):
        sk.policy_agent(tmp_path / "missing.zip")
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a model saved by Stable-Baselines3"):
        sk.policy_agent(tmp_path / "junk.zip")
    with pytest.raises(ValueError, match="takes a Stable-Baselines3 model"):
        sk.policy_agent(lambda obs, mask, seats: mask.argmax(axis=1))
    with pytest.raises(ValueError, match="Q-values, not a distribution"):
        sk.policy_agent(DQN("MlpPolicy", make_env(), buffer_size=100, device="cpu"), deterministic=False)

    class OtherObservation(gym.Env):  # a model of another observation (10 floats)
        observation_space = gym.spaces.Box(-1.0, 1.0, (10,), np.float32)
        action_space = gym.spaces.Discrete(351)

        def reset(self, *, seed=None, options=None):
            return np.zeros(10, np.float32), {}

        def step(self, action):
            return np.zeros(10, np.float32), 0.0, True, False, {}

    with pytest.raises(ValueError, match=r"observes Box.*\(10,\).*Box of shape \(445,\)"):
        sk.policy_agent(PPO("MlpPolicy", OtherObservation(), n_steps=64, batch_size=64, device="cpu"))
    with pytest.raises(ValueError, match="seed"):
        sk.policy_agent(model, seed=-1)
    with pytest.raises(ValueError, match="unknown"):
        sk.policy_agent(model, variant="baibain")


# ---------------------------------------------------------------------------- the wrong rules


def test_a_model_for_other_rules_is_refused_before_any_deal(model, tmp_path):
    agent = sk.policy_agent(model)
    # baibian (351 actions) in qianbian (12,580): the catalogue differs.
    with pytest.raises(ValueError, match=r"Discrete\(351\).*qianbian.*12,580 actions.*baibian and jj"):
        agent.check("qianbian")
    calls = []
    with pytest.raises(AgentRulesError, match=r"reset\(\) refused the rules: MaskablePPO: .*Discrete\(351\)") as e:
        sk.arena("qianbian", agents=[agent, "random"], deals=10, progress=lambda done, total: calls.append(done))
    assert isinstance(e.value, ValueError) and isinstance(e.value, AgentError)  # both: the agent's, and bad input
    assert isinstance(e.value.__cause__, ValueError) and not calls  # refused before any deal was played
    model.save(tmp_path / "m.zip")
    with pytest.raises(ValueError, match=r"Discrete\(351\).*classic.*250 actions"):
        sk.policy_agent(tmp_path / "m.zip", variant="classic")  # a saved file, with the rules it was trained on

    # baibian in jj: the same catalogue, other rules (jj shows the partner's hand, scores otherwise).
    with pytest.raises(ValueError, match=r"trained on baibian.*not jj.*strict=False.*partner_visible false -> true"):
        agent.check("jj")
    with pytest.raises(ValueError, match="trained on baibian.*partner_visible false -> true"):
        sk.arena("jj", agents=[agent, "random"], deals=10)
    lenient = sk.policy_agent(model, strict=False)
    assert sk.arena("jj", agents=[lenient, "random"], deals=10)["pairs"][0]["deals"] == 10

    # A model of another action space: an untrained classic model asked to play baibian.
    classic = sk.policy_agent(MaskablePPO("MlpPolicy", make_env(variant="classic"), device="cpu"))
    with pytest.raises(ValueError, match=r"Discrete\(250\).*baibian.*351 actions.*classic"):
        classic.check("baibian")

    # Nothing changed: the refused agent still plays its own rules.
    assert sk.arena("baibian", agents=[agent, "random"], deals=10)["pairs"][0]["deals"] == 10


# ---------------------------------------------------------------------------- unmasked policies


def test_unmasked_ppo_and_dqn_play_only_legal_actions():
    env = make_env(variant="classic")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unmasked training steps illegal actions: the env warns and ends the deal
        ppo = PPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu").learn(64)
    dqn = DQN("MlpPolicy", env, buffer_size=100, seed=0, device="cpu")  # untrained: any Q-values
    for model in (ppo, dqn):
        agent = sk.policy_agent(model)
        log = recorded(agent)
        sk.arena("classic", agents=[agent, "random"], deals=20, seed=4)
        assert assert_all_legal(log) > 20 * 2 * 10
        obs = np.concatenate([o for o, _, _ in log])
        mask = np.concatenate([m for _, m, _ in log])
        unmasked, _ = model.predict(obs, deterministic=True)
        assert (mask[np.arange(len(obs)), unmasked] == 0).any()  # left to itself it would play illegal ids
    policy_only = sk.policy_agent(ppo.policy)  # a bare policy too
    assert policy_only.name == "ActorCriticPolicy" and policy_only.model is None


# ---------------------------------------------------------------------------- determinism


def test_same_seed_same_results(model):
    def run(agent, seed):
        r = sk.arena("baibian", agents=[agent, "random"], deals=25, seed=seed)
        return r.arrays[(agent.name, "random")]["score_diff"]

    greedy = sk.policy_agent(model)
    np.testing.assert_array_equal(run(greedy, 7), run(greedy, 7))
    np.testing.assert_array_equal(run(greedy, 7), run(sk.policy_agent(model), 7))
    sampled = sk.policy_agent(model, deterministic=False, seed=1, name="sampled")
    first = run(sampled, 7)
    np.testing.assert_array_equal(first, run(sampled, 7))  # the generator is seeded again at every run
    np.testing.assert_array_equal(first, run(sk.policy_agent(model, deterministic=False, seed=1, name="sampled"), 7))
    other = run(sk.policy_agent(model, deterministic=False, seed=2, name="sampled"), 7)
    assert not np.array_equal(first, other)
    log = recorded(sampled)
    sk.selfplay("baibian", games=10, agents=[sampled, "random"], seed=0)
    assert_all_legal(log)


# ---------------------------------------------------------------------------- the example


def test_the_training_to_arena_example_runs(tmp_path):
    script = ROOT / "experiments" / "ppo_to_arena.py"
    assert "--minutes" in subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True).stdout
    out = tmp_path / "run"
    cmd = [sys.executable, str(script), "--steps", "512", "--deals", "20", "--threads", "1", "--out", str(out)]
    p = subprocess.run([*cmd, "--report", str(tmp_path / "report.md")], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "maskable_ppo vs random: WP " in p.stdout and "maskable_ppo vs heuristic: WP " in p.stdout
    result = json.loads((out / "arena" / "results.json").read_text(encoding="utf-8"))
    assert result["agents"] == ["maskable_ppo", "random", "heuristic"] and result["eval_set"] == "eval-v1"
    assert [p["deals"] for p in result["pairs"]] == [20, 20, 20]
    assert sk.policy_agent(out / "maskable_ppo.zip", variant="baibian").name == "maskable_ppo"
    assert "```text" in (tmp_path / "report.md").read_text(encoding="utf-8")
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode != 0 and "--force" in again.stderr  # an earlier run is not overwritten


def test_a_model_saved_by_the_maskable_ppo_experiment_plays_in_the_arena(tmp_path):
    script = ROOT / "experiments" / "maskable_ppo.py"
    tiny = ["--timesteps", "256", "--eval-deals", "4", "--curve-deals", "4", "--curve-points", "1"]
    tiny += ["--n-envs", "2", "--n-steps", "64", "--batch-size", "64", "--threads", "1"]
    out = ["--out", str(tmp_path / "r.md"), "--plot", str(tmp_path / "r.png"), "--save", str(tmp_path / "m.zip")]
    p = subprocess.run([sys.executable, str(script), *tiny, *out], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    agent = sk.policy_agent(tmp_path / "m.zip", variant="baibian")  # the experiment trains on baibian
    result = sk.arena("baibian", agents=[agent, "random"], deals=6, seed=2)
    assert result["pairs"][0]["a"] == "m" and result["pairs"][0]["deals"] == 6
