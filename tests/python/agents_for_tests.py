"""Agents the arena and CLI tests load by name ("agents_for_tests:last_legal", ...)."""

from __future__ import annotations

import numpy as np
import shuangkou as sk


def last_legal(obs: np.ndarray, mask: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The highest legal action id of each row: a plain batched callable."""
    assert obs.dtype == np.float32 and obs.shape[0] == mask.shape[0] == seats.shape[0]
    return np.array([np.flatnonzero(m)[-1] for m in mask], dtype=np.int64)


class LowestId(sk.Agent):
    """The lowest legal non-pass id (the pass when it is the only move): an sk.Agent."""

    name = "lowest-id"

    def __init__(self) -> None:
        self.calls = 0
        self.rules = None

    def reset(self, rules) -> None:
        self.rules = rules

    def act(self, d: sk.Decisions) -> np.ndarray:
        self.calls += 1
        assert len(d.legal_ids) == len(d) == d.obs.shape[0]
        out = []
        for ids, feats, mask in zip(d.legal_ids, d.legal_features, d.mask):
            assert feats.shape == (len(ids), sk._core.MOVE_FEATURE_SIZE) and set(ids.tolist()) == set(
                np.flatnonzero(mask).tolist()
            )
            plays = [i for i in ids if i != 0]
            out.append(min(plays) if plays else 0)
        return np.array(out, dtype=np.int64)


not_callable = 42


class NeedsArgument(sk.Agent):
    def __init__(self, x: int) -> None:
        self.x = x


class Raises(sk.Agent):
    def act(self, d: sk.Decisions) -> np.ndarray:
        raise RuntimeError("the agent broke")


def always_pass(obs: np.ndarray, mask: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Id 0 everywhere: illegal whenever the seat leads."""
    return np.zeros(len(seats), dtype=np.int64)
