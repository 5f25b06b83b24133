"""MaskablePPO (sb3-contrib) on shuangkou/Shuangkou-v0 against random opponents.

    python experiments/maskable_ppo.py                 # ~5 minutes of training (this 2-core machine)
    python experiments/maskable_ppo.py --minutes 1     # shorter
    python experiments/maskable_ppo.py --timesteps 200000
    python experiments/maskable_ppo.py --save runs/ppo.zip   # keep the model: sk.policy_agent("runs/ppo.zip", variant="baibian")

The learner plays seat 0 (and, by default, its partner seat 2: --no-control-partner
leaves seat 2 to a random bot) in baibian with team_formation="fixed", against two
random bots; reward "win" (+1 / -1 by team, 0 for a draw). Win rates (deals won by the
learner's team, Wilson 95% intervals) are measured on the same fixed deals (eval env i
is reset with seed EVAL_SEED + i and plays its deals in sequence, so every policy sees
the same cards) for: the masked-random policy, the untrained network and the trained
one (greedy, and sampling its masked distribution). Writes the markdown report and the
learning-curve plot next to this script unless told otherwise.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import subprocess
import sys
import time
from collections import deque
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
EVAL_SEED = 1_000_000
ENV_ID = "shuangkou/Shuangkou-v0"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=5.0, help="training wall-time budget (default 5)")
    p.add_argument("--timesteps", type=int, default=None, help="train this many steps instead of a time budget")
    p.add_argument("--eval-deals", type=int, default=1000, help="deals per final evaluation (default 1000)")
    p.add_argument("--curve-deals", type=int, default=200, help="deals per evaluation during training (default 200)")
    p.add_argument("--curve-points", type=int, default=10, help="evaluations during training (default 10)")
    p.add_argument("--n-envs", type=int, default=8)
    p.add_argument("--n-steps", type=int, default=256, help="rollout steps per env")
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--n-epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--threads", type=int, default=2, choices=(1, 2), help="torch threads")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--variant", default="baibian")
    p.add_argument("--control-partner", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--out", type=Path, default=HERE / "maskable_ppo.md")
    p.add_argument("--plot", type=Path, default=HERE / "maskable_ppo.png")
    p.add_argument(
        "--save",
        type=Path,
        default=None,
        help="also save the trained model there (an SB3 .zip; play it with sk.policy_agent(PATH, variant=...))",
    )
    return p.parse_args()


def env_kwargs(args: argparse.Namespace) -> dict:
    return dict(
        variant=args.variant,
        opponents="random",
        reward="win",
        seat=0,
        control_partner=args.control_partner,
        render_mode=None,
        team_formation="fixed",
    )


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of k wins in n deals (shuangkou.stats, as the arena reports it)."""
    from shuangkou.util.stats import wilson_interval

    lo, hi = wilson_interval(k / n, n) if n else (0.0, 1.0)
    return (lo, hi)


def evaluate(policy, args: argparse.Namespace, deals: int, n_envs: int = 100) -> dict:
    """Plays `deals` deals on fixed seeds: env i (seed EVAL_SEED + i) plays deals i, i + n_envs, ...
    policy(obs [n, obs], masks [n, actions] bool) -> actions [n]."""
    from shuangkou.envs.gym_env import ShuangkouEnv

    n_envs = min(n_envs, deals)
    quota = [deals // n_envs + (i < deals % n_envs) for i in range(n_envs)]
    envs = [ShuangkouEnv(**env_kwargs(args)) for _ in range(n_envs)]
    obs, masks = [], []
    for i, e in enumerate(envs):
        o, info = e.reset(seed=EVAL_SEED + i)
        obs.append(o)
        masks.append(info["action_mask"].astype(bool))
    obs_a, mask_a = np.stack(obs), np.stack(masks)
    played = [0] * n_envs
    wins = draws = 0
    active = [i for i in range(n_envs) if quota[i] > 0]
    while active:
        actions = policy(obs_a[active], mask_a[active])
        still = []
        for a, i in zip(actions, active):
            o, r, term, _, info = envs[i].step(int(a))
            if term:
                played[i] += 1
                wins += r > 0
                draws += r == 0
                o, info = envs[i].reset()  # the next deal (already dealt by the core)
            obs_a[i], mask_a[i] = o, info["action_mask"].astype(bool)
            if played[i] < quota[i]:
                still.append(i)
        active = still
    n = sum(played)
    lo, hi = wilson(wins, n)
    return {"deals": n, "wins": wins, "draws": draws, "rate": wins / n, "lo": lo, "hi": hi}


def random_policy(seed: int):
    rng = np.random.default_rng(seed)

    def act(obs, masks):
        return [int(rng.choice(np.flatnonzero(m))) for m in masks]

    return act


def model_policy(model, deterministic: bool):
    def act(obs, masks):
        a, _ = model.predict(obs, action_masks=masks, deterministic=deterministic)
        return a

    return act


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(next(line for line in open("/proc/meminfo") if line.startswith("MemTotal")).split()[1])
        mem = f", {kb / 2**20:.0f} GiB"
    except (OSError, StopIteration):
        pass
    return f"{os.cpu_count()} vCPUs ({cpu}){mem}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def main() -> None:
    args = parse_args()
    import torch

    torch.set_num_threads(args.threads)
    import gymnasium as gym
    import sb3_contrib
    import shuangkou  # noqa: F401  (registers the env id)
    import stable_baselines3
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv
    from tqdm import tqdm

    t_start = time.perf_counter()
    venv = make_vec_env(
        ENV_ID, n_envs=args.n_envs, seed=args.seed, vec_env_cls=DummyVecEnv, env_kwargs=env_kwargs(args)
    )
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=args.lr,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=args.gamma,
        ent_coef=args.ent_coef,
        seed=args.seed,
        device="cpu",
        policy_kwargs=dict(net_arch=[256, 256]),
        verbose=0,
    )

    print(f"evaluating the baselines on {args.eval_deals} fixed deals ...", flush=True)
    t0 = time.perf_counter()
    results = {
        "masked random": evaluate(random_policy(args.seed), args, args.eval_deals),
        "untrained, greedy": evaluate(model_policy(model, True), args, args.eval_deals),
        "untrained, sampled": evaluate(model_policy(model, False), args, args.eval_deals),
    }
    eval_before_s = time.perf_counter() - t0
    for k, v in results.items():
        print(f"  {k}: {v['rate']:.3f} [{v['lo']:.3f}, {v['hi']:.3f}]", flush=True)
    curve_eval = [(0, evaluate(model_policy(model, True), args, args.curve_deals))]

    budget_s = None if args.timesteps else args.minutes * 60
    # evaluations during training, denser early (fractions of the budget)
    eval_at = np.geomspace(0.02, 0.85, args.curve_points) if args.curve_points > 0 else []
    total = args.timesteps or 10**12

    class Progress(BaseCallback):
        """tqdm bar (timesteps, or seconds of the time budget), the training win-rate curve,
        evaluations during training, and the stop at the time budget."""

        def __init__(self):
            super().__init__()
            self.recent: deque[float] = deque(maxlen=500)
            self.curve: list[tuple[int, float]] = []
            self.eval_s = 0.0
            self.train_s = 0.0

        def _on_training_start(self):
            self.t0 = time.perf_counter()
            self.bar = tqdm(
                total=args.timesteps if args.timesteps else int(budget_s),
                unit="step" if args.timesteps else "s",
                desc="MaskablePPO",
                dynamic_ncols=True,
            )
            self.shown = 0
            self.next_eval = 0

        def elapsed(self) -> float:  # training time, evaluations excluded
            return time.perf_counter() - self.t0 - self.eval_s

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "episode" in info:
                    self.recent.append(info["episode"]["r"] > 0)
            now = self.num_timesteps if args.timesteps else int(min(self.elapsed(), budget_s))
            if now > self.shown:
                self.bar.update(now - self.shown)
                self.shown = now
            return budget_s is None or self.elapsed() < budget_s

        def _on_rollout_end(self):
            if self.recent:
                self.curve.append((self.num_timesteps, float(np.mean(self.recent))))
                self.bar.set_postfix(
                    steps=f"{self.num_timesteps:,}", train_win=f"{self.curve[-1][1]:.3f}", refresh=False
                )
            frac = self.num_timesteps / args.timesteps if args.timesteps else self.elapsed() / budget_s
            if self.next_eval < len(eval_at) and frac >= eval_at[self.next_eval]:
                t = time.perf_counter()
                curve_eval.append(
                    (self.num_timesteps, evaluate(model_policy(self.model, True), args, args.curve_deals))
                )
                self.eval_s += time.perf_counter() - t
                while self.next_eval < len(eval_at) and frac >= eval_at[self.next_eval]:
                    self.next_eval += 1

        def _on_training_end(self):
            self.train_s = self.elapsed()
            self.bar.close()

    cb = Progress()
    model.learn(total_timesteps=total, callback=cb)
    if args.save is not None:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        model.save(args.save)
        print(f"saved the model to {args.save}")
    timesteps = model.num_timesteps
    train_s = cb.train_s

    print(f"evaluating the trained policy on {args.eval_deals} fixed deals ...", flush=True)
    t0 = time.perf_counter()
    results["trained, greedy"] = evaluate(model_policy(model, True), args, args.eval_deals)
    results["trained, sampled"] = evaluate(model_policy(model, False), args, args.eval_deals)
    eval_after_s = time.perf_counter() - t0
    curve_eval.append((timesteps, evaluate(model_policy(model, True), args, args.curve_deals)))
    for k in ("trained, greedy", "trained, sampled"):
        v = results[k]
        print(f"  {k}: {v['rate']:.3f} [{v['lo']:.3f}, {v['hi']:.3f}]", flush=True)
    wall_s = time.perf_counter() - t_start

    # ---- plot
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8))
    if cb.curve:
        xs, ys = zip(*cb.curve)
        ax.plot(xs, ys, color="tab:blue", lw=1.2, label="training episodes (last 500, sampled policy)")
    ex = [t for t, _ in curve_eval]
    ey = np.array([r["rate"] for _, r in curve_eval])
    yerr = np.array([[r["rate"] - r["lo"] for _, r in curve_eval], [r["hi"] - r["rate"] for _, r in curve_eval]])
    ax.errorbar(
        ex,
        ey,
        yerr=yerr,
        fmt="o-",
        color="tab:orange",
        capsize=3,
        label=f"greedy policy, {args.curve_deals} fixed deals (95% CI)",
    )
    rr = results["masked random"]
    ax.axhline(rr["rate"], color="gray", ls="--", label=f"masked random ({args.eval_deals} deals): {rr['rate']:.3f}")
    tg = results["trained, greedy"]
    ax.errorbar(
        [timesteps],
        [tg["rate"]],
        yerr=[[tg["rate"] - tg["lo"]], [tg["hi"] - tg["rate"]]],
        fmt="s",
        color="tab:red",
        capsize=4,
        label=f"trained, greedy ({args.eval_deals} deals): {tg['rate']:.3f}",
    )
    ax.set_xlabel("timesteps (learner decisions)")
    ax.set_ylabel("win rate of the learner's team")
    who = "seats 0+2" if args.control_partner else "seat 0 (+ random partner)"
    ax.set_title(f"MaskablePPO, {args.variant}, learner {who} vs random bots")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    args.plot.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.plot, dpi=120)

    # ---- report
    cmd = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(sys.argv[0], HERE.parent)] + sys.argv[1:])
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        commit = "?"
    lines = [
        "# MaskablePPO against random bots",
        "",
        f'sb3-contrib `MaskablePPO("MlpPolicy")` trained on `{ENV_ID}` '
        f'(variant `{args.variant}`, `team_formation="fixed"`, opponents `"random"` in seats 1 and 3, '
        f'reward `"win"`; the learner plays seat 0'
        + (" and its partner seat 2 (`control_partner=True`)" if args.control_partner else ", seat 2 is a random bot")
        + "). One episode is one deal; the reward is +1 / −1 for the learner's team winning / losing "
        "the deal, 0 for a draw (平扣).",
        "",
        "## Run",
        "",
        f"- Machine: {machine()}; CPU only, torch {torch.__version__} with {args.threads} thread(s), "
        f"stable-baselines3 {stable_baselines3.__version__}, sb3-contrib {sb3_contrib.__version__}, "
        f"gymnasium {gym.__version__}, shuangkou at commit {commit} (uncommitted working tree).",
        f"- Command: `{cmd}`",
        f"- Hyperparameters: {args.n_envs} envs (DummyVecEnv) × {args.n_steps} steps per rollout, batch {args.batch_size}, "
        f"{args.n_epochs} epochs, lr {args.lr:g}, γ {args.gamma:g}, entropy {args.ent_coef:g}, MLP 256×256, seed {args.seed}.",
        f"- Timesteps (learner decisions): **{timesteps:,}**"
        + (f" (time budget {args.minutes:g} min)" if budget_s else "")
        + ".",
        f"- Wall time: training {train_s:.0f} s ({timesteps / max(train_s, 1e-9):,.0f} steps/s), "
        f"evaluations during training {cb.eval_s:.0f} s, final evaluations {eval_before_s:.0f} s before + "
        f"{eval_after_s:.0f} s after; whole script {wall_s:.0f} s.",
        "",
        "## Win rate of the learner's team",
        "",
        f"Each row: the same {args.eval_deals} deals (eval env i, i < 100, reset with seed {EVAL_SEED} + i, "
        "plays its deals in sequence; the random bots draw from the deal's own stream). "
        "95% Wilson intervals. *Greedy*: the most probable legal action; *sampled*: drawn from the masked "
        "policy distribution.",
        "",
        "| policy | deals | won | draws | win rate | 95% CI |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for name, r in results.items():
        when = "before training" if name.startswith(("untrained", "masked")) else "after training"
        lines.append(
            f"| {name} ({when}) | {r['deals']} | {r['wins']} | {r['draws']} | {r['rate']:.3f} | "
            f"[{r['lo']:.3f}, {r['hi']:.3f}] |"
        )
    rr, tg = results["masked random"], results["trained, greedy"]
    lines += [
        "",
        f"Draws (平扣, reward 0) count as not won. The masked-random policy plays like the built-in "
        f"`random` bot (uniform over the legal moves, pass included), so the masked-random row is a "
        f"random-vs-random match: both teams win about (1 − draw rate) / 2 "
        f"(here {rr['rate']:.3f} won, {rr['draws'] / rr['deals']:.3f} drawn). "
        f"The trained greedy policy wins {tg['rate']:.3f} of the same deals and draws {tg['draws'] / tg['deals']:.3f}.",
        "",
        f"Learning curve: `{args.plot.name}` (training-episode win rate over the last 500 deals, and the greedy "
        f"policy on {args.curve_deals} fixed deals at {len(curve_eval)} points).",
        "",
        f"![learning curve]({args.plot.name})",
        "",
        "| timesteps | greedy win rate | 95% CI |",
        "| ---: | ---: | --- |",
    ]
    for t, r in curve_eval:
        lines.append(f"| {t:,} | {r['rate']:.3f} | [{r['lo']:.3f}, {r['hi']:.3f}] |")
    lines.append("")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out} and {args.plot} ({wall_s:.0f} s)")


if __name__ == "__main__":
    main()
