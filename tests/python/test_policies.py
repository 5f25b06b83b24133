"""Stable-Baselines3 / sb3-contrib policies as arena agents (shuangkou.policy_agent,
docs/policies.md) and the example from training to the arena (experiments/ppo_to_arena.py)."""

from __future__ import annotations

import base64
import io
import json
import pickle
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
gym = pytest.importorskip("gymnasium")
torch = pytest.importorskip("torch")

import shuangkou as sk  # noqa: E402
from sb3_contrib import QRDQN, MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402
from shuangkou.agents import AgentError, AgentRulesError  # noqa: E402
from shuangkou.integrations import sb3 as policies  # noqa: E402
from stable_baselines3 import A2C, DQN, PPO  # noqa: E402

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
    safe = sk.policy_agent(tmp_path / "ppo_baibian.zip")  # rebuilt from the weights: no model object
    assert safe.model is None and isinstance(safe.policy, MaskableActorCriticPolicy)
    trusted = sk.policy_agent(str(tmp_path / "ppo_baibian.zip"), algorithm=MaskablePPO, variant="baibian", trusted=True)
    assert isinstance(trusted.model, MaskablePPO)
    for loaded in (safe, trusted, sk.policy_agent(tmp_path / "ppo_baibian.zip", trusted=True)):
        assert loaded.name == "ppo_baibian"
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
    model.save(tmp_path / "m.zip")
    with pytest.raises(ValueError, match=r"^device 'bogus': not a torch device \(Expected one of cpu"):
        sk.policy_agent(tmp_path / "m.zip", device="bogus")
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


# ---------------------------------------------------------------------------- files not trusted


class Touch:
    """Unpickling it creates the file `path`: the stand-in for code a crafted model file runs."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def rewritten(src: Path, dst: Path, **entries: bytes | None) -> Path:
    """A copy of the zip `src` at `dst` with `entries` (name -> bytes; None drops it) replaced."""
    entries = {k.replace("_pth", ".pth"): v for k, v in entries.items()}
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for name in zin.namelist():
            if name not in entries:
                zout.writestr(name, zin.read(name))
        for name, raw in entries.items():
            if raw is not None:
                zout.writestr(name, raw)
    return dst


def crafted_data(src: Path, marker: Path, **changes) -> bytes:
    """The `data` entry of the zip `src` with every cloudpickled object replaced by a pickle
    that creates `marker`, and `changes` made to its entries' readable parts."""
    with zipfile.ZipFile(src) as z:
        data = json.loads(z.read("data"))
    payload = base64.b64encode(pickle.dumps(Touch(marker))).decode()
    for entry in data.values():
        if isinstance(entry, dict) and ":serialized:" in entry:
            entry[":serialized:"] = payload
    for key, value in changes.items():
        data[key] = {**data.get(key, {}), **value} if isinstance(value, dict) else value
    return json.dumps(data).encode()


def random_batch(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    obs = rng.uniform(-1, 1, (64, 445)).astype(np.float32)
    mask = (rng.random((64, n)) < 0.1).astype(np.int8)
    mask[:, 0] = 1
    return obs, mask


def test_a_crafted_zip_runs_no_code_by_default_and_only_with_trusted(model, tmp_path):
    model.save(tmp_path / "m.zip")
    marker = tmp_path / "ran"
    evil = rewritten(tmp_path / "m.zip", tmp_path / "evil.zip", data=crafted_data(tmp_path / "m.zip", marker))
    agent = sk.policy_agent(evil)  # its policy class, spaces, schedules: all pickles that would run
    assert not marker.exists() and agent.model is None
    obs, mask = random_batch(351)
    np.testing.assert_array_equal(agent.scores(obs), sk.policy_agent(model).scores(obs))  # the weights, rebuilt
    with pytest.raises(ValueError, match="names no policy class"):
        sk.policy_agent(evil, trusted=True)  # SB3's own load unpickles `data`...
    assert marker.exists()  # ...and ran the file's code: trusted=True only for files you trust
    marker.unlink()

    # A pickle in policy.pth: torch.load(weights_only=True) refuses it, and nothing runs.
    buf = io.BytesIO()
    torch.save({"action_net.weight": Touch(marker)}, buf)
    bad_weights = rewritten(tmp_path / "m.zip", tmp_path / "w.zip", policy_pth=buf.getvalue())
    with pytest.raises(
        ValueError,
        match=r"w\.zip: its policy\.pth is not a weights-only torch file \(it pickles io\.open.*trusted=True",
    ):
        sk.policy_agent(bad_weights)
    # A class of its own: only the trusted load could build it.
    custom = {"__module__": "evil.policies", "__init__": "<function EvilPolicy.__init__ at 0x7f00>"}
    for data, problem in [
        (crafted_data(tmp_path / "m.zip", marker, policy_class=custom), "policy class is EvilPolicy of evil.policies"),
        (
            crafted_data(
                tmp_path / "m.zip",
                marker,
                policy_kwargs={"features_extractor_class": "<class 'evil.Extractor'>", ":serialized:": "x"},
            ),
            "policy_kwargs features_extractor_class=<class 'evil.Extractor'>",
        ),
        (
            crafted_data(tmp_path / "m.zip", marker, policy_kwargs={"activation_fn": "<class 'evil.Act'>"}),
            "activation_fn <class 'evil.Act'> is not a torch.nn activation",
        ),
    ]:
        with pytest.raises(ValueError, match=f"{problem}.*trusted=True .* runs code in the file"):
            sk.policy_agent(rewritten(tmp_path / "m.zip", tmp_path / "c.zip", data=data))
    assert not marker.exists()


def test_models_saved_by_sb3_load_without_trust_and_play_like_the_trusted_load(tmp_path):
    """Each kind of policy rebuilt from its weights (layer sizes from their shapes, the
    activation from the JSON) scores every action exactly as SB3's own load of the file."""
    env = make_env()
    models = {
        "a2c": A2C(
            "MlpPolicy",
            env,
            device="cpu",
            policy_kwargs={"net_arch": {"pi": [32], "vf": [16, 8]}, "activation_fn": torch.nn.ReLU},
        ),
        "ppo": PPO("MlpPolicy", env, n_steps=64, batch_size=64, device="cpu", policy_kwargs={"net_arch": []}),
        "dqn": DQN("MlpPolicy", env, buffer_size=100, device="cpu", policy_kwargs={"net_arch": [32, 16]}),
        "qrdqn": QRDQN(
            "MlpPolicy", env, buffer_size=100, device="cpu", policy_kwargs={"net_arch": [16], "n_quantiles": 5}
        ),
    }
    obs, mask = random_batch(351, seed=1)
    for label, m in models.items():
        m.save(tmp_path / label)
        safe = sk.policy_agent(tmp_path / f"{label}.zip", variant="baibian")
        trusted = sk.policy_agent(tmp_path / f"{label}.zip", trusted=True)
        assert safe.model is None and type(safe.policy) is type(trusted.policy) is type(m.policy)
        np.testing.assert_array_equal(safe.scores(obs), trusted.scores(obs))
        np.testing.assert_array_equal(safe.choose(obs, mask), trusted.choose(obs, mask))
    a2c = sk.policy_agent(tmp_path / "a2c.zip").policy
    assert isinstance(a2c.mlp_extractor.policy_net[1], torch.nn.ReLU)  # not the default Tanh


def test_files_that_cannot_be_read_safely_are_refused_with_one_line(model, tmp_path, monkeypatch):
    model.save(tmp_path / "m.zip")
    m = tmp_path / "m.zip"
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("data", b" " * (16 << 20) + b"{}")  # 16 MiB of spaces: 16 KB deflated
        z.writestr("policy.pth", b"")
    assert bomb.stat().st_size < 100_000
    with zipfile.ZipFile(m) as z:
        data = z.read("data")

    def weights(**changes) -> bytes:  # the model's policy.pth with tensors changed (None: dropped)
        state = dict(model.policy.state_dict())
        for key, value in changes.items():
            state[key.replace("_net_", "_net.")] = value
        buf = io.BytesIO()
        torch.save({k: v for k, v in state.items() if v is not None}, buf)
        return buf.getvalue()

    cases = [
        (bomb, r"entry data \(16,777,218 bytes\) is larger than the 16,777,216 bytes read"),
        (rewritten(m, tmp_path / "a.zip", policy_pth=None), "it has no policy.pth entry"),
        (rewritten(m, tmp_path / "b.zip", data=b"\x80pickle"), "its data entry is not JSON"),
        (rewritten(m, tmp_path / "c.zip", policy_pth=b"junk"), "its policy.pth is not a weights-only torch file"),
        (
            rewritten(m, tmp_path / "d.zip", data=data.replace(b"MaskableActorCriticPolicy.__init__", b"X.__init__")),
            "policy class is X of sb3_contrib",
        ),
        (
            rewritten(m, tmp_path / "e.zip", policy_pth=weights(action_net_bias=torch.zeros(3))),
            "does not fit a Maskable",
        ),
        (rewritten(m, tmp_path / "f.zip", policy_pth=weights(action_net_weight=None)), "has no action_net.weight"),
        (
            rewritten(m, tmp_path / "g.zip", policy_pth=weights(action_net_weight=torch.zeros(250, 64))),
            r"its data says Discrete\(351\), its weights give 250 actions",
        ),
    ]
    for path, problem in cases:
        with pytest.raises(ValueError, match=problem) as e:
            sk.policy_agent(path)
        assert "\n" not in str(e.value) and str(path) in str(e.value)
    monkeypatch.setitem(policies.MAX_ENTRY_BYTES, "policy.pth", 1000)  # a cap on the weights too
    with pytest.raises(ValueError, match=r"entry policy\.pth \(\d[\d,]+ bytes\) is larger than the 1,000 bytes read"):
        sk.policy_agent(m)
    monkeypatch.undo()

    class OtherObservation(gym.Env):  # a model of another observation (10 floats)
        observation_space = gym.spaces.Box(-1.0, 1.0, (10,), np.float32)
        action_space = gym.spaces.Discrete(351)

    PPO("MlpPolicy", OtherObservation(), n_steps=64, batch_size=64, device="cpu").save(tmp_path / "o.zip")
    with pytest.raises(ValueError, match=r"o\.zip: the model observes .*Box.* of shape \[10\], but .*\(445,\)"):
        sk.policy_agent(tmp_path / "o.zip")
    with pytest.raises(ValueError, match=r"Discrete\(351\).*classic.*250 actions"):
        sk.policy_agent(m, variant="classic")
    with pytest.raises(ValueError, match="its policy is MaskableActorCriticPolicy, not DQN's"):
        sk.policy_agent(m, algorithm=DQN)
    with pytest.raises(ValueError, match="trusted must be True or False"):
        sk.policy_agent(m, trusted="yes")


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


def test_a_zip_without_variant_plays_and_warns_once_that_its_rules_go_unchecked(model, tmp_path):
    import warnings

    from shuangkou.integrations.sb3 import UnknownRulesWarning

    model.save(tmp_path / "p.zip")
    unknown = sk.policy_agent(tmp_path / "p.zip")
    with pytest.warns(UnknownRulesWarning, match="rules the model was trained on are unknown.*variant=") as caught:
        sk.arena("jj", agents=[unknown, "random"], deals=4, seed=1)  # (same action catalogue as baibian)
        sk.arena("jj", agents=[unknown, "random"], deals=4, seed=1)
    assert sum(issubclass(w.category, UnknownRulesWarning) for w in caught) == 1  # once an agent
    known = sk.policy_agent(tmp_path / "p.zip", variant="baibian")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnknownRulesWarning)
        sk.arena("baibian", agents=[known, "random"], deals=4, seed=1)
    with pytest.raises(ValueError, match="was trained on baibian"):
        known.check("jj")
