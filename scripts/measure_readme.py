"""The README's timings (setup, the main job, its deals per second), measured by one
script, saved with the build configuration they were measured with, and written between
generated markers, so they cannot drift from the build they describe: the main job's
output into README.md, the setup's figures (with the machine, the commit and the build)
and the deals per second into experiments/benchmarks.md (BLOCKS says which file has which).

python scripts/measure_readme.py --measure [--runs N] [--append]
    N fresh clones of this checkout's HEAD (default 2), one after the other, each with
    only the system folders on PATH: times `bash scripts/setup.sh` (the virtual
    environment and both builds of the C++ core) and the main job
    (`.venv/bin/shuangkou selfplay --out runs/demo`), records the date, commit,
    machine, how many cores other work kept busy meanwhile (from /proc/stat, less
    the measured commands' own CPU time) and the build configuration the clone's
    setup produced, saves experiments/readme_figures.json and rewrites the blocks.
    They show the range over the runs, and the output of the fastest.
    --append adds the runs to the saved ones (same commit and build configuration
    only): measure again when the shared machine is quieter, keep every run.
python scripts/measure_readme.py
    rewrites the blocks from experiments/readme_figures.json.
python scripts/measure_readme.py --check
    exit 1 if the blocks differ from the saved figures, or if the figures
    were measured with a build configuration other than this checkout's (the build
    that scripts/setup.sh makes in build/<wheel tag>/: compiler, build type, the
    modules built and their compile and link flags, the package version). Tests run this.

The build configuration comes from the build files (CMakeCache.txt, the compiler CMake
found, build.ninja's flags), never from the machine, so a figure measured on the same
kind of machine with the same build compares; a change of compiler, flags, build type
or the number of modules built (x86-64-v3 dispatch) asks for a new measurement.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FIGURES = ROOT / "experiments" / "readme_figures.json"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
MAIN_JOB = ["shuangkou", "selfplay", "--out", "runs/demo"]
# Each block and the file that shows it, relative to ROOT: the README shows the main job's
# output; the measurement's provenance and the deals per second are in the benchmarks.
BLOCKS = {"setup": "experiments/benchmarks.md", "main-job": "README.md", "speed": "experiments/benchmarks.md"}


def markers(name: str) -> tuple[str, str]:
    return f"<!-- figures:{name}:begin (scripts/measure_readme.py) -->", f"<!-- figures:{name}:end -->"


def shown_in() -> dict[Path, list[str]]:
    """Each file that shows figures (under ROOT, as it is when called), with its blocks."""
    files: dict[Path, list[str]] = {}
    for name, where in BLOCKS.items():
        files.setdefault(ROOT / where, []).append(name)
    return files


# --- the build configuration ----------------------------------------------------


def setup_build_dir(root: Path) -> Path | None:
    """The build folder scripts/setup.sh (pip, scikit-build-core) made: build/<wheel tag>/.

    Where several Pythons built, the one whose tag matches this interpreter wins."""
    dirs = sorted(
        p.parent
        for p in (root / "build").glob("*/CMakeInit.txt")
        if (p.parent / "build.ninja").exists() and re.match(r"(cp|pp)\d+-", p.parent.name)
    )  # (build-dir = "build/{wheel_tag}" in pyproject.toml; scripts/sanitize.sh's build/asan-python is not one)
    if not dirs:
        return None
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}-"
    return next((d for d in dirs if d.name.startswith(tag)), dirs[0])


def _cache(build: Path) -> dict[str, str]:
    out = {}
    for line in (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace").splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+):[A-Z]+=(.*)$", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def build_config(root: Path) -> dict | None:
    """The configuration of the build in root/build/<wheel tag>/, or None where there is none."""
    build = setup_build_dir(root)
    if build is None:
        return None
    cache = _cache(build)
    cmake_version = ".".join(cache.get(f"CMAKE_CACHE_{k}_VERSION", "") for k in ("MAJOR", "MINOR", "PATCH"))
    compiler_file = build / "CMakeFiles" / cmake_version / "CMakeCXXCompiler.cmake"
    compiler = "unknown"
    if compiler_file.exists():
        text = compiler_file.read_text(encoding="utf-8")
        cid = re.search(r'set\(CMAKE_CXX_COMPILER_ID "([^"]*)"\)', text)
        ver = re.search(r'set\(CMAKE_CXX_COMPILER_VERSION "([^"]*)"\)', text)
        compiler = f"{cid.group(1) if cid else '?'} {ver.group(1) if ver else '?'}"
    init = (build / "CMakeInit.txt").read_text(encoding="utf-8")
    version = re.search(r"set\(SKBUILD_PROJECT_VERSION \[===\[([^\]]*)\]===\]", init)
    ninja = (build / "build.ninja").read_text(encoding="utf-8", errors="replace")
    flags = sorted(set(re.findall(r"^\s+FLAGS = (.*)$", ninja, re.M)))
    link_flags = sorted(set(re.findall(r"^\s+LINK_FLAGS = (.*)$", ninja, re.M)))
    modules = sorted(set(re.findall(r'-DSHUANGKOU_ARCH=\\?"([^"\\]+)\\?"', ninja)))
    return {
        "version": version.group(1) if version else "unknown",
        "compiler": compiler,
        "generator": cache.get("CMAKE_GENERATOR", "unknown"),
        "build_type": cache.get("CMAKE_BUILD_TYPE", "unknown"),
        "modules": modules,
        "compile_flags": flags,
        "link_flags": link_flags,
    }


def config_differences(recorded: dict, current: dict) -> list[str]:
    """One line per key whose value differs between the recorded and the current configuration."""
    keys = sorted(set(recorded) | set(current))
    return [
        f"{k}: measured with {recorded.get(k)!r}, this build has {current.get(k)!r}"
        for k in keys
        if recorded.get(k) != current.get(k)
    ]


def key_flags(config: dict) -> str:
    """The flags that set the speed (optimisation, LTO, OpenMP, debug info), as one short string."""
    tokens = {t for line in config["compile_flags"] for t in line.split()}
    picked = sorted(t for t in tokens if re.match(r"-O|-flto|-fopenmp|-g$|-g\d", t))
    return " ".join(picked)


# --- measuring ---------------------------------------------------------------------


def _busy_seconds() -> float:
    """CPU seconds the whole machine has been busy (every core), from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def timed(cmd: list[str], cwd: Path, env: dict) -> tuple[subprocess.CompletedProcess, float, float]:
    """Runs cmd; returns it, its wall time and the cores other work kept busy meanwhile (the
    machine's busy CPU time less this command's own, per second of wall time)."""
    ours0, busy0, t0 = os.times(), _busy_seconds(), time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall, busy = time.perf_counter() - t0, _busy_seconds() - busy0
    ours1 = os.times()
    own = (ours1.children_user - ours0.children_user) + (ours1.children_system - ours0.children_system)
    return p, round(wall, 1), round(max(0.0, busy - own) / wall, 2)


def measure_once(parent: Path, log) -> dict:
    clone = parent / "shuangkou"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = SYSTEM_PATH
    run: dict = {}
    p, run["setup_s"], run["others_cores_setup"] = timed(["bash", "scripts/setup.sh"], clone, env)
    if p.returncode != 0:
        raise SystemExit(f"setup failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    p, run["main_job_s"], run["others_cores_main_job"] = timed([".venv/bin/" + MAIN_JOB[0], *MAIN_JOB[1:]], clone, env)
    if p.returncode != 0:
        raise SystemExit(f"the main job failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    m = re.search(r"([\d.]+) s on (\d+) threads?: ([\d,]+) deals/s, ([\d,]+) decisions/s", p.stdout)
    if not m:
        raise SystemExit(f"no timing line in the main job's output:\n{p.stdout}")
    run["selfplay_s"] = float(m.group(1))
    run["threads"] = int(m.group(2))
    run["deals_per_s"] = int(m.group(3).replace(",", ""))
    run["decisions_per_s"] = int(m.group(4).replace(",", ""))
    run["output"] = p.stdout
    arch = subprocess.run(
        [".venv/bin/python", "-c", "import shuangkou._core as c; print(c.ARCH)"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    run["module"] = arch.stdout.strip()
    run["commit"] = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout.strip()
    run["build"] = build_config(clone)
    log(
        f"setup {run['setup_s']} s, main job {run['main_job_s']} s ({run['deals_per_s']:,} deals/s), "
        f"other work busy on {run['others_cores_setup']}/{run['others_cores_main_job']} cores"
    )
    return run


def os_name() -> str:
    try:
        text = Path("/etc/os-release").read_text(encoding="utf-8")
    except OSError:
        return "Linux"
    name = re.search(r'^NAME="?([^"\n]*)"?', text, re.M)
    version = re.search(r'^VERSION_ID="?([^"\n]*)"?', text, re.M)
    if not name:
        return "Linux"
    return name.group(1).split()[0] + (f" {version.group(1)}" if version else "")


def measure(runs: int) -> dict:
    results = []
    for i in range(runs):
        with tempfile.TemporaryDirectory(prefix="shuangkou-measure-") as tmp:
            results.append(measure_once(Path(tmp), lambda s, i=i: print(f"run {i + 1}/{runs}: {s}", flush=True)))
    builds = {json.dumps(r["build"], sort_keys=True) for r in results}
    commits = {r["commit"] for r in results}
    if len(builds) != 1 or len(commits) != 1:
        raise SystemExit("the runs built differently: measure again")
    python = subprocess.run(
        ["/usr/bin/env", "PATH=" + SYSTEM_PATH, "python3", "--version"], capture_output=True, text=True
    ).stdout.strip()
    last = results[-1]
    return {
        "date": datetime.date.today().isoformat(),
        "commit": last["commit"],
        "machine": {"cpus": os.cpu_count(), "os": os_name(), "python": python},
        "build": last["build"],
        "module": last["module"],
        "runs": [{k: v for k, v in r.items() if k not in ("build", "commit", "module")} for r in results],
    }


def shown_output(figures: dict) -> str:
    """The main job's output the README shows: that of the fastest run (the least disturbed)."""
    return max((r for r in figures["runs"] if "output" in r), key=lambda r: r["deals_per_s"])["output"]


# --- rendering ---------------------------------------------------------------------


def _span(values: list[float], fmt: str = "{:.0f}") -> str:
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    return lo if lo == hi else f"{lo}–{hi}"


def _load_span(f: dict, steps: tuple[str, ...] = ("setup", "main_job")) -> str:
    """How busy other work kept the machine while the timed commands ran."""
    busy = {step: [r[f"others_cores_{step}"] for r in f["runs"]] for step in steps}
    cpus = f["machine"]["cpus"]
    note = "figures under load" if max(max(v) for v in busy.values()) >= 0.2 else "the machine otherwise idle"
    parts = [f"{_span(v, '{:.1f}')} during the {step.replace('_', ' ')}" for step, v in busy.items()]
    parts[0] = parts[0].replace(" during", f" of the {cpus} cores during", 1)
    return f"other work used {' and '.join(parts)}: {note}"


def _build_line(f: dict) -> str:
    b = f["build"]
    modules = " and ".join(b["modules"])
    count = {1: "one module", 2: "two modules"}.get(len(b["modules"]), f"{len(b['modules'])} modules")
    return (
        f"built by {b['compiler']} ({b['build_type']}, `{key_flags(b)}`, {b['generator']}) as {count}, "
        f"{modules}; the main job ran the {f['module']} module"
    )


def _fill(text: str) -> str:
    return textwrap.fill(text, width=80, break_long_words=False, break_on_hyphens=False)


def render_setup(f: dict) -> str:
    runs = f["runs"]
    total = [r["setup_s"] + r["main_job_s"] for r in runs]
    setup = [r["setup_s"] for r in runs]
    main = [r["main_job_s"] for r in runs]
    n = len(runs)
    over = "one run" if n == 1 else f"{n} runs, each in a fresh clone"
    m = f["machine"]
    return _fill(
        f"Measured by `python scripts/measure_readme.py --measure` in a fresh clone with no virtual "
        f"environment yet, on the {m['cpus']}-core development machine ({m['os']}, its own "
        f"{m['python']}, only the system folders on `PATH`; the system packages already there; times "
        f"include downloading the Python packages and building the C++ core): the first command "
        f"{_span(total)} s (setup {_span(setup)} s, the main job {_span(main, '{:.1f}')} s; {over}; "
        f"{_load_span(f)}). Measured {f['date']} at commit `{f['commit']}`, {_build_line(f)}; "
        "a test checks that this is still the build `scripts/setup.sh` makes."
    )


def render_main_job(f: dict) -> str:
    return (
        "<!-- test: output of shuangkou selfplay --out runs/demo -->\n```text\n"
        + shown_output(f).rstrip("\n")
        + "\n```"
    )


def render_speed(f: dict) -> str:
    runs = f["runs"]
    deals = [r["deals_per_s"] for r in runs]
    decisions = [r["decisions_per_s"] / 1e6 for r in runs]
    threads = runs[-1]["threads"]
    return _fill(
        f"The main job (`{' '.join(MAIN_JOB)}`): {_span(deals, '{:,.0f}')} random deals of baibian per second "
        f"on {threads} threads ({_span([d / threads for d in deals], '{:,.0f}')} per thread; "
        f"{_span(decisions, '{:.1f}')} million decisions per second), every deal's results recorded; "
        f"measured {f['date']} at commit `{f['commit']}` by `scripts/measure_readme.py`, "
        f"{_load_span(f, ('main_job',))}."
    )


RENDER = {"setup": render_setup, "main-job": render_main_job, "speed": render_speed}


def filled_text(figures: dict, text: str, names: list[str], where: str) -> str:
    """`text` (of the file `where`) with its blocks `names` written from the figures."""
    for name in names:
        begin, end = markers(name)
        if begin not in text or end not in text:
            raise SystemExit(f"{where} lacks the markers {begin} ... {end}")
        start, stop = text.index(begin), text.index(end) + len(end)
        text = text[:start] + begin + "\n" + RENDER[name](figures) + "\n" + end + text[stop:]
    return text


def stale_files(figures: dict) -> list[Path]:
    """The files whose blocks differ from the figures."""
    stale = []
    for path, names in shown_in().items():
        text = path.read_text(encoding="utf-8")
        if filled_text(figures, text, names, str(path.relative_to(ROOT))) != text:
            stale.append(path)
    return stale


def check(figures: dict) -> list[str]:
    """What is wrong with the shown figures (nothing: an empty list)."""
    problems = []
    stale = stale_files(figures)
    if stale:
        names = ", ".join(str(p.relative_to(ROOT)) for p in stale)
        problems.append(
            f"{names}: the measured figures differ from experiments/readme_figures.json: "
            "run python scripts/measure_readme.py"
        )
    current = build_config(ROOT)
    if current is not None:
        diff = config_differences(figures["build"], current)
        if diff:
            problems.append(
                "the README's timings were measured with another build configuration than this checkout's "
                "(re-measure: python scripts/measure_readme.py --measure):\n  " + "\n  ".join(diff)
            )
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--measure", action="store_true", help="measure in fresh clones, save and rewrite the blocks")
    ap.add_argument("--runs", type=int, default=2, help="fresh clones to measure (with --measure; default 2)")
    ap.add_argument("--append", action="store_true", help="with --measure: keep the saved runs, add these")
    ap.add_argument("--check", action="store_true", help="exit 1 if the blocks or the build configuration differ")
    args = ap.parse_args(argv)
    if args.measure:
        figures = measure(args.runs)
        if args.append:
            old = json.loads(FIGURES.read_text(encoding="utf-8"))
            if old["commit"] != figures["commit"] or old["build"] != figures["build"]:
                raise SystemExit("--append: the saved runs are of another commit or build configuration")
            figures["runs"] = old["runs"] + figures["runs"]
            if old["date"] != figures["date"]:
                figures["date"] = f"{old['date'].split(' to ')[0]} to {figures['date']}"
        FIGURES.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {FIGURES.relative_to(ROOT)}")
    figures = json.loads(FIGURES.read_text(encoding="utf-8"))
    if args.check:
        problems = check(figures)
        if build_config(ROOT) is None:
            print("measure_readme: no build/<wheel tag>/ to compare with (run scripts/setup.sh)", file=sys.stderr)
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    for path, names in shown_in().items():
        text = path.read_text(encoding="utf-8")
        new = filled_text(figures, text, names, str(path.relative_to(ROOT)))
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
