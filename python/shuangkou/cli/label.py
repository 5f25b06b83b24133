"""`shuangkou label`: the expert labeller (docs/labels.md). Deals played by a mix of
agents; at sampled decisions every candidate play is scored by determinized rollouts,
and the labels go to shards in --out beside a manifest, for `shuangkou train` with a
`distill:` section.

    shuangkou label --config configs/expert/label_baibian.yaml --out runs/labels_baibian
    shuangkou label --config configs/expert/label_baibian.yaml --out runs/labels_baibian --resume
    shuangkou label --config configs/expert/label_baibian.yaml --out runs/l --max-shards 2

Each shard is deterministic for (config, shard): a resumed run labels the shards the
manifest lacks, and Ctrl-C loses only the shard under way (exit 130).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..expert.label_config import LabelConfig
from ..expert.labels import label
from ..util.checks import int_arg
from .options import add_command, add_quiet_option
from .running import error


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="a labelling config, e.g. configs/expert/label_baibian.yaml")
    parser.add_argument("--out", default=None, help="output folder (default: runs/<config name>)")
    parser.add_argument(
        "--max-shards",
        type=int,
        default=None,
        metavar="N",
        help="label at most N more shards this run (default: all the config's shards); --resume goes on",
    )
    parser.add_argument("--resume", action="store_true", help="go on in --out: label the shards its manifest lacks")
    parser.add_argument("--force", action="store_true", help="start over in an --out that holds labels")
    add_quiet_option(parser)


def run(args: argparse.Namespace) -> int:
    config = LabelConfig.from_yaml(args.config)
    if args.max_shards is not None:
        int_arg(args.max_shards, "--max-shards", 1)
    out = Path(args.out) if args.out else Path("runs") / Path(args.config).stem
    try:
        manifest = label(
            config, out, resume=args.resume, force=args.force, max_shards=args.max_shards, progress=not args.quiet
        )
    except KeyboardInterrupt:
        error(
            f"interrupted: the finished shards are kept; go on with --resume (shuangkou label --config {args.config} --out {out} --resume)"
        )
        return 130
    shards = manifest["shards"]
    decisions = sum(s["decisions"] for s in shards)
    seconds = sum(s["seconds"] for s in shards)
    print(
        f"labelled {len(shards)} of {config.shards} shards: {decisions:,} decisions, "
        f"{sum(s['candidates'] for s in shards):,} candidates, {decisions / max(seconds, 1e-9):.0f} labels/s; "
        f"wrote {out}/{'manifest.json'}"
    )
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`shuangkou label`."""
    add_command(
        sub,
        "label",
        "score candidate plays by determinized rollouts, for distillation (docs/labels.md)",
        __doc__,
        add_arguments,
        run,
    )
