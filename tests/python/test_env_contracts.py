"""What the three envs promise their callers: docs/envs.md documents every constructor
argument with its default; the Gymnasium env is made the way Stable-Baselines3's
make_vec_env makes it without a warning and renders real rgb_array frames; an action
outside the action space is refused with ValueError and changes nothing."""

from __future__ import annotations

import inspect
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
import shuangkou as sk  # noqa: E402
from shuangkou.envs.gym_env import ENV_ID, ShuangkouEnv  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "envs.md"


# ---------------------------------------------------------------- docs/envs.md
def doc_sections() -> dict[str, dict[str, list[str]]]:
    """The argument tables of docs/envs.md: {section heading: {argument: cells}}."""
    sections: dict[str, dict[str, list[str]]] = {}
    heading = ""
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading = line[3:]
            sections[heading] = {}
        m = re.match(r"\| `(\*\*)?(\w+)` \|", line)
        if m and heading:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            sections[heading][(m.group(1) or "") + m.group(2)] = cells
    return sections


CONSTRUCTORS = {
    "PettingZoo AEC env": [sk.env, sk.raw_env.__init__],
    "Gymnasium env": [ShuangkouEnv.__init__],
    "Vector env": [sk.VectorEnv.__init__],
}


def documented_name(p: inspect.Parameter) -> str:
    return "**" + p.name if p.kind is inspect.Parameter.VAR_KEYWORD else p.name


@pytest.mark.parametrize("section", list(CONSTRUCTORS))
def test_every_constructor_argument_is_documented(section):
    [heading] = [h for h in doc_sections() if h.startswith(section)]
    rows = doc_sections()[heading]
    for fn in CONSTRUCTORS[section]:
        params = [p for p in inspect.signature(fn).parameters.values() if p.name != "self"]
        names = [documented_name(p) for p in params]
        missing = [n for n in names if n not in rows]
        assert not missing, f"docs/envs.md, {heading}: {missing} of {fn.__qualname__} not documented"
        assert list(rows) == names, f"docs/envs.md, {heading}: documents {list(rows)}, {fn.__qualname__} takes {names}"
        for p in params:
            name, type_, default, meaning, errors = rows[documented_name(p)]
            want = "—" if p.default is inspect.Parameter.empty else f"`{p.default!r}`"
            assert default == want, f"{heading}: {p.name} documented with default {default}, the code's is {want}"
            assert type_ and meaning and errors, (heading, p.name)


def test_envs_md_is_linked_from_observation_md():
    assert "(envs.md)" in (ROOT / "docs" / "observation.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------- make_vec_env and rgb_array
def make_like_sb3(**env_kwargs):
    """stable_baselines3.common.env_util.make_vec_env's own call for an env id."""
    kwargs = {"render_mode": "rgb_array"}
    kwargs.update(env_kwargs)
    return gymnasium.make(ENV_ID, **kwargs)


def test_made_as_make_vec_env_makes_it_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = make_like_sb3(variant="baibian", opponents="random")
        obs, info = env.reset(seed=0)
        frames = [env.render()]
        for _ in range(4):
            obs, reward, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
            frames.append(env.render())
    assert "rgb_array" in env.metadata["render_modes"]
    for frame in frames:
        assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
        assert frame.ndim == 3 and frame.shape[2] == 3 and frame.shape[0] >= 40 and frame.shape[1] >= 200
        assert (frame == 255).mean() > 0.5 and (frame < 100).any()  # dark text on white
    assert not np.array_equal(frames[0], frames[-1])  # it draws the deal as it goes


def test_an_rgb_array_frame_is_the_ansi_text_drawn():
    from shuangkou.envs.render import text_image

    env_a = ShuangkouEnv("classic", opponents="greedy", render_mode="ansi")
    env_r = ShuangkouEnv("classic", opponents="greedy", render_mode="rgb_array")
    env_a.reset(seed=3)
    env_r.reset(seed=3)
    np.testing.assert_array_equal(env_r.render(), text_image(env_a.render()))
    rows = text_image("one\ntwo\nthree").shape[0]
    assert rows > text_image("one\ntwo").shape[0]  # a line of text a line of pixels higher


def test_the_aec_env_still_renders_text_only():
    with pytest.raises(ValueError, match="render_mode"):
        sk.raw_env("baibian", render_mode="rgb_array")


# ---------------------------------------------------------------- actions outside the action space
OUTSIDE = [-1, 10**9, 351, 1.5, "3", True, None, np.array([1, 2]), np.float32(2.0), [1]]


def gym_snapshot(env):
    u = env.unwrapped
    game = u._core.current_game(0)
    return (
        u._obs.tobytes(),
        u.action_masks().tobytes(),
        u._current,
        len(game.history()),
        game.to_json(),
        u._phase,
        list(u._actions),
    )


@pytest.mark.parametrize("illegal_action", ["terminate", "raise", "random"])
def test_gym_env_refuses_an_action_outside_its_space(illegal_action):
    env = gymnasium.make(ENV_ID, variant="baibian", opponents="heuristic", illegal_action=illegal_action)
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(3):
        obs, _, term, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert not term
    before = gym_snapshot(env)
    for bad in OUTSIDE:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no illegal-action warning: nothing was played
            with pytest.raises(ValueError, match=r"action.*Discrete\(351\)") as e:
                env.step(bad)
        if isinstance(bad, int) and not isinstance(bad, bool):
            assert f"action {bad} " in str(e.value)
        assert gym_snapshot(env) == before, bad
    # the deal goes on as if nothing had been asked
    obs2, reward, term, trunc, info2 = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert len(env.unwrapped._core.current_game(0).history()) > before[3]
    assert not info2["illegal_action"] and reward == 0.0 or term


def test_gym_env_keeps_its_policy_for_forbidden_ids_of_the_space():
    env = ShuangkouEnv("baibian", opponents="random")
    _, info = env.reset(seed=0)
    forbidden = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match=f"illegal action {forbidden}"):
        _, r, term, _, info = env.step(forbidden)
    assert (r, term) == (-1.0, True) and info["illegal_action"]


def aec_snapshot(raw):
    return (
        raw.game.to_json(),
        raw.agent_selection,
        {a: [(k, v.tobytes()) for k, v in raw.observe(a).items()] for a in raw.agents},
        dict(raw.rewards),
        dict(raw.terminations),
    )


@pytest.mark.parametrize("illegal_action", ["terminate", "raise", "random"])
def test_raw_aec_env_refuses_an_action_outside_its_space(illegal_action):
    raw = sk.raw_env("baibian", illegal_action=illegal_action)
    raw.reset(seed=9)
    before = aec_snapshot(raw)
    for bad in OUTSIDE:
        with pytest.raises(ValueError, match=r"player_\d.*Discrete\(351\)"):
            raw.step(bad)
        assert aec_snapshot(raw) == before, bad
    raw.step(int(raw.legal_actions()[-1]))
    assert len(raw.game.history()) == 1
    wrapped = sk.env("baibian", illegal_action=illegal_action)
    wrapped.reset(seed=9)
    with pytest.raises(AssertionError):  # PettingZoo's wrapper checks first
        wrapped.step(-1)


def test_vector_env_refuses_a_dense_mask_that_is_not_a_bool():
    with pytest.raises(ValueError, match="dense_mask"):
        sk.VectorEnv(num_envs=2, dense_mask="yes")
    assert sk.VectorEnv(num_envs=2, num_threads=1, dense_mask=np.bool_(False)).reset()[1]["action_mask"] is None
