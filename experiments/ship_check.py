"""Each stage-3 ship decision measured again on deals that chose nothing: the file a commit
shipped against the file it replaced, and both against `heuristic`, on deals of
stage3_eval.CHOICE_SEED (neither eval-v1, whose figures the reports give, nor a training
run's or the labels' deals). These decisions were made on eval-v1 before the choosing
deals existed (experiments/expert_presets.md, "The ship decisions on other deals").

    python experiments/ship_check.py                         # experiments/ship_check.json
    python experiments/ship_check.py --deals 200 --out /tmp/ship_check.json

The files come from the repository's history (`git show REV:...` and `REV^:...`), their
sha256 recorded beside the pairs; intervals are 95%, a duplicate pair one unit.
"""

from __future__ import annotations

import argparse
import subprocess
import time
from pathlib import Path

from expert_eval import pair, write_result
from stage3_eval import CHOICE_SEED, sha256
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
# (rule set, the commit that shipped the file, what it shipped)
DECISIONS = [
    ("baibian", "f1fea50", "stage 3"),
    ("baibian", "ff49ca0", "stage 3 again, its best response in the pool"),
    ("qianbian", "e365155", "stage 3"),
    ("jj", "e365155", "stage 3"),
    ("classic", "e365155", "stage 3"),
    ("qianbian_collect", "413205f", "stage 3"),
]


def model_at(rev: str, variant: str, work: Path) -> Path:
    """The shipped file of `variant` as of commit `rev`, written under `work`."""
    data = subprocess.run(
        ["git", "show", f"{rev}:python/shuangkou/models/dmc_{variant}.safetensors"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    path = work / f"{variant}_{rev.replace('^', '_parent')}.safetensors"
    path.write_bytes(data)
    return path


def check(variant: str, rev: str, deals: int, threads: int, work: Path) -> dict:
    """One decision: the file shipped at `rev` (new) and the one before (old) against
    `heuristic`, and new against old, on `deals` deals of CHOICE_SEED."""
    work.mkdir(parents=True, exist_ok=True)
    new, old = model_at(rev, variant, work), model_at(f"{rev}^", variant, work)
    sha = {"new": sha256(new), "old": sha256(old)}
    wanted = {"new vs heuristic": (new, "heuristic"), "old vs heuristic": (old, "heuristic"), "new vs old": (new, old)}
    rows = {}
    for name, (a, b) in wanted.items():
        agents = [f"dmc:{a}", b if isinstance(b, str) else f"dmc:{b}"]
        rows[name] = pair(agents, deals, threads, variant, seed=CHOICE_SEED)
    return {"variant": variant, "commit": rev, "sha256": sha, "pairs": rows}


def table(decisions: list[dict]) -> str:
    """The report's table: one line a decision."""
    lines = [
        "| rule set | commit | shipped | new vs `heuristic` | old vs `heuristic` | new vs old |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    for d in decisions:
        cells = [
            f"{r['wp']:.3f}" + (f" ({r['wp_ci'][0]:.3f}–{r['wp_ci'][1]:.3f})" if r.get("wp_ci") else "")
            for r in d["pairs"].values()
        ]
        lines.append(f"| {d['variant']} | `{d['commit']}` | {d['what']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=10_000, help="duplicate deals a pair")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "experiments" / "ship_check.json")
    parser.add_argument("--work", type=Path, default=ROOT / "runs" / "ship_check", help="the files taken from history")
    args = parser.parse_args()
    start, decisions = time.perf_counter(), []
    for variant, rev, what in tqdm(DECISIONS, desc="decisions"):
        decisions.append({**check(variant, rev, args.deals, args.threads, args.work), "what": what})
    result = {"seed": CHOICE_SEED, "deals": args.deals, "decisions": decisions}
    result["seconds"] = round(time.perf_counter() - start, 1)
    write_result(args.out, result)
    print(table(decisions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
