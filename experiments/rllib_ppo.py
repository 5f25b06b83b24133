"""RLlib's PPO on Shuangkou (shuangkou.rllib), then the trained module in the arena.

    python experiments/rllib_ppo.py                          # 5 iterations of 2000 env steps
    python experiments/rllib_ppo.py --iterations 20 --deals 1000 --out experiments/rllib_ppo.md

Starts a local Ray bound to 127.0.0.1 (`shuangkou.rllib.start_ray`), builds
`shuangkou.rllib.ppo_config(variant)`: the four seats play one shared policy
(`MaskedTorchRLModule`, an MLP whose logits are masked to the legal actions) in self-play,
reward "win" (+1 / -1 by team, 0 for a draw), sampled in the driver. Before training and
after the last iteration the module plays `shuangkou.arena` against the built-in "random"
bot on duplicate deals (`--deals` of the evaluation set eval-v1), greedily (its most
probable legal action). Prints a markdown report (written to `--out` too when given).
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--iterations", type=int, default=5, help="PPO train() iterations (default 5)")
    p.add_argument("--variant", default="baibian", help="the rule set (default baibian)")
    p.add_argument("--batch", type=int, default=2000, help="env steps per iteration (default 2000)")
    p.add_argument("--minibatch", type=int, default=256, help="PPO minibatch size (default 256)")
    p.add_argument("--epochs", type=int, default=4, help="PPO epochs per iteration (default 4)")
    p.add_argument("--lr", type=float, default=3e-4, help="learning rate (default 3e-4)")
    p.add_argument("--hidden", default="256,256", help="MLP layer widths (default 256,256)")
    p.add_argument("--policies", choices=("shared", "team"), default="shared", help="policy mapping (default shared)")
    p.add_argument("--deals", type=int, default=500, help="duplicate deals of eval-v1 in the arena (default 500)")
    p.add_argument("--seed", type=int, default=0, help="RLlib seed (default 0)")
    p.add_argument("--out", type=Path, default=None, help="also write the report to this markdown file")
    args = p.parse_args(argv)
    if args.iterations < 1 or args.batch < 1 or args.deals < 1:
        p.error("--iterations, --batch and --deals must be at least 1")
    try:
        args.hidden = tuple(int(w) for w in args.hidden.split(","))
    except ValueError:
        p.error(f"--hidden: comma-separated layer widths, e.g. 256,256; got {args.hidden!r}")
    return args


def arena_row(label: str, module: Any, variant: str, deals: int) -> str:
    import shuangkou as sk
    import shuangkou.integrations.rllib as skr

    t = time.perf_counter()
    out = sk.arena(variant=variant, agents=[skr.arena_agent(module), "random"], deals=f"eval-v1:{deals}", threads=1)
    pair = out["pairs"][0]
    won, lost, tied = pair["pairs_won"]["a"], pair["pairs_won"]["b"], pair["pairs_won"]["tied"]
    lo, hi = pair["wp_ci"]
    alo, ahi = pair["adp_ci"]
    return (
        f"| {label} | {pair['deals']:,} | {pair['wp']:.3f} ({lo:.3f}–{hi:.3f}) | {pair['adp']:+.2f} "
        f"({alo:+.2f} to {ahi:+.2f}) | {won} / {lost} / {tied} | {time.perf_counter() - t:.0f} s |"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t0 = time.perf_counter()
    import shuangkou.integrations.rllib as skr

    ray = skr.start_ray()
    nodes = sorted({n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]})
    config = skr.ppo_config(
        args.variant,
        policies=args.policies,
        hidden=args.hidden,
        train_batch_size=args.batch,
        minibatch_size=args.minibatch,
        num_epochs=args.epochs,
        lr=args.lr,
        seed=args.seed,
    )
    algo = config.build_algo() if hasattr(config, "build_algo") else config.build()
    policy = skr.SHARED_POLICY if args.policies == "shared" else skr.TEAM_POLICIES[0]
    try:
        module = algo.get_module(policy)
        before = arena_row("untrained (before training)", module, args.variant, args.deals)
        rows, t_train = [], time.perf_counter()
        for i in range(1, args.iterations + 1):
            r = algo.train()
            stats = r["learners"][policy]
            rows.append(
                f"| {i} | {int(r['env_runners']['num_env_steps_sampled_lifetime']):,} | "
                f"{int(r['env_runners']['num_episodes_lifetime']):,} | {stats['policy_loss']:+.4f} | "
                f"{stats['vf_loss']:.4f} | {stats['entropy']:.3f} | {time.perf_counter() - t_train:.0f} s |"
            )
            print(rows[-1], flush=True)
        train_s = time.perf_counter() - t_train
        after = arena_row(f"trained ({args.iterations} iterations)", algo.get_module(policy), args.variant, args.deals)
    finally:
        algo.stop()
        ray.shutdown()
    report = render(args, nodes, rows, [before, after], train_s, time.perf_counter() - t0)
    print(report)
    if args.out is not None:
        args.out.write_text(report, encoding="utf-8")
    return 0


def render(
    args: argparse.Namespace, nodes: list[str], rows: list[str], arena: list[str], train_s: float, total_s: float
) -> str:
    import shuangkou as sk

    command = "python experiments/rllib_ppo.py" + "".join(f" {shlex.quote(a)}" for a in sys.argv[1:])
    versions = ", ".join(f"{p} {version(p)}" for p in ("ray", "torch", "gymnasium"))
    return "\n".join(
        [
            "# RLlib PPO on Shuangkou",
            "",
            f"`shuangkou.rllib.ppo_config({args.variant!r}, policies={args.policies!r})`: RLlib's PPO (new API stack) "
            "on `ShuangkouMultiAgentEnv` with `MaskedTorchRLModule`; every seat plays the "
            f"{'one shared policy' if args.policies == 'shared' else 'policy of its team'} (self-play), reward "
            "`win` (+1 / −1 by team, 0 for a draw), sampling in the driver. See [docs/rllib.md](../docs/rllib.md).",
            "",
            "## Run",
            "",
            f"- Command: `{command}`",
            f"- Machine: {os.cpu_count()} vCPUs, {platform.system()} {platform.machine()}, Python "
            f"{platform.python_version()}; CPU only; {versions}, shuangkou {sk.__version__}.",
            f"- Ray: local, node addresses {nodes}.",
            f"- PPO: {args.iterations} iterations × {args.batch} env steps, minibatch {args.minibatch}, "
            f"{args.epochs} epochs, lr {args.lr:g}, MLP {'×'.join(map(str, args.hidden))}, seed {args.seed}.",
            f"- Wall time: training {train_s:.0f} s, whole script {total_s:.0f} s.",
            "",
            "## Training",
            "",
            "| iteration | env steps | deals | policy loss | value loss | entropy | time |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
            *rows,
            "",
            "## Against the random bot",
            "",
            f'`sk.arena(variant={args.variant!r}, agents=[shuangkou.rllib.arena_agent(module), "random"], '
            f'deals="eval-v1:{args.deals}")`: each deal of the evaluation set twice, the same cards, the '
            "seats exchanged; the module plays its most probable legal action. WP: share of duplicate pairs won "
            "(ties half), 95% Wilson interval; ADP: mean score difference per deal, 95% interval.",
            "",
            "| module | deals | WP vs random (95% CI) | ADP (95% CI) | pairs won / lost / tied | time |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
            *arena,
            "",
            "## Notes",
            "",
            f"- Training ran at {args.iterations * args.batch / train_s:.0f} env steps a second: one env in the "
            "driver, where RLlib steps the env and the module in Python at every decision (`num_env_runners` adds "
            "Ray actors that sample in parallel).",
            "- Greedy play of an untrained module is far worse than random play (its most probable legal action "
            "hardly depends on the position), so the first arena row is a floor, not a baseline; the random bot "
            "against itself scores a WP of 0.5.",
            "",
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
