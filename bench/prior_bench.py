"""The cost of the shipped networks' heuristic prior: decisions a second of `dmc` and
`dmc+search` against the same network alone (the shipped file without `heuristic_prior`
and `search_gap`), one thread, every seat the bot, two runs each in one process
(experiments/benchmarks.md, "The heuristic prior's cost").

    python bench/prior_bench.py                    # baibian and qianbian
    python bench/prior_bench.py --variants jj --games 500 --search-games 20
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import shuangkou as sk


def rate(agent: str, variant: str, games: int) -> int:
    """Actions a second of `agent` in every seat, self-play on one thread."""
    bot = sk.Bot(agent)
    start = time.perf_counter()
    r = sk.selfplay(variant, games=games, agents=bot, threads=1, seed=0)
    return round(int(r.arrays["actions"].sum()) / (time.perf_counter() - start))


def alone_file(variant: str, folder: Path) -> Path:
    """The shipped network of `variant` without its prior and gate."""
    net = sk.QNet.load(sk.builtin_models()[variant])
    path = folder / f"{variant}_alone.safetensors"
    path.write_bytes(net.with_metadata({"heuristic_prior": None, "search_gap": None}).to_bytes())
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default="baibian,qianbian")
    parser.add_argument("--games", type=int, default=2000, help="deals a dmc measurement")
    parser.add_argument("--search-games", type=int, default=60, help="deals a dmc+search measurement")
    args = parser.parse_args()
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for v in args.variants.split(","):
            alone = alone_file(v, Path(tmp))
            rows = (
                ("dmc alone", f"dmc:{alone}", args.games),
                ("dmc", "dmc", args.games),
                ("dmc+search alone", f"dmc:{alone}+search", args.search_games),
                ("dmc+search", "dmc+search", args.search_games),
            )
            out[v] = {name: [rate(agent, v, games), rate(agent, v, games)] for name, agent, games in rows}
            print(v, json.dumps(out[v]), flush=True)
    print(json.dumps({"build": sk._core.ARCH, **out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
