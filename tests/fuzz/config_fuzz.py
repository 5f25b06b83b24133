"""Fuzz target for the variant config loader: the YAML side
(``shuangkou.config.parse_entries``) and the rules built from its entries.

Property: ``parse_entries(text, "fuzz")`` returns ``(name, value, line,
shape)`` entries or raises ``ValueError``; the rules built from those entries
are a ``Rules`` or a ``ValueError``. Every ``ValueError`` names its source
first. Anything else (another exception, a ValueError subclass such as
UnicodeError, a malformed entry) escapes and fails the run.

The bindings build a variant from a path by calling
``shuangkou.config.read_entries(path)`` and checking the entries in C++
(``variant_from_entries``), so the target hands the fuzzed text to that same
call, without a file. A quarter of the inputs also go through a real file
(``Rules(path)``, which reads it with ``read_text``): both ways must agree.

Inputs mutate the preset files ``configs/variants/*.yaml`` (random YAML text
rarely gets a line past the syntax):
  byte 0      the mutation (see ``mutate``)
  byte 1      which preset; from 192 up, also check through a real file
  bytes 2..5  two 16-bit numbers: positions, lengths, table indices
  bytes 6..   the payload the mutation inserts or draws from

    python tests/fuzz/config_fuzz.py -runs=20000            # atheris (libFuzzer flags)
    python tests/fuzz/config_fuzz.py -max_total_time=60 CORPUS_DIR
    python tests/fuzz/config_fuzz.py crash-FILE             # replay one input

Without atheris (``pip install atheris``) the same target runs under a seeded
random-input loop taking ``-runs=N``, ``-seed=S``, ``-max_total_time=T`` and
crash files; a failing input is written to ``crash-config_fuzz-S-N``.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

try:
    import atheris
except ImportError:  # the seeded random loop below stands in
    atheris = None

if atheris is not None:
    # Coverage feedback from PyYAML's pure-Python reader, scanner, parser and
    # composer (the safe loader) and from the package's Python side.
    with atheris.instrument_imports(include=["yaml", "shuangkou"], exclude=["yaml.reader", "yaml.scanner"]):
        import shuangkou
        import shuangkou.config as config
        import yaml  # noqa: F401
else:
    import shuangkou
    import shuangkou.config as config

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [p.read_bytes() for p in sorted((ROOT / "configs" / "variants").glob("*.yaml"))]
assert SEEDS, "no preset files in configs/variants"
SOURCE = "fuzz"
# The name the bindings see: a path (it ends in .yaml) whose entries come from
# the fuzzed text rather than from a file.
VIRTUAL = "fuzz-input.yaml"
PARAMS = set(shuangkou.param_names())

_ENTRY = re.compile(rb"^([A-Za-z_]+):[ \t]*([^\n#]*)", re.M)

# Values worth splicing in: every value the presets use, YAML's other spellings
# of booleans, numbers and null, tags, anchors, escapes, collections, block
# scalars. (The presets' own values are added below.)
TOKENS = [
    b"",
    b"~",
    b"null",
    b"Null",
    b"true",
    b"false",
    b"True",
    b"FALSE",
    b"yes",
    b"no",
    b"on",
    b"off",
    b"y",
    b"n",
    b"0",
    b"-1",
    b"+8",
    b"08",
    b"0o10",
    b"0x8",
    b"0b1000",
    b"8.0",
    b"8e0",
    b"1_0",
    b"12",
    b"13",
    b"3",
    b"99999999999999999999999999999",
    b"-99999999999999999999999999999",
    b"1e400",
    b".inf",
    b"-.inf",
    b".nan",
    b"2001-12-14",
    b"12:30:00",
    b"''",
    b'""',
    b"' none'",
    b'"none "',
    b'"NONE"',
    b'"n\\u006fne"',
    b'"\\ud800"',
    b'"\\udfff\\ud800"',
    b'"\\U0001F600"',
    b'"\\x00"',
    b'"\\0"',
    b'"\\t8"',
    b'"\\N"',
    b"!!str none",
    b"!!str 8",
    b"!!int 8",
    b"!!float 8",
    b"!!bool true",
    b"!!null ''",
    b"!!binary aGk=",
    b"!!timestamp 2001-12-14",
    b"!!python/object:os.system",
    b"!!python/name:os.system",
    b"!custom x",
    b"!<tag:yaml.org,2002:str> none",
    b"!<tag:example.com,2000:x> none",
    b"&a none",
    b"*a",
    b"*undefined",
    b"&r [*r]",
    b"[none]",
    b"[]",
    b"{}",
    b"{a: b}",
    b"[[[[]]]]",
    b"- none",
    b"|\n  none",
    b">-\n  none",
    b"|+\n  8\n\n",
    b"? none",
    b"none # comment",
    b"none\t",
    b"\tnone",
    b"none\r",
    b"none\x85",
    b"\xef\xbb\xbfnone",
    b"\xff\xfe",
    b"\xed\xa0\x80",
    b"\x00",
    b"\x1b",
    b"%",
    b"@x",
    b"`x",
    b"'unterminated",
    b'"unterminated',
]
# Keys worth putting where a parameter name stands.
KEYS = [
    b"wild",
    b"WILD_JOKERS",
    b"unknown",
    b'"wild_jokers"',
    b"'max_bomb'",
    b"!!str max_bomb",
    b"!!int 8",
    b"? max_bomb",
    b"? [a, b]",
    b"? {a: b}",
    b"<<",
    b"&k max_bomb",
    b"*k",
    b"8",
    b"true",
    b"null",
    b"~",
    b"''",
    b'"\\ud800"',
    b"max_bomb ",
    b"- max_bomb",
    b"max_bomb:",
]
# Text around a document: directives, markers, line ends, indentation.
FRAMES = [
    (b"", b"\n---\n"),
    (b"---\n", b""),
    (b"--- !!map\n", b""),
    (b"--- !!seq\n", b""),
    (b"%YAML 1.1\n---\n", b""),
    (b"%YAML 2.0\n---\n", b""),
    (b"%TAG ! tag:yaml.org,2002:\n---\n", b""),
    (b"", b"...\n"),
    (b"", b"\n...\n---\nmax_bomb: 8\n"),
    (b"\xef\xbb\xbf", b""),
    (b"&top\n", b""),
    (b"!!map\n", b""),
    (b"? ", b""),
    (b"- ", b""),
    (b"{", b"}"),
    (b"[", b"]"),
]
DEPTHS = [1, 2, 8, 50, 200, 450, 500, 1000, 5000, 20000]


def _preset_values() -> list[bytes]:
    values = set()
    for seed in SEEDS:
        for m in _ENTRY.finditer(seed):
            values.add(m.group(2).strip())
    return sorted(values)


TOKENS += _preset_values()


def _entry_lines(text: bytes) -> list[tuple[int, int, int, int]]:
    """(key start, key end, value start, value end) of each `name: value` line."""
    return [(m.start(1), m.end(1), m.start(2), m.end(2)) for m in _ENTRY.finditer(text)]


SEED_LINES = [_entry_lines(s) for s in SEEDS]


def nesting(depth: int, form: int, inner: bytes) -> bytes:
    """A value nested `depth` levels: flow lists, flow mappings, block lists,
    block mappings, or unclosed flow lists."""
    form %= 5
    if form in (2, 3):  # indented: the text grows with depth squared
        depth = min(depth, 1200)
    if form == 0:
        return b"[" * depth + inner + b"]" * depth
    if form == 1:
        return b"{a: " * depth + inner + b"}" * depth
    if form == 2:  # block sequences, each one deeper
        return b"".join(b"\n" + b" " * (i + 1) + b"-" for i in range(depth)) + b" " + inner
    if form == 3:  # block mappings
        return b"".join(b"\n" + b" " * (i + 1) + b"k:" for i in range(depth)) + b" " + inner
    return b"[" * depth + inner


def mutate(data: bytes, seeds: list[bytes] | None = None) -> bytes:
    """The text an input stands for: a preset (or one of `seeds`, for another
    target: tests/fuzz/train_config_fuzz.py) mutated as the input says, or the
    input's own bytes (mutation 0)."""
    if not data:
        return b""
    seeds = SEEDS if seeds is None else seeds
    op = data[0] % 12
    b1 = data[1] if len(data) > 1 else 0
    seed = seeds[b1 % len(seeds)]
    lines = SEED_LINES[b1 % len(seeds)] if seeds is SEEDS else _entry_lines(seed)
    a = int.from_bytes(data[2:4].ljust(2, b"\0"), "little")
    b = int.from_bytes(data[4:6].ljust(2, b"\0"), "little")
    payload = data[6:]
    key_at, key_end, value_at, value_end = lines[a % len(lines)]
    if op == 0:  # raw bytes
        return data[1:]
    if op == 1:  # overwrite a byte range with the payload
        at = a % (len(seed) + 1)
        return seed[:at] + payload + seed[at + b % 64 :]
    if op == 2:  # insert the payload
        at = a % (len(seed) + 1)
        return seed[:at] + payload + seed[at:]
    if op == 3:  # delete a byte range
        at = a % (len(seed) + 1)
        return seed[:at] + seed[at + b % 256 :]
    if op == 4:  # a value replaced by the payload
        return seed[:value_at] + payload + seed[value_end:]
    if op == 5:  # a value replaced by a token
        return seed[:value_at] + TOKENS[b % len(TOKENS)] + seed[value_end:]
    if op == 6:  # a key replaced by a token
        return seed[:key_at] + KEYS[b % len(KEYS)] + seed[key_end:]
    if op == 7:  # a value replaced by nesting, a token or the payload inside
        inner = payload[:32] if b & 0x8000 else TOKENS[(b >> 6) % len(TOKENS)]
        return seed[:value_at] + nesting(DEPTHS[b % len(DEPTHS)] + (b >> 8) % 5, b >> 4, inner) + seed[value_end:]
    if op == 8:  # a value replaced by a long scalar
        unit = [b"a", b"8", b"\\u0041", b" ", b"\xe5\x8f\x8c"][(b >> 5) % 5]
        n = 1 << (b % 17)
        quoted = (b >> 8) & 1
        return seed[:value_at] + (b'"' + unit * n + b'"' if quoted else unit * n) + seed[value_end:]
    if op == 9:  # whole lines: one removed, duplicated or two swapped
        rows = seed.splitlines(keepends=True)
        i, j = a % len(rows), b % len(rows)
        what = (b >> 14) % 3
        if what == 0:
            del rows[i]
        elif what == 1:
            rows.insert(j, rows[i])
        else:
            rows[i], rows[j] = rows[j], rows[i]
        return b"".join(rows)
    if op == 10:  # framed: directives, document markers, BOM, flow brackets, CRLF
        before, after = FRAMES[b % len(FRAMES)]
        body = seed.replace(b"\n", b"\r\n") if (b >> 8) & 1 else seed
        if (b >> 9) & 1:
            body = body.replace(b": ", b":\t")
        return before + body + after
    # several values replaced by tokens, one per payload pair (from the end back)
    out = seed
    picks = sorted(
        {(lines[(payload[i] * 131 + a) % len(lines)], payload[i + 1]) for i in range(0, len(payload) - 1, 2)},
        reverse=True,
    )[:8]
    for (_, _, start, end), t in picks:
        out = out[:start] + TOKENS[t % len(TOKENS)] + out[end:]
    return out


def _rejected(e: ValueError, source: str, *, starts: bool = True) -> None:
    """A ValueError as the loader must raise it: the plain type, a message
    that names the source (first, where the contract says so)."""
    if type(e) is not ValueError:
        raise e
    msg = str(e)
    if starts and not msg.startswith(source):
        raise AssertionError(f"the message does not start with the source {source!r}: {msg!r}") from e
    if not starts and source not in msg:
        raise AssertionError(f"the message does not name {source!r}: {msg!r}") from e


def _check_entries(entries: object) -> None:
    assert isinstance(entries, list), entries
    for e in entries:
        assert isinstance(e, tuple) and len(e) == 4, e
        name, value, line, shape = e
        assert isinstance(name, str) and isinstance(value, str) and isinstance(shape, str), e
        assert isinstance(line, int) and line >= 1, e
        assert shape == "" or value == "", e


_read_entries = config.read_entries


def rules_from_text(text: str) -> shuangkou.Rules:
    """Rules built from the text by the bindings' own path (read_entries and
    the C++ checks), with the text standing for the file's contents."""
    config.read_entries = lambda path: config.parse_entries(text, os.fspath(path))
    try:
        return shuangkou.Rules(VIRTUAL)
    finally:
        config.read_entries = _read_entries


# If the bindings stop reading entries through config.read_entries, the
# virtual path would only ever fail to open: then every input goes through a
# real file instead.
try:
    _VIA_ENTRIES = (
        rules_from_text(SEEDS[0].decode("utf-8")).params
        == shuangkou.Rules(str(sorted((ROOT / "configs" / "variants").glob("*.yaml"))[0])).params
    )
except ValueError:
    _VIA_ENTRIES = False
if not _VIA_ENTRIES:
    print(
        "config_fuzz: the bindings do not call shuangkou.config.read_entries; checking through files", file=sys.stderr
    )


def via_text(blob: bytes) -> dict[str, str] | None:
    """The params the text gives, None when it is rejected (ValueError)."""
    text = blob.decode("utf-8")
    try:
        entries = config.parse_entries(text, SOURCE)
    except ValueError as e:
        _rejected(e, SOURCE)
        return None
    _check_entries(entries)
    try:
        rules = rules_from_text(text)
    except ValueError as e:
        _rejected(e, VIRTUAL)
        return None
    params = rules.params
    assert set(params) == PARAMS, params
    return params


def via_file(blob: bytes) -> dict[str, str] | None:
    """The same through a real file: Rules(path) reads it (read_text)."""
    fd, path = tempfile.mkstemp(prefix="config_fuzz-", suffix=".yaml")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        try:
            params = shuangkou.Rules(path).params
        except ValueError as e:
            _rejected(e, path, starts=False)
            return None
    finally:
        os.unlink(path)
    assert set(params) == PARAMS, params
    return params


def TestOneInput(data: bytes) -> None:
    blob = mutate(data)
    try:
        _check(data, blob)
    except BaseException:
        # Where the text leaves the preset it mutates, for a readable report.
        seed = SEEDS[data[1] % len(SEEDS)] if len(data) > 1 and data[0] % 12 else b""
        at = next((i for i, (x, y) in enumerate(zip(blob, seed)) if x != y), min(len(blob), len(seed)))
        at = max(0, at - 80)
        print(
            f"config_fuzz: the failing text ({len(blob)} bytes), from byte {at}: {blob[at : at + 400]!r}",
            file=sys.stderr,
        )
        raise


def _check(data: bytes, blob: bytes) -> None:
    try:
        blob.decode("utf-8")
        text_ok = True
    except UnicodeDecodeError:
        text_ok = False
    file_check = not _VIA_ENTRIES or (len(data) > 1 and data[1] >= 192)
    got = via_text(blob) if text_ok and _VIA_ENTRIES else None
    if file_check:
        from_file = via_file(blob)
        if not text_ok or len(blob) > config.MAX_CONFIG_BYTES:
            assert from_file is None, "a file that is not UTF-8 or too large was accepted"
        elif _VIA_ENTRIES:
            assert from_file == got, f"the file gives {from_file}, its text {got}"


# --- without atheris: a seeded random-input loop -------------------------

_FRAGMENTS = [b"\n", b": ", b" ", b"-", b"[", b"]", b"{", b"}", b",", b"'", b'"', b"\\", b"#", b"&a", b"*a", b"!!"]


def _random_input(rng: random.Random, op: int | None = None) -> bytes:
    head = bytes(rng.randrange(256) for _ in range(6))
    if op is not None:
        head = bytes([op]) + head[1:]
    mode, n = rng.randrange(3), rng.randrange(48)
    if mode == 0:
        body = bytes(rng.randrange(256) for _ in range(n))
    elif mode == 1:
        body = b"".join(rng.choice(_FRAGMENTS) for _ in range(n))
    else:
        body = b"".join(rng.choice(TOKENS + KEYS + _FRAGMENTS) for _ in range(n))
    return head + body


def _standalone(argv: list[str], test=None, name: str = "config_fuzz") -> int:
    """The seeded random-input loop over `test` (this target's by default)."""
    test = test or TestOneInput
    runs, seed, max_time, files = -1, 1, 0.0, []
    for arg in argv:
        if arg.startswith("-runs="):
            runs = int(arg.split("=", 1)[1])
        elif arg.startswith("-seed="):
            seed = int(arg.split("=", 1)[1])
        elif arg.startswith("-max_total_time="):
            max_time = float(arg.split("=", 1)[1])
        elif arg.startswith("-"):
            pass  # other libFuzzer flags mean nothing here
        elif os.path.isfile(arg):
            files.append(arg)
    for file in files:
        test(Path(file).read_bytes())
        print(f"{name}: {file} passes")
    if files:
        return 0
    rng = random.Random(seed)
    start, run = time.monotonic(), 0
    while run != runs and not (max_time and time.monotonic() - start > max_time):
        data = _random_input(rng)
        try:
            test(data)
        except BaseException:
            crash = f"crash-{name}-{seed}-{run}"
            Path(crash).write_bytes(data)
            print(f"{name}: the failing input is in {crash}", file=sys.stderr)
            raise
        run += 1
    print(f"{name}: {run} inputs, no property broken (random inputs: atheris is not installed)")
    return 0


# libFuzzer starts from an empty input and grows inputs a byte at a time, so
# that a short run reaches every mutation with full-length headers, a run
# given no corpus is seeded with structured random inputs (-seed_inputs, which
# libFuzzer reads without writing a corpus). They are the same every run and
# lie in one folder of the temporary directory named by their hash, written
# once and reused.
def _add_seed_inputs(argv: list[str], n: int = 120) -> list[str]:
    if any(not a.startswith("-") for a in argv[1:]) or any(a.startswith("-seed_inputs=") for a in argv):
        return argv
    rng = random.Random(0)
    inputs = [_random_input(rng, op=i % 12) for i in range(n)]
    digest = hashlib.sha1(b"".join(len(x).to_bytes(4, "little") + x for x in inputs)).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"shuangkou-config_fuzz-seeds-{digest}"
    folder.mkdir(exist_ok=True)
    names = []
    for i, data in enumerate(inputs):
        path = folder / f"seed-{i:03d}"
        if not path.is_file() or path.read_bytes() != data:
            tmp = folder / f".seed-{i:03d}-{os.getpid()}"
            tmp.write_bytes(data)
            os.replace(tmp, path)  # whole, even with another run writing the same
        names.append(str(path))
    return [*argv, "-seed_inputs=" + ",".join(names)]


def main() -> None:
    if atheris is None:
        sys.exit(_standalone(sys.argv[1:]))
    atheris.Setup(_add_seed_inputs(sys.argv), TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
