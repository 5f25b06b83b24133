"""Fuzz target for the training config reader (``TrainConfig.from_yaml``),
which reads through the variant reader's functions (``shuangkou.config``).

Property: ``TrainConfig.from_yaml(path)`` returns a config that passes its own
``check()``, or raises ``ValueError`` itself (not a subclass) whose message
names a file in the fuzz folder or says which file it cannot read, and is at
most a few hundred characters (values are cut, never echoed whole). Either way
within 5 s: an alias bomb or deep nesting is refused, not expanded. Anything
else escapes and fails the run.

Inputs are those of tests/fuzz/config_fuzz.py (its mutations, tokens and
seeded random loop) applied to the training configs ``configs/train/*.yaml``;
they lie in a folder with copies of those configs, so ``base:`` finds them.

    python tests/fuzz/train_config_fuzz.py -runs=20000     # atheris (libFuzzer flags)
    python tests/fuzz/train_config_fuzz.py crash-FILE      # replay one input

Without atheris the seeded random loop of config_fuzz.py runs it.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import config_fuzz as variant_fuzz  # noqa: E402 - the mutations, and PyYAML instrumented

if variant_fuzz.atheris is not None:
    with variant_fuzz.atheris.instrument_imports(include=["shuangkou"]):
        from shuangkou.dmc.learner import TrainConfig
else:
    from shuangkou.dmc.learner import TrainConfig

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "configs" / "train").glob("*.yaml"))
SEEDS = [p.read_bytes() for p in CONFIGS]
assert SEEDS, "no training configs in configs/train"
# Values worth splicing into a training config, beyond config_fuzz's.
variant_fuzz.TOKENS += [
    b"[256, 128]",
    b"[8]",
    b"[0]",
    b"[65537]",
    b"[" + b", ".join([b"4"] * 65) + b"]",
    b"18446744073709551616",
    b"1e308",
    b"&a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]",
    b"[&a [1, 1, 1, 1, 1, 1, 1, 1], &b [*a, *a, *a, *a, *a, *a, *a, *a], &c [*b, *b, *b, *b, *b, *b, *b, *b], "
    b"&d [*c, *c, *c, *c, *c, *c, *c, *c], [*d, *d, *d, *d, *d, *d, *d, *d]]",
    b"dmc_baibian.yaml",
    b"/dev/zero",
    b"heuristic",
    b"search:0",
    b"dmc:nowhere",
    b"os:getcwd",
]
# The configs' copies lie in a folder of the temporary directory named by their hash,
# written once and reused (libFuzzer ends the process without cleaning up); each input
# is a file of this process, removed after it.
_DIGEST = hashlib.sha1(b"".join(p.name.encode() + b"\0" + s for p, s in zip(CONFIGS, SEEDS))).hexdigest()[:12]
FOLDER = Path(tempfile.gettempdir()) / f"shuangkou-train_config_fuzz-{_DIGEST}"
FOLDER.mkdir(exist_ok=True)
for p, text in zip(CONFIGS, SEEDS):
    if not (FOLDER / p.name).is_file() or (FOLDER / p.name).read_bytes() != text:
        tmp = FOLDER / f".{p.name}-{os.getpid()}"
        tmp.write_bytes(text)
        os.replace(tmp, FOLDER / p.name)  # whole, even with another run writing the same
PATH = FOLDER / f"fuzz-{os.getpid()}.yaml"
variant_fuzz.TOKENS.append(PATH.name.encode())  # base: itself


def TestOneInput(data: bytes) -> None:
    blob = variant_fuzz.mutate(data, SEEDS)
    PATH.write_bytes(blob)
    start = time.perf_counter()
    try:
        try:
            config = TrainConfig.from_yaml(PATH)
        except ValueError as e:
            msg = str(e)
            if type(e) is not ValueError:
                raise
            assert str(FOLDER) in msg or "cannot read training config" in msg, f"names no file: {msg!r}"
            assert len(msg) < 2000, f"a message of {len(msg)} characters: {msg[:300]!r}..."
        else:
            config.check()
            assert isinstance(config.hidden, tuple) and all(type(h) is int for h in config.hidden), config
        took = time.perf_counter() - start
        assert took < 5, f"took {took:.1f} s"
    except BaseException:
        print(f"train_config_fuzz: the failing text ({len(blob)} bytes): {blob[:600]!r}", file=sys.stderr)
        raise
    finally:
        PATH.unlink(missing_ok=True)


def main() -> None:
    if variant_fuzz.atheris is None:
        sys.exit(variant_fuzz._standalone(sys.argv[1:], TestOneInput, "train_config_fuzz"))
    variant_fuzz.atheris.Setup(variant_fuzz._add_seed_inputs(sys.argv), TestOneInput)
    variant_fuzz.atheris.Fuzz()


if __name__ == "__main__":
    main()
