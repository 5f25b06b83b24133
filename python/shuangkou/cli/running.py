"""Running a command: every expected failure becomes one `error:` line on stderr and
its exit code (docs/errors.md)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from ..agents import AgentError


def error(message: str) -> None:
    """Prints `error: message` as one line on stderr, printable whatever the terminal's
    encoding (a bad argument may hold undecodable bytes)."""
    text = f"error: {message}".replace("\n", "; ")
    encoding = sys.stderr.encoding or "utf-8"
    try:
        print(text.encode(encoding, "backslashreplace").decode(encoding), file=sys.stderr)
    except OSError:  # (stderr's reader went away too: nobody is left to tell)
        pass


CLOSED_PIPE = 141  # 128 + SIGPIPE: the status a shell reports for `seq` or `cat` cut off by `| head`


def _stdout_gone() -> int:
    """The reader of stdout went away (`| head`): what is left to print goes to
    /dev/null, so that nothing else fails (Python flushes stdout once more at exit)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return CLOSED_PIPE


def flush_stdout() -> bool:
    """Flushes what stdout still holds (a pipe's output is buffered until now); False,
    quietly, when its reader has gone away."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_gone()
        return False
    return True


def run_command(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Runs a command, turning every expected failure into one `error:` line on stderr and
    its exit code (docs/errors.md): 2 bad input, 1 an agent that failed, an output that
    cannot be written or memory, 130 Ctrl-C; 141 (as for a command killed by SIGPIPE),
    with nothing printed, when the reader of stdout went away (`| head`)."""
    code = _run(func, args)
    if not flush_stdout():
        return code or CLOSED_PIPE
    return code


def _run(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return func(args)
    except AgentError as e:  # a Python agent failed (raised, or returned bad ids): name it in one line
        hint = (
            ""
            if isinstance(e, ValueError)
            else " (run it through shuangkou.arena / shuangkou.selfplay for the traceback)"
        )
        error(f"{e}{hint}")
        return 1
    except ValueError as e:
        error(str(e))
        return 2
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly (before OSError, its base)
        return _stdout_gone()
    except OSError as e:  # an output that cannot be written: say which, no traceback
        error(str(e))
        return 1
    except MemoryError:
        error("out of memory (ask for fewer deals, envs or threads)")
        return 1
    except KeyboardInterrupt:
        error("interrupted")
        return 130
