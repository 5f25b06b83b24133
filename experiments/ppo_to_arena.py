"""From training to the arena: MaskablePPO on shuangkou/Shuangkou-v0, saved, loaded
back with shuangkou.policy_agent, then played in shuangkou.arena against the built-in
random and heuristic bots on duplicate deals (experiments/ppo_to_arena.md).

    python experiments/ppo_to_arena.py                                   # 3 minutes of training
    python experiments/ppo_to_arena.py --minutes 10 --deals 2000
    python experiments/ppo_to_arena.py --steps 512 --deals 20 --out /tmp/ppo --force  # a smoke run

Training is the recipe of experiments/maskable_ppo.py: the learner plays seat 0 and
its partner seat 2 against two random bots (team_formation fixed, reward "win": +1 /
-1 by team, 0 for a draw), MLP 256x256, 8 envs. The model is saved to
OUT/maskable_ppo.zip; the arena then plays it from that file, with the rules it was
trained on checked, against random and heuristic (and those two against each other),
every pair on the first --deals duplicate deals of the evaluation set eval-v1. The
arena's report (results.json, pairs.csv, report.md, plots) goes to OUT/arena/.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
from pathlib import Path

ENV_ID = "shuangkou/Shuangkou-v0"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=3.0, help="training wall-time budget in minutes (default 3)")
    p.add_argument("--steps", type=int, default=None, help="train this many steps instead of a time budget")
    p.add_argument("--deals", type=int, default=1000, help="duplicate deals of eval-v1 per arena pair (default 1000)")
    p.add_argument("--variant", default="baibian", help="the rule set (default baibian)")
    p.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    p.add_argument("--n-envs", type=int, default=8, help="training envs (default 8)")
    p.add_argument("--n-steps", type=int, default=256, help="rollout steps per env (default 256)")
    p.add_argument("--batch-size", type=int, default=512, help="minibatch size (default 512)")
    p.add_argument("--threads", type=int, default=2, help="arena threads for the built-in bots (default 2)")
    p.add_argument(
        "--torch-threads", type=int, default=1, help="torch threads (default 1: a small MLP gains little from more)"
    )
    p.add_argument(
        "--out", type=Path, default=Path("runs/ppo_to_arena"), help="output folder (default runs/ppo_to_arena)"
    )
    p.add_argument("--force", action="store_true", help="replace the model and arena report of an earlier run in --out")
    p.add_argument("--report", type=Path, default=None, help="also write a markdown report of the run here")
    args = p.parse_args(argv)
    if args.steps is not None and args.steps < 1:
        p.error("--steps must be at least 1")
    if (
        args.minutes <= 0
        or args.deals < 1
        or args.n_envs < 1
        or args.n_steps < 1
        or min(args.threads, args.torch_threads) < 1
    ):
        p.error("--minutes, --deals, --n-envs, --n-steps, --threads and --torch-threads must be positive")
    return args


def train(args: argparse.Namespace, env_kwargs: dict) -> tuple[object, float]:
    """MaskablePPO trained for --steps steps or --minutes; returns (model, training seconds)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = make_vec_env(ENV_ID, n_envs=args.n_envs, seed=args.seed, vec_env_cls=DummyVecEnv, env_kwargs=env_kwargs)
    n_steps = min(args.n_steps, max(args.steps // args.n_envs, 8)) if args.steps else args.n_steps
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=n_steps,
        batch_size=min(args.batch_size, n_steps * args.n_envs),
        n_epochs=4,
        learning_rate=3e-4,
        gamma=0.995,
        ent_coef=0.01,
        seed=args.seed,
        device="cpu",
        policy_kwargs=dict(net_arch=[256, 256]),
        verbose=0,
    )
    budget = None if args.steps else args.minutes * 60

    class Budget(BaseCallback):
        """Stops training once the time budget is spent."""

        def _on_training_start(self) -> None:
            self.t0 = time.perf_counter()

        def _on_step(self) -> bool:
            return budget is None or time.perf_counter() - self.t0 < budget

    t0 = time.perf_counter()
    model.learn(total_timesteps=args.steps or 10**12, callback=Budget())
    return model, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    model_path = args.out / "maskable_ppo.zip"
    if model_path.exists() and not args.force:
        sys.exit(f"{model_path} exists: pass --force to replace it (and the arena report next to it)")
    import torch

    torch.set_num_threads(args.torch_threads)
    import gymnasium
    import sb3_contrib
    import shuangkou as sk
    import stable_baselines3
    from shuangkou.runs.arena_report import pairs_table, ratings_table, write_report

    args.out.mkdir(parents=True, exist_ok=True)
    env_kwargs = dict(
        variant=args.variant, opponents="random", seat=0, control_partner=True, reward="win", team_formation="fixed"
    )
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    load_start = os.getloadavg()[0]  # other work on the machine slows training: the report says how much there was
    budget = f"{args.steps:,} steps" if args.steps else f"{args.minutes:g} min"
    say(f"training MaskablePPO on {ENV_ID} ({args.variant}, learner seats 0+2 vs random bots) for {budget} ...")
    model, train_s = train(args, env_kwargs)
    model.save(model_path)
    say(f"trained {model.num_timesteps:,} steps in {train_s:.0f} s ({model.num_timesteps / train_s:,.0f} steps/s)")
    say(f"saved {model_path}")

    # The arena plays the saved file: loaded back, with the rules it was trained on checked.
    trained_on = sk.Rules(args.variant, team_formation="fixed")
    agent = sk.policy_agent(model_path, variant=trained_on)
    t0 = time.perf_counter()
    result = sk.arena(
        args.variant, agents=[agent, "random", "heuristic"], deals=f"eval-v1:{args.deals}", threads=args.threads
    )
    arena_s = time.perf_counter() - t0
    say()
    say(
        f"arena: {args.variant}, the first {args.deals:,} duplicate deals of eval-v1 a pair (each deal twice, seats "
        f"exchanged), {arena_s:.0f} s"
    )
    say()
    for line in pairs_table(result["pairs"]) + [""] + ratings_table(result):
        say(line)
    say()
    for p in result["pairs"]:
        if p["a"] == agent.name:
            lo, hi = p["wp_ci"] or (float("nan"), float("nan"))
            say(f"{p['a']} vs {p['b']}: WP {p['wp']:.3f} [{lo:.3f}, {hi:.3f}], ADP {p['adp']:+.2f}")
    paths = write_report(result, args.out / "arena", force=args.force)
    say(f"wrote {args.out / 'arena'}/ ({', '.join(p.name for p in paths)})")

    if args.report is not None:
        versions = (
            f"torch {torch.__version__} (torch threads: {args.torch_threads}), stable-baselines3 {stable_baselines3.__version__}, "
            f"sb3-contrib {sb3_contrib.__version__}, gymnasium {gymnasium.__version__}, shuangkou {sk.__version__}"
        )
        load = f"1-minute load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
        write_markdown(args, lines, versions, load)
        print(f"wrote {args.report}")


def write_markdown(args: argparse.Namespace, lines: list[str], versions: str, load: str) -> None:
    """The run as markdown: the command, the machine, and what the script printed."""
    command = "python " + " ".join(shlex.quote(a) for a in ["experiments/ppo_to_arena.py", *sys.argv[1:]])
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    text = [
        "# From training to the arena: MaskablePPO against the built-in bots",
        "",
        "MaskablePPO (sb3-contrib) trained on the Gymnasium env, saved, then played from its file as an arena agent "
        "with `shuangkou.policy_agent` (docs/policies.md).",
        "",
        f"- Command: `{command}`",
        f"- Machine: {os.cpu_count()} CPUs ({cpu}), {platform.system()}, Python {platform.python_version()}; CPU only; {load}.",
        f"- Versions: {versions}.",
        "",
        "Output:",
        "",
        "```text",
        *lines,
        "```",
        "",
    ]
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text("\n".join(text), encoding="utf-8")


if __name__ == "__main__":
    main()
