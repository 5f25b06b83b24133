"""The commands agree with each other: one way to give a rule set (--variant, --set),
one default seed, exit codes as docs/errors.md lists them, a quiet stop when the
reader of the output goes away, an unknown agent answered with every accepted form,
and an --out folder that holds an earlier run refused unless --force (or --resume)."""

from __future__ import annotations

import inspect
import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
import shuangkou as sk
from cli_util import assert_cli_error, cli_command, run_cli
from shuangkou import _core
from shuangkou.cli import CLOSED_PIPE, build_parser, main
from shuangkou.util.outputs import prepare_out

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
JJ = str(ROOT / "configs" / "variants" / "jj.yaml")


def subparser(name: str):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices[name]


def option(parser, flag: str):
    return next((a for a in parser._actions if flag in a.option_strings), None)


def snapshot(folder: Path) -> tuple[int, dict[str, tuple[bytes, int]]]:
    """The folder's mtime and every file's bytes and mtime: any write or removal shows."""
    files = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}
    return folder.stat().st_mtime_ns, files


# ---------------------------------------------------------------------------- 1: one way to give a rule set


RULE_SET_COMMANDS = ["selfplay", "arena", "play", "moves", "read"]


def test_every_command_that_takes_a_rule_set_has_the_same_variant_options():
    """moves and read took only preset names (choices=...) and no --set."""
    seen = []
    for name in RULE_SET_COMMANDS:
        p = subparser(name)
        variant, overrides = option(p, "--variant"), option(p, "--set")
        assert variant is not None and overrides is not None, name
        assert variant.choices is None, f"{name} --variant is limited to {variant.choices}"
        seen.append((variant.default, variant.help, overrides.help, overrides.metavar, overrides.default))
    assert all(s == seen[0] for s in seen), seen  # one definition
    assert "YAML" in seen[0][1] and seen[0][0] == "baibian"


def test_moves_takes_a_variant_file_and_overrides(capsys):
    hand = "3 3 3 3 3 3 3 3 4 5 6 7"
    assert main(["moves", "--variant", JJ, "--set", "max_bomb=6", "--hand", hand]) == 0
    out = capsys.readouterr().out
    expected = len(sk.Rules(JJ, max_bomb=6).legal_moves(hand))
    assert out.splitlines()[-1] == f"{expected} moves"
    assert "(max_bomb=6)" in out.splitlines()[0]
    assert main(["moves", "--variant", JJ, "--hand", hand]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"{len(sk.Rules(JJ).legal_moves(hand))} moves"
    assert len(sk.Rules(JJ).legal_moves(hand)) != expected  # (the override mattered)


def test_read_takes_overrides_through_the_real_command():
    eight = "5 5 5 5 5 5 5 5"
    p = run_cli("read", eight, "--variant", "classic")
    assert p.returncode == 0 and b"bomb" in p.stdout, p.stderr
    p = run_cli("read", eight, "--variant", "classic", "--set", "max_bomb=6")
    assert p.returncode == 1 and b"not a valid play in classic (max_bomb=6)" in p.stdout
    assert_cli_error(run_cli("read", eight, "--set", "max_bomb"), "KEY=VALUE")
    assert_cli_error(run_cli("moves", "--set", "nope=1"), "nope")
    assert_cli_error(run_cli("read", eight, "--variant", str(ROOT / "no_such.yaml")), "no_such.yaml")


# ---------------------------------------------------------------------------- 2: one default seed


def test_every_seed_defaults_to_zero():
    """selfplay on the command line used seed 1, sk.selfplay and the arena 0."""
    from shuangkou.runs.arena import parse_deals

    assert subparser("selfplay").get_default("seed") == 0
    assert subparser("play").get_default("seed") == 0
    assert inspect.signature(sk.selfplay).parameters["seed"].default == 0
    assert parse_deals(10, None)[1] == 0  # sk.arena(seed=None) and arena without --seed
    if _torch_available():
        from shuangkou.dmc.train_config import TrainConfig

        assert TrainConfig.from_dict({"variant": "baibian"}).seed == 0


def test_the_command_line_default_seed_is_the_api_default(tmp_path):
    p = run_cli("selfplay", "--games", "300", "--quiet", "--out", str(tmp_path / "s"))
    assert p.returncode == 0, p.stderr
    summary = json.loads((tmp_path / "s" / "summary.json").read_text())
    direct = sk.selfplay(games=300)
    assert summary["seed"] == direct["seed"] == 0
    assert summary["scores"]["by_seat"] == direct["scores"]["by_seat"]
    assert "(seed 0," in p.stdout.decode()
    p = run_cli("arena", "--agents", "greedy,random", "--deals", "5", "--quiet", "--out", str(tmp_path / "a"))
    assert p.returncode == 0, p.stderr
    assert json.loads((tmp_path / "a" / "results.json").read_text())["seed"] == 0


def _torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


# ---------------------------------------------------------------------------- 3: exit codes as documented


def _documented_codes() -> dict[int, str]:
    text = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    section = text.split("## The command line", 1)[1].split("\n## ", 1)[0]
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\| (\d+) \| (.+) \|$", section, re.M)}


def test_the_exit_code_table_lists_every_code_the_command_line_gives():
    codes = _documented_codes()
    assert set(codes) == {0, 1, 2, 130, CLOSED_PIPE}
    assert "agent" in codes[1] and "raised" in codes[1]
    assert "earlier run" in codes[2]
    assert "head" in codes[CLOSED_PIPE]


@pytest.mark.parametrize("command", [["arena", "--deals", "2"], ["selfplay", "--games", "2"]])
def test_an_agent_that_raises_exits_1_through_the_real_command(command, tmp_path):
    agents = "agents_for_tests:Raises,random" if command[0] == "arena" else "agents_for_tests:Raises"
    p = subprocess.run(
        [*cli_command(), *command, "--agents", agents, "--quiet", "--out", str(tmp_path / "out")],
        capture_output=True,
        cwd=HERE,  # module:callable agents are imported from the current folder
        timeout=120,
    )
    assert p.returncode == 1, p.stderr
    assert_cli_error(p, "agents_for_tests:Raises", "RuntimeError", "the agent broke")
    assert not (tmp_path / "out" / ("results.json" if command[0] == "arena" else "summary.json")).exists()


def test_bad_input_exits_2_and_play_ends_on_ctrl_c_with_0(tmp_path):
    assert run_cli("selfplay", "--games", "0", "--quiet").returncode == 2
    assert run_cli("selfplay", "--no-such-option").returncode == 2
    pytest.importorskip("uvicorn")
    p = subprocess.Popen(
        [*cli_command(), "play", "--no-browser", "--seats", "human,greedy,greedy,greedy"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert p.stdout.readline().startswith(b"seat 0: http")
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 0, err


# ---------------------------------------------------------------------------- 4: a reader that goes away


def _with_closed_stdout(args: list[str], unbuffered: bool) -> subprocess.CompletedProcess:
    """Runs the command with a stdout pipe whose reading end is closed at once, so that
    every write to it fails (EPIPE), whether Python buffers stdout or not."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    p = subprocess.Popen([*cli_command(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=120)
    return subprocess.CompletedProcess(p.args, p.returncode, b"", err)


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize(
    "args",
    [["moves"], ["read", "5 6 7 8 BJ"], ["selfplay", "--games", "50", "--quiet"]],
    ids=["moves", "read", "selfplay"],
)
def test_a_closed_pipe_stops_quietly_with_141(args, unbuffered):
    """`shuangkou moves | head -1` printed `error: [Errno 32] Broken pipe` (or, with a
    buffered stdout, Python's 'Exception ignored' lines and exit 120)."""
    p = _with_closed_stdout(args, unbuffered)
    assert p.stderr == b"", p.stderr
    assert p.returncode == CLOSED_PIPE == 141


def test_help_into_a_closed_pipe_is_quiet():
    p = _with_closed_stdout(["selfplay", "--help"], unbuffered=False)
    assert p.stderr == b"" and p.returncode in (0, CLOSED_PIPE)


def test_a_shell_pipe_into_head_prints_no_error():
    script = " ".join(cli_command()) + ' moves --hand "3 4 5 6 7 8 9 T J Q K A 2 SJ BJ" | head -1'
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    p = subprocess.run(["bash", "-c", script + "; echo status=${PIPESTATUS[0]} >&2"], capture_output=True, env=env)
    assert p.stdout.decode().startswith("variant baibian") and len(p.stdout.splitlines()) == 1
    assert re.fullmatch(rb"status=(0|141)\n", p.stderr), p.stderr


# ---------------------------------------------------------------------------- 5: every accepted agent form


def test_an_unknown_agent_lists_every_form():
    with pytest.raises(ValueError) as e:
        sk.selfplay(games=1, agents="clever")
    msg = str(e.value)
    listed = re.search(r"a built-in bot \(([^)]*)\)", msg).group(1).split(", ")
    expected, guided = [], []
    for row in _core.bot_registry():
        written = []
        if row["argument"] in ("none", "optional"):
            written.append(row["name"])
        if row["argument"] in ("optional", "required"):
            written.append(f"{row['name']}:{row['argument_name']}")
        expected += written
        if row["guides_search"]:
            guided += [f"{w}+search{n}" for w in written for n in ("", ":ROLLOUTS")]
    assert listed == expected + guided
    for form in (
        "dmc",
        "dmc:PATH",
        "search:ROLLOUTS",
        "dmc+search",
        "dmc:PATH+search:ROLLOUTS",
        "module:callable",
        "a callable",
        "shuangkou.Agent",
    ):
        assert form in msg, (form, msg)
    err = assert_cli_error(run_cli("selfplay", "--games", "1", "--agents", "clever", "--quiet"), "unknown agent")
    assert "dmc:PATH" in err and "module:callable" in err


def test_the_forms_come_from_the_registry(monkeypatch):
    """A bot the registry gains (here a made-up row) is listed with no other change."""
    row = {"name": "oracle", "argument": "optional", "argument_name": "N", "guides_search": False}
    rows = [*_core.bot_registry(), row]
    monkeypatch.setattr(_core, "bot_registry", lambda: rows)
    with pytest.raises(ValueError, match=r"oracle, oracle:N"):
        sk.selfplay(games=1, agents="clever")


# ---------------------------------------------------------------------------- 6: outputs never lose work


def test_prepare_out_refuses_an_earlier_run_before_touching_anything(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "summary.json").write_text("{}")
    (out / "notes.txt").write_text("mine")
    before = snapshot(out)
    with pytest.raises(ValueError) as e:
        prepare_out(out, ["summary.json", "deals.npz"])
    msg = str(e.value)
    assert str(out) in msg and "summary.json" in msg and "--force" in msg and "\n" not in msg
    assert snapshot(out) == before  # no probe file made, nothing removed
    prepare_out(out, ["summary.json", "deals.npz"], force=True)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]  # the run's files go, others stay
    prepare_out(out, ["summary.json"], marks=())  # (a resume: no refusal)


@pytest.mark.parametrize(
    "command, files",
    [
        (["selfplay", "--games", "30"], ["summary.json", "deals.npz"]),
        (["arena", "--agents", "greedy,random", "--deals", "4"], ["results.json", "pairs.csv", "report.md"]),
    ],
    ids=["selfplay", "arena"],
)
def test_a_second_run_into_the_same_out_is_refused_unless_force(tmp_path, command, files):
    out = tmp_path / "out"
    p = run_cli(*command, "--quiet", "--out", str(out), timeout=120)
    assert p.returncode == 0, p.stderr
    (out / "notes.txt").write_text("mine")
    before = snapshot(out)
    p = run_cli(*command, "--seed", "5", "--quiet", "--out", str(out), timeout=120)
    assert p.returncode == 2
    err = assert_cli_error(p, str(out), "--force", files[0])
    assert "earlier run" in err and p.stdout == b""  # refused before playing
    assert snapshot(out) == before
    p = run_cli(*command, "--seed", "5", "--quiet", "--out", str(out), "--force", timeout=120)
    assert p.returncode == 0, p.stderr
    for name in files:
        assert (out / name).stat().st_mtime_ns != before[1][name][1], name
    assert (out / "notes.txt").read_text() == "mine"


def test_selfplay_force_drops_an_earlier_runs_replays(tmp_path):
    """A folder never mixes two runs: the old replays do not stay beside a new summary."""
    out = tmp_path / "out"
    assert run_cli("selfplay", "--games", "20", "--replays", "5", "--quiet", "--out", str(out)).returncode == 0
    (out / "summary.json").unlink()
    (out / "deals.npz").unlink()
    p = run_cli("selfplay", "--games", "20", "--quiet", "--out", str(out))  # only replays.jsonl.gz: still a run
    assert_cli_error(p, "replays.jsonl.gz", "--force")
    assert run_cli("selfplay", "--games", "20", "--quiet", "--out", str(out), "--force").returncode == 0
    assert sorted(p.name for p in out.iterdir()) == ["deals.npz", "summary.json"]


def test_play_out_refuses_earlier_deals_unless_force(tmp_path):
    pytest.importorskip("uvicorn")
    out = tmp_path / "table"
    out.mkdir()
    (out / "deals.jsonl").write_text('{"earlier": "deal"}\n')
    before = snapshot(out)
    p = run_cli("play", "--no-browser", "--out", str(out), timeout=60)
    assert p.returncode == 2 and p.stdout == b""  # refused before serving
    assert_cli_error(p, str(out), "deals.jsonl", "--force")
    assert snapshot(out) == before
    proc = subprocess.Popen(
        [*cli_command(), "play", "--no-browser", "--seats", "human,greedy,greedy,greedy", "--out", str(out), "--force"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout.readline().startswith(b"seat 0: http")  # serving: the old deals are gone
        assert not (out / "deals.jsonl").exists()
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    finally:
        proc.kill()


def test_the_arena_report_refuses_an_earlier_report_unless_force(tmp_path):
    from shuangkou.runs.arena_report import FILES, write_report

    r = sk.arena("classic", agents=["greedy", "random"], deals=2)
    assert [p.name for p in write_report(r, tmp_path)] == list(FILES)
    before = snapshot(tmp_path)
    with pytest.raises(ValueError, match="already holds an earlier run.*force=True"):
        write_report(r, tmp_path)
    assert snapshot(tmp_path) == before
    assert write_report(r, tmp_path, force=True)[0].read_text() == before[1]["results.json"][0].decode()


def test_every_command_with_out_documents_force_in_its_help():
    for name in ("selfplay", "arena", "play", "train"):
        help_text = " ".join(subparser(name).format_help().split())
        assert "--force" in help_text and "refused" in help_text, name


def test_train_refuses_a_folder_with_a_run_unless_resume_or_force(tmp_path):
    pytest.importorskip("torch")
    from shuangkou.dmc.learner import train
    from train_util import tiny, tiny_yaml

    assert inspect.signature(train).parameters["force"].default is False
    out = tmp_path / "run"
    config = tiny(updates=1, eval_every=1)
    train(config, out, progress=False)
    before = snapshot(out)
    with pytest.raises(ValueError, match="already holds an earlier run.*--resume.*--force") as e:
        train(config, out, progress=False)
    assert str(out) in str(e.value) and "checkpoint.pt" in str(e.value)
    assert snapshot(out) == before
    cfg = str(tiny_yaml(tmp_path / "tiny.yaml", updates=1, eval_every=1))
    p = run_cli("train", "--config", cfg, "--out", str(out), "--quiet", timeout=120)
    assert p.returncode == 2
    assert_cli_error(p, str(out), "--resume", "--force")
    p = run_cli("train", "--config", cfg, "--out", str(out), "--quiet", "--resume", "--force", timeout=120)
    assert_cli_error(p, "--resume and --force")
    assert snapshot(out) == before
    result = train(tiny(updates=2, eval_every=1), out, progress=False, force=True)  # starts over
    assert result["log"]["update"] == 2
    rows = (out / "train.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["1", "2"]  # one run's log, not two
