"""Statistics of match results: the 95% intervals and ratings the arena reports.

    from shuangkou.util.stats import wilson_interval, t975, bradley_terry
    wilson_interval(0.6, 1000)        # [0.569..., 0.630...]
    t975(9)                           # 2.262, Student's t for a paired interval
    bradley_terry(["a", "b"], pairs)  # Elo-scale ratings with intervals (see the function)

Pure Python and numpy; the arena (`shuangkou.arena`), its report and the experiments
use these, so every figure we publish is computed one way.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["bradley_terry", "t975", "wilson_interval"]


def wilson_interval(p: float, n: int, z: float = 1.959964) -> list[float]:
    """The 95% Wilson score interval of a proportion p observed over n trials."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # (exact at the ends: rounding must not put p outside its own interval)
    return [0.0 if p <= 0 else max(0.0, centre - half), 1.0 if p >= 1 else min(1.0, centre + half)]


# Two-sided 95% Student-t quantiles for 1..30 degrees of freedom.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)  # fmt: skip


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t with df degrees of freedom (a table to 30, then
    the Cornish-Fisher expansion about the normal, accurate to 1e-4 there)."""
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def bradley_terry(labels: list[str], pairs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Elo-scale Bradley-Terry ratings (mean 0) with 95% intervals from the observed
    information, fitted by Newton's method on every pair's wins (ties half), one virtual
    tie a pair."""
    k = len(labels)
    index = {name: i for i, name in enumerate(labels)}
    games = []  # (i, j, wins of i, number of duplicate pairs)
    for p in pairs:
        w = p["pairs_won"]["a"] + 0.5 * p["pairs_won"]["tied"] + 0.5
        games.append((index[p["a"]], index[p["b"]], w, p["deals"] + 1.0))
    r = np.zeros(k)
    for _ in range(100):
        grad = np.zeros(k)
        hess = np.zeros((k, k))
        for i, j, w, n in games:
            prob = 1.0 / (1.0 + math.exp(-(r[i] - r[j])))
            g = w - n * prob
            grad[i] += g
            grad[j] -= g
            h = n * prob * (1 - prob)
            hess[i, i] += h
            hess[j, j] += h
            hess[i, j] -= h
            hess[j, i] -= h
        # The ratings are fixed up to a constant: solve with the mean pinned at 0.
        step = np.linalg.lstsq(hess + np.ones((k, k)) / k, grad, rcond=None)[0]
        r += step
        r -= r.mean()
        if np.abs(step).max() < 1e-10:
            break
    cov = np.linalg.pinv(hess) if k > 1 else np.zeros((1, 1))
    scale = 400 / math.log(10)
    out = {}
    for name, i in index.items():
        half = 1.96 * math.sqrt(max(cov[i, i], 0.0)) * scale
        out[name] = {"rating": float(r[i] * scale), "ci": [float(r[i] * scale - half), float(r[i] * scale + half)]}
    return out
