"""Results a refactor must leave bit for bit the same, as one JSON document.

    python experiments/refactor_check.py --write experiments/refactor_check.json   # before
    python experiments/refactor_check.py --check experiments/refactor_check.json   # after

It goes through the public API only (`sk.selfplay`, `sk.arena`, the Gymnasium, AEC and
vector envs, and the `shuangkou train` command), so the same script runs on both sides
of a change that moves modules:

- the self-play summary for a fixed seed, with built-in agents and with a Python agent;
- the arena's pairs (win rates, scores, intervals) with a Python agent among the bots;
- digests of everything the three envs hand out over seeded deals;
- a short training run's train.csv (its first updates' losses and counters), timings
  left out.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import shuangkou as sk

TRAIN = """variant: baibian
hidden: [16]
num_envs: 16
threads: 1
collect: 128
replay: 1024
batch_size: 128
updates: 12
push_every: 1
log_every: 2
eval_every: 6
eval_deals: 4
eval_opponent: random
seed: 3
device: cpu
"""
TIMING = {"elapsed_s", "decisions_per_s"}  # (train.csv: the columns of wall time, which differ run to run)


class LastLegal(sk.Agent):
    """A deterministic Python agent: the highest legal id."""

    def act(self, d):
        return np.array([ids[-1] for ids in d.legal_ids], dtype=np.int64)


def digest(values) -> str:
    h = hashlib.sha256()
    for v in values:
        h.update(np.ascontiguousarray(v).tobytes() if isinstance(v, np.ndarray) else repr(v).encode())
    return h.hexdigest()[:16]


def selfplay_results() -> dict:
    bots = sk.selfplay("baibian", games=2000, agents=["heuristic", "greedy"], seed=7, threads=2)
    python = sk.selfplay("jj", games=200, agents=[LastLegal(), "heuristic"], seed=7, batch=16)
    return {"bots": bots["scores"], "python": python["scores"]}


def arena_results() -> dict:
    result = sk.arena("classic", agents=["greedy", "simple", LastLegal()], deals=100, seed=5)
    arrays = {f"{a} vs {b}": digest(list(v.values())) for (a, b), v in sorted(result.arrays.items())}
    summary = {k: v for k, v in result.items() if k != "elapsed_s"}
    return json.loads(json.dumps({"summary": summary, "arrays": arrays}, default=str))


def env_digests() -> dict:
    import gymnasium

    out = {}
    env = gymnasium.make("shuangkou/Shuangkou-v0", variant="baibian")
    obs, info = env.reset(seed=11)
    rng = np.random.default_rng(11)
    trail = [obs]
    for _ in range(300):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, term, trunc, info = env.step(action)
        trail += [obs, reward, term, trunc, sorted(info)]
        if term or trunc:
            obs, info = env.reset()
    out["gymnasium"] = digest(trail)
    aec = sk.env("qianbian")
    aec.reset(seed=4)
    trail = []
    for agent in aec.agent_iter(max_iter=400):
        o, r, term, trunc, _ = aec.last()
        trail += [agent, o["observation"], r, term]
        action = None if term or trunc else int(rng.choice(np.flatnonzero(o["action_mask"])))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            aec.step(action)
    out["aec"] = digest(trail)
    vec = sk.VectorEnv(8, "jj", seed=2)
    obs, info = vec.reset()
    trail = []
    for _ in range(200):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]], dtype=np.int64)
        obs, rewards, dones, _, info = vec.step(actions)
        trail += [obs.copy(), rewards.copy(), dones.copy()]
    out["vector"] = digest(trail)
    return out


def train_log() -> list:
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "run.yaml")
        with open(config, "w", encoding="utf-8") as f:
            f.write(TRAIN)
        out = os.path.join(tmp, "out")
        cmd = [sys.executable, "-m", "shuangkou", "train", "--config", config, "--out", out, "--quiet"]
        subprocess.run(cmd, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
        with open(os.path.join(out, "train.csv"), encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    return [{k: v for k, v in row.items() if k not in TIMING} for row in rows]


def measure() -> dict:
    return {"selfplay": selfplay_results(), "arena": arena_results(), "envs": env_digests(), "train": train_log()}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="JSON", help="measure and write the results")
    group.add_argument("--check", metavar="JSON", help="measure and compare with the results written before")
    args = p.parse_args()
    now = json.loads(json.dumps(measure()))
    if args.write:
        with open(args.write, "w", encoding="utf-8") as f:
            json.dump(now, f, indent=1, ensure_ascii=False)
        print(f"wrote {args.write}")
        return 0
    with open(args.check, encoding="utf-8") as f:
        before = json.load(f)
    differ = [k for k in before if before[k] != now.get(k)]
    for k in before:
        print(f"{k}: {'differs' if k in differ else 'identical'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
