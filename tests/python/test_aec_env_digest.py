"""The PettingZoo AEC env returns exactly what it returned before its step was made
faster: seeded games, every value a step hands out (``last()``, ``observe()`` of every
agent, the rewards, terminations, truncations and infos dicts, the agent to act, the
state) hashed into one digest per game, compared with the digests recorded from the
implementation before the change."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
import shuangkou as sk  # noqa: E402


def _canon(value) -> bytes:
    """A value as bytes that change with its type, dtype, shape and exact contents."""
    if isinstance(value, np.ndarray):
        return b"nd" + value.dtype.str.encode() + repr(value.shape).encode() + value.tobytes()
    if isinstance(value, dict):
        return b"{" + b",".join(_canon(k) + b":" + _canon(value[k]) for k in value) + b"}"
    if isinstance(value, (list, tuple)):
        return type(value).__name__.encode() + b"[" + b",".join(_canon(v) for v in value) + b"]"
    if isinstance(value, float):
        return b"f" + value.hex().encode()
    return type(value).__name__.encode() + b"=" + repr(value).encode()


def game_digest(variant: str, seed: int, reward: str, illegal_action: str, illegal_at: int | None) -> str:
    """Plays one seeded deal with random masked actions (an unmasked id at step
    `illegal_at`) and hashes everything the env returns along the way."""
    env = sk.env(variant, reward=reward, illegal_action=illegal_action)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    steps = 0
    for agent in env.agent_iter(max_iter=2000):
        last = env.last()
        h.update(_canon(agent) + _canon(last))
        h.update(_canon([env.observe(a) for a in env.possible_agents]))
        h.update(_canon([env.rewards, env.terminations, env.truncations, env.infos]))
        h.update(_canon(raw.state()) + _canon(list(env.agents)))
        obs, _, term, trunc, _ = last
        if term or trunc:
            action = None
        elif steps == illegal_at:
            action = int(np.flatnonzero(obs["action_mask"] == 0)[1])
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env.step(action)
        steps += 1
    h.update(_canon([env.rewards, env.terminations, env.infos, list(env.agents), steps]))
    return h.hexdigest()[:16]


CASES = [
    ("classic", 1, "win", "terminate", None),
    ("baibian", 2, "score", "terminate", None),
    ("baibian", 3, "log", "terminate", 7),
    ("qianbian", 4, "score", "random", 5),
    ("jj", 5, "win", "terminate", None),
    ("qianbian_collect", 6, "win", "raise", None),
]
# Recorded from the implementation before the step was optimised.
EXPECTED = {
    ("classic", 1, "win", "terminate", None): "54472e4a76054ea6",
    ("baibian", 2, "score", "terminate", None): "f1d9379069c3f966",
    ("baibian", 3, "log", "terminate", 7): "c77848b45c17e612",
    ("qianbian", 4, "score", "random", 5): "27901919015fd9c0",
    ("jj", 5, "win", "terminate", None): "a2997775bc780b31",
    ("qianbian_collect", 6, "win", "raise", None): "6a21682d87d41a84",
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_aec_env_returns_what_it_returned_before(case):
    assert game_digest(*case) == EXPECTED[case]
