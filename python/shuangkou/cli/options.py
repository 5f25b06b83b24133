"""The command line's shared options, each defined once: the rule set (--variant,
--set), --force, --quiet, --seed, --threads, --out and --replays, --ray and --chunk, and
the web server's --host, --port, --lang and --no-browser; with the readers that turn
them back into values. Library code never imports this module: it takes values."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from .. import _core
from ..runs.ray_tasks import reach
from ..util.checks import DEFAULT_SEED


def add_variant_options(parser: argparse.ArgumentParser) -> None:
    """--variant and --set, one definition for every command that takes a rule set
    (selfplay, arena, play, moves, read); `variant_rules` reads them back."""

    parser.add_argument(
        "--variant",
        default="baibian",
        help="rule set: a preset ("
        + ", ".join(_core.preset_names())
        + ") or a YAML file like configs/variants/jj.yaml "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a variant parameter, e.g. --set max_bomb=10 (repeatable)",
    )


def add_force_option(parser: argparse.ArgumentParser, files: str) -> None:
    """--force: write into an --out folder that holds `files` of an earlier run
    (without it the command refuses that folder before doing anything)."""
    parser.add_argument(
        "--force",
        action="store_true",
        help=f"replace an earlier run's {files} in --out (without --force, a folder that holds any of "
        "them is refused before anything runs)",
    )


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    """--quiet: no progress bar."""
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_seed_option(parser: argparse.ArgumentParser, help: str = "base seed", **kwargs: Any) -> None:
    """--seed: the base seed (DEFAULT_SEED unless `kwargs` say otherwise)."""
    parser.add_argument("--seed", type=int, **{"default": DEFAULT_SEED, **kwargs}, help=help)


def add_threads_option(parser: argparse.ArgumentParser) -> None:
    """--threads: 0 for every core."""
    parser.add_argument("--threads", type=int, default=0, help="threads (0: every core)")


def add_out_options(parser: argparse.ArgumentParser, holds: str, files: str, replays: str | None = None) -> None:
    """--out FOLDER (which `holds` what it says), --force (for an earlier run's `files`)
    and, where `replays` says what it records, --replays N|all."""
    parser.add_argument("--out", default=None, help=f"folder for {holds}")
    add_force_option(parser, files)
    if replays is not None:
        parser.add_argument("--replays", default="0", help=replays)


def replays_arg(text: str) -> int | str:
    """--replays: a count or 'all'."""
    if text == "all":
        return text
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--replays takes a count or 'all', got '{text}'") from None


def add_ray_option(parser: Any, does: str) -> None:
    """The command line's ``--ray [ADDRESS]`` (argparse), for a command that `does` what
    the help says on Ray."""
    parser.add_argument(
        "--ray",
        nargs="?",
        const=True,
        default=False,
        metavar="ADDRESS",
        help=f"{does} (needs Ray: bash scripts/setup.sh --ray): without ADDRESS a new local Ray on 127.0.0.1 (or the one "
        "this process has), 'auto' the cluster of this machine (ray start --head), HOST:PORT a cluster's head",
    )


def add_ray_options(parser: argparse.ArgumentParser) -> None:
    """--ray [ADDRESS] and --chunk: play on a Ray cluster (docs/ray.md)."""
    add_ray_option(
        parser,
        "play on Ray, the deals cut into chunks, one Ray task of --threads CPUs each (1 for 0), with results "
        "equal to the one-machine run's (docs/ray.md)",
    )
    parser.add_argument(
        "--chunk", type=int, default=None, help="with --ray: deals a task (default: about four tasks a worker)"
    )


def add_server_options(parser: argparse.ArgumentParser, host_help: str) -> None:
    """--lang, --host, --port and --no-browser: the web table's and the viewer's server."""
    parser.add_argument("--lang", choices=["zh", "en"], default="zh", help="the page's language")
    parser.add_argument("--host", default="127.0.0.1", help=host_help)
    parser.add_argument("--port", type=int, default=0, help="port (0: any free one)")
    parser.add_argument("--no-browser", action="store_true", help="do not open the browser")


def parse_overrides(pairs: list[str]) -> dict[str, str]:
    """--set KEY=VALUE pairs as a dict; ValueError for a pair without '='."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set takes KEY=VALUE (e.g. max_bomb=10), got '{pair}'")
        out[key.strip()] = value.strip()
    return out


def variant_rules(args: argparse.Namespace) -> tuple[Any, dict[str, str]]:
    """The `Rules` of --variant with the --set overrides, and the overrides; ValueError
    (before anything runs) for a bad preset, file, parameter or value."""

    overrides = parse_overrides(args.set)
    return _core.Rules(args.variant, **overrides), overrides


def variant_text(args: argparse.Namespace) -> str:
    """--variant as given, with its --set overrides: "baibian (max_bomb=10)"."""
    overrides = parse_overrides(args.set)
    return args.variant + (f" ({', '.join(f'{k}={v}' for k, v in overrides.items())})" if overrides else "")


def import_from_cwd() -> None:
    """module:callable agents are found in the current folder, as `python -m` would find them."""
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def reach_ray(ray: Any, agents: list[Any]) -> None:
    """With --ray: the cluster reached and the agents checked for it before --out is touched,
    so that a cluster that cannot be reached leaves the folder as it was."""
    if ray:
        reach(ray, agents)


def check_replays_out(replays: Any, out: Any) -> None:
    """--replays needs --out: the replays go to OUT/replays.jsonl.gz."""
    if replays and out is None:
        raise ValueError("--replays needs --out (the replays go to OUT/replays.jsonl.gz)")


def add_command(
    sub: argparse._SubParsersAction,
    name: str,
    summary: str,
    description: str,
    add_arguments: Callable[[argparse.ArgumentParser], None],
    run: Callable[[argparse.Namespace], int],
) -> None:
    """A subcommand whose --help shows its module's docstring (`description`) as written."""
    p = sub.add_parser(
        name, help=summary, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(p)
    p.set_defaults(func=run)
