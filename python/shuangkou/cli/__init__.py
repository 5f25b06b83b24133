"""The `shuangkou` command (docs/errors.md for its exit codes): `main` parses the
arguments and runs one command; each command is a module of this package (selfplay,
arena, train, play, rules), their shared options in options.py."""

from .main import build_parser, main
from .running import CLOSED_PIPE, run_command

__all__ = ["CLOSED_PIPE", "build_parser", "main", "run_command"]
