"""Deep Monte-Carlo training from a config file (needs torch: bash scripts/setup.sh --train).

    python -m shuangkou.train --config configs/train/dmc_baibian.yaml --out runs/dmc_baibian
    shuangkou train --config configs/train/smoke.yaml --out runs/smoke
    python -m shuangkou.train --config configs/train/dmc_baibian.yaml --out runs/dmc_baibian --resume
    shuangkou train --config configs/train/dmc_baibian.yaml --out runs/dmc_baibian --ray HOST:PORT
    shuangkou train --config configs/train/smoke.yaml --set updates=20 --set lr=0.0005

--set KEY=VALUE (repeatable) replaces a setting of the config file: a key of the file
(updates, lr, eval_every, checkpoint_minutes, ...; ray.actors for a key of its `ray:`
section), the value read as it would be in the file (20, 0.0005, [128, 64], heuristic).
Each is checked as the file's setting is, before anything is written; with --resume the
config must still match the checkpoint's but in the settings a resume may change
(updates, lr, the logging and evaluation settings, ...: docs/training.md).

Ctrl-C stops the run after the update under way and saves the checkpoint at it: the
command says where, and the command that goes on from there (--resume), and exits 130.
Besides the evaluations' checkpoints, one is written every `checkpoint_minutes` (10 by
default; 0: only at evaluations and on Ctrl-C), so a crash loses at most that much.

--ray runs the actors as Ray actors (a new local Ray on 127.0.0.1 without an address,
`auto` for the cluster of this machine, HOST:PORT for a cluster's head), as the
config's optional `ray:` section says; the learner stays here. A `ray:` section is used
only with --ray. The checkpoint is the same either way, so a run resumes on one machine
or a cluster alike (docs/ray_training.md).

Writes into --out: model.safetensors (docs/model_format.md; play it with
--agents dmc:OUT/model.safetensors), checkpoint.pt, train.csv, eval.csv and curve.png
(see shuangkou.dmc.learner). A folder that holds an earlier run's files is refused
unless --resume (go on from its checkpoint) or --force (start over).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..dmc.overrides import config_with_overrides
from ..runs.ray_cluster import check_ray_arg, import_ray
from .options import add_quiet_option, add_ray_option
from .running import error, run_command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="a training config, e.g. configs/train/dmc_baibian.yaml")
    parser.add_argument("--out", default=None, help="output folder (default: runs/<config name>)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="replace a setting of the config, e.g. --set updates=2000 --set lr=0.0005 (repeatable; "
        "ray.actors=4 for the ray: section; the value read as in the YAML file)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on from the checkpoint in --out; one is written at each evaluation, every "
        "checkpoint_minutes (a config setting, 10 by default) and when Ctrl-C stops the run (which then "
        "prints the command to resume and exits 130)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="start over in an --out that holds an earlier run (its model, checkpoint, logs and curve are "
        "removed first); without --force or --resume such a folder is refused before anything runs",
    )
    add_quiet_option(parser)
    add_ray_option(
        parser,
        "run the actors as Ray actors, as the config's ray: section says (the learner stays here; "
        "docs/ray_training.md; without --ray a ray: section is not used)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401
    except ImportError:
        raise ValueError(
            "training needs PyTorch: bash scripts/setup.sh --train (or pip install '.[train]' in the clone: "
            "torch==2.13.0, a CPU build; or a CUDA build of torch where there is a GPU)"
        ) from None
    from ..dmc.learner import Interrupted, train  # (torch: imported only when training)

    config = config_with_overrides(args.config, args.set)
    out = Path(args.out) if args.out else Path("runs") / Path(args.config).stem
    try:
        ray = check_ray_arg(args.ray)
    except ValueError:
        raise ValueError(f"--ray takes no value, 'auto' or HOST:PORT (a cluster's head), got {args.ray!r}") from None
    if ray:
        try:
            import_ray()
        except ImportError as e:
            raise ValueError(f"--ray: {e}") from None
    try:
        result = train(config, out, resume=args.resume, progress=not args.quiet, force=args.force, ray=ray)
    except Interrupted as e:  # the checkpoint is saved: say where, and how to go on
        error(f"{e}; go on with: {resume_command(args, out)}")
        return 130
    log, ev = result["log"], result["eval"]
    print(
        f"trained {log.get('update', 0)} updates ({log.get('samples', 0):,} samples, "
        f"{log.get('elapsed_s', 0):.0f} s, loss {log.get('loss', float('nan')):.4f}); "
        f"WP against {ev.get('opponent')}: {ev.get('wp', float('nan')):.3f} "
        f"({ev.get('wp_lo', float('nan')):.3f}-{ev.get('wp_hi', float('nan')):.3f}) over {ev.get('deals')} "
        f"duplicate deals; wrote {out}/model.safetensors, train.csv, eval.csv, curve.png"
    )
    if log.get("actor_restarts"):
        print(f"{log['actor_restarts']} Ray actor(s) died and were replaced; {log['lost_samples']:,} decisions lost")
    return 0


def resume_command(args: argparse.Namespace, out: Path) -> str:
    """The command that goes on from the checkpoint in `out`: this one, with --resume."""
    words = ["shuangkou", "train", "--config", args.config, "--out", str(out)]
    words += [w for pair in args.set for w in ("--set", pair)]
    if args.ray:
        words += ["--ray"] if args.ray is True else ["--ray", str(args.ray)]
    return shlex.join([*words, *(["--quiet"] if args.quiet else []), "--resume"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="shuangkou train", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run_command(run, args)  # one "error:" line and the exit codes of `shuangkou train`


if __name__ == "__main__":
    sys.exit(main())


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`shuangkou train`: Deep Monte-Carlo training."""
    tr = sub.add_parser(
        "train",
        help="train a Deep Monte-Carlo agent from a config (needs torch)",
        description="Deep Monte-Carlo training: C++ actors play with the current Q network, PyTorch fits it "
        "to the deals' returns; checkpoints, CSV logs, duplicate-deal evaluations and a learning curve go "
        "to --out; --ray [ADDRESS] runs the actors on a Ray cluster (docs/ray_training.md). "
        "Example: shuangkou train --config configs/train/smoke.yaml --out runs/smoke",
    )
    add_arguments(tr)
    tr.set_defaults(func=run)
