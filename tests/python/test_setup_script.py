"""scripts/setup.sh's options, run with --dry-run (it prints the commands it would run
and runs none, so no network): one option per extra of pyproject.toml (--envs, --train,
--play, --sb3, ...) and --all ask pip for exactly the packages of those extras, read from
pyproject.toml, and rebuild nothing; it says what it is doing; and the package's messages
name those options where they say what to install."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "scripts" / "setup.sh"
EXTRAS: dict[str, list[str]] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
    "optional-dependencies"
]


def existing_venv(tmp_path: Path) -> Path:
    """A stand-in for a set-up .venv: its python is this interpreter, which imports the package."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    python.chmod(0o755)
    return venv


def setup(*args: str, venv: Path) -> subprocess.CompletedProcess:
    # (the stand-in venv's python imports the package as this test process does: from
    # the installed wheel in CI, through PYTHONPATH in a development tree)
    env = dict(os.environ, SHUANGKOU_VENV=str(venv), PYTHON=sys.executable)
    return subprocess.run(
        ["bash", str(SETUP), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def commands(out: str) -> list[list[str]]:
    """The commands a dry run printed ("+ cmd args"), split as bash would."""
    return [shlex.split(line[2:]) for line in out.splitlines() if line.startswith("+ ")]


def pip_installs(cmds: list[list[str]]) -> list[list[str]]:
    """The arguments after `pip install` of each pip install command."""
    return [c[c.index("install") + 1 :] for c in cmds if c[1:4] == ["-m", "pip", "install"]]


def union(*names: str) -> list[str]:
    out: list[str] = []
    for n in names:
        out += [r for r in EXTRAS[n] if r not in out]
    return out


def help_text() -> str:
    return subprocess.run(["bash", str(SETUP), "--help"], capture_output=True, text=True, check=True).stdout


def test_help_lists_every_option():
    out = help_text()
    for option in ("--test", "--envs", "--train", "--play", "--all", "--dry-run", "--help"):
        assert f"setup.sh {option}" in out, option
    assert "pyproject.toml" in out and "rebuild" in out


@pytest.mark.parametrize("extra", list(EXTRAS))
def test_help_lists_each_extras_option_with_what_it_adds(extra):
    """One line `bash scripts/setup.sh --EXTRA  also the EXTRA extra: ...`, then its packages."""
    out = help_text()
    (line,) = [ln for ln in out.splitlines() if re.match(rf"\s*bash scripts/setup\.sh --{extra}\b", ln)]
    i = out.index(line)
    text = " ".join(out[i : out.index("bash scripts/setup.sh --", i + len(line))].split())
    assert f"also the {extra} extra" in text, text
    for req in EXTRAS[extra]:
        assert " ".join(req.split()) in text, (req, text)


def test_every_extra_has_its_option_and_there_are_the_expected_ones():
    assert {"envs", "train", "play", "openspiel", "ray", "rllib", "bench", "sb3", "test"} <= set(EXTRAS)


def test_envs_asks_pip_for_exactly_the_envs_extra_and_does_not_rebuild(tmp_path):
    venv = existing_venv(tmp_path)
    p = setup("--envs", "--dry-run", venv=venv)
    assert p.returncode == 0, p.stderr
    cmds = commands(p.stdout)
    assert pip_installs(cmds) == [["-q", *EXTRAS["envs"]]], p.stdout
    assert EXTRAS["envs"] == ["gymnasium>=1.0", "pettingzoo>=1.24"]  # (what pyproject.toml says today)
    assert cmds == [[str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *EXTRAS["envs"]]]
    flat = " ".join(" ".join(c) for c in cmds)
    for build_step in ("--no-build-isolation", "scikit-build-core", "apt-get", " venv ", "--upgrade pip"):
        assert build_step not in flat
    assert "dry run: nothing was installed" in p.stdout


@pytest.mark.parametrize(
    "options, extras",
    [
        *[([f"--{extra}"], [extra]) for extra in EXTRAS if extra != "test"],
        (["--envs", "--play"], ["envs", "play"]),
        (["--play", "--envs", "--play"], ["play", "envs"]),
        (["--all"], list(EXTRAS)),
    ],
    ids=lambda x: " ".join(x) if isinstance(x, list) else str(x),
)
def test_each_option_adds_its_extras_packages_only(tmp_path, options, extras):
    p = setup(*options, "--dry-run", venv=existing_venv(tmp_path))
    assert p.returncode == 0, p.stderr
    assert pip_installs(commands(p.stdout)) == [["-q", *union(*extras)]], p.stdout
    assert f"extras {' '.join(extras)} (pyproject.toml)" in p.stdout


def test_all_is_every_extra_of_pyproject(tmp_path):
    p = setup("--all", "--dry-run", venv=existing_venv(tmp_path))
    (args,) = pip_installs(commands(p.stdout))
    assert set(args[1:]) == {r for reqs in EXTRAS.values() for r in reqs}
    assert {"envs", "train", "play", "test"} <= set(EXTRAS)


def test_a_new_environment_is_built_first_then_given_the_extras(tmp_path):
    p = setup("--envs", "--dry-run", venv=tmp_path / "new")
    if p.returncode != 0 and "missing system packages" in p.stderr:
        pytest.skip("this machine lacks the build's system packages")
    assert p.returncode == 0, p.stderr
    installs = pip_installs(commands(p.stdout))
    assert installs[-2] == ["-v", "--no-build-isolation", "."]  # the package, then the extra's packages
    assert installs[-1] == ["-q", *EXTRAS["envs"]]
    assert "creating the virtual environment" in p.stdout


def test_test_with_an_extra_builds_with_the_test_tools_and_adds_the_extra(tmp_path):
    p = setup("--test", "--train", "--dry-run", venv=existing_venv(tmp_path))
    if p.returncode != 0 and "missing system packages" in p.stderr:
        pytest.skip("this machine lacks the test setup's system packages and sudo")
    assert p.returncode == 0, p.stderr
    installs = pip_installs(commands(p.stdout))
    assert installs[-2:] == [["-v", "--no-build-isolation", ".[test]"], ["-q", *EXTRAS["train"]]]
    assert "setup: installing the test tools" in p.stdout


def test_an_unknown_option_is_refused_and_nothing_runs(tmp_path):
    p = setup("--env", venv=tmp_path / "none")
    assert p.returncode == 2
    assert "unknown option '--env'" in p.stderr and "--envs" in p.stderr
    assert not (tmp_path / "none").exists()
    (line,) = p.stderr.splitlines()  # one line, naming every option
    for option in [*(f"--{extra}" for extra in EXTRAS), "--all", "--dry-run", "--help"]:
        assert re.search(rf"{option}\b", line), (option, line)


def test_sb3_installs_stable_baselines3_and_sb3_contrib_with_torch_pinned(tmp_path):
    """A bare `pip install sb3-contrib` pulled torch 2.14 with 5 GB of CUDA libraries: the sb3
    extra pins torch as the train extra does, with the floors the test extra uses."""
    p = setup("--sb3", "--dry-run", venv=existing_venv(tmp_path))
    assert p.returncode == 0, p.stderr
    ((q, *args),) = pip_installs(commands(p.stdout))
    assert q == "-q" and args == EXTRAS["sb3"], p.stdout
    assert "torch==2.13.0" in args and EXTRAS["train"] == ["torch==2.13.0"]
    for package in ("stable-baselines3", "sb3-contrib", "torch"):
        (pinned,) = [r for r in args if re.match(rf"{package}\b", r)]
        assert pinned in EXTRAS["test"], pinned  # the same version floor (or pin) as the test extra
        assert re.match(rf"{package}(==|>=)[0-9]", pinned), pinned


def test_the_dry_run_says_what_each_step_does_and_the_build_shows_its_progress(tmp_path):
    p = setup("--play", "--dry-run", venv=tmp_path / "new")
    if p.returncode != 0 and "missing system packages" in p.stderr:
        pytest.skip("this machine lacks the build's system packages")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()

    def before(progress: str, command: str) -> None:
        """The progress line comes before the command it announces."""
        (i,) = [n for n, ln in enumerate(lines) if ln.startswith(f"setup: {progress}")]
        (j,) = [n for n, ln in enumerate(lines) if ln.startswith("+ ") and command in ln]
        assert i < j, (progress, command, p.stdout)

    before("creating the virtual environment", "-m venv")
    before("installing the build tools", "scikit-build-core")
    before("building the C++ extension", "--no-build-isolation")
    before("installing the Python packages of the extras play", "starlette")
    assert "minutes" in next(ln for ln in lines if ln.startswith("setup: building the C++ extension"))
    # pip's own output comes through for the long build (-v, filtered; all of it in a log),
    # and the short steps stay quiet
    installs = pip_installs(commands(p.stdout))
    (build,) = [c for c in installs if "--no-build-isolation" in c]
    assert "-v" in build and "-q" not in build
    assert "build/setup.log" in p.stdout
    assert all(c[0] == "-q" for c in installs if c is not build)


def test_the_extras_are_read_without_a_toml_library(tmp_path):
    """Python < 3.11 without tomli nor pip (a fresh Ubuntu 22.04): the options and the
    packages are the same, read from the table's arrays."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\nfor m in ('tomllib', 'tomli', 'pip._vendor.tomli'):\n    sys.modules[m] = None\n"
    )
    venv = existing_venv(tmp_path)
    env = dict(os.environ, SHUANGKOU_VENV=str(venv), PYTHON=sys.executable)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(blocker), os.environ.get("PYTHONPATH")]))

    def run(*args: str) -> str:
        p = subprocess.run(["bash", str(SETUP), *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        return p.stdout

    assert run("--help") == help_text()
    (args,) = pip_installs(commands(run("--all", "--dry-run")))
    assert args == ["-q", *union(*EXTRAS)]


# -------------------------------------------------------------- the package's install hints

PACKAGE = ROOT / "python" / "shuangkou"


def test_the_package_suggests_no_pip_install_without_the_setup_option():
    """Every `pip install` the package's messages and docstrings suggest comes with the
    setup.sh option of that extra nearby (within the same message), and none is a bare
    `pip install` of Stable-Baselines3 or sb3-contrib (which pulls a CUDA torch)."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"pip install", text):
            near = text[max(0, m.start() - 250) : m.end() + 250]
            options = re.findall(r"scripts/setup\.sh((?: --[a-z0-9]+)+)", near)
            named = {o for group in options for o in group.split()}
            line = text.count("\n", 0, m.start()) + 1
            if not named:
                bad.append(f"{path.relative_to(ROOT)}:{line}: pip install without a setup.sh option")
            elif not named <= {f"--{e}" for e in EXTRAS} | {"--all"}:
                bad.append(f"{path.relative_to(ROOT)}:{line}: setup.sh has no option {sorted(named)}")
        for m in re.finditer(r"pip install ['\"]?(stable-baselines3|sb3-contrib)", text):
            bad.append(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: a bare {m.group()}")
    assert not bad, "\n".join(bad)
