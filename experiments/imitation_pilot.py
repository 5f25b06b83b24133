"""Round 1's pilot (experiments/expert_baibian.md): the Q network imitates the search bot's
own plays, at the labelled decisions whose candidates are every legal play, with or without
a 45th move input that marks the heuristic's choice (the labels' `why & 2`).

    shuangkou label --config configs/expert/label_baibian_search.yaml --out runs/labels_baibian_search
    python experiments/imitation_pilot.py --labels runs/labels_baibian_search --advice 0 --out runs/pilot_a0
    python experiments/imitation_pilot.py --labels runs/labels_baibian_search --advice 1 --out runs/pilot_a1

The capacity ablation (the same labels and updates, both networks from random weights):

    python experiments/imitation_pilot.py --labels runs/labels_baibian_search --advice 0 --scratch \
        --updates 3000 --out runs/cap_256_128
    python experiments/imitation_pilot.py --labels runs/labels_baibian_search --advice 0 --scratch \
        --updates 3000 --hidden 512,512,256 --out runs/cap_512_512_256

From the shipped baibian network (the new input's weights zero), Adam (3e-4 falling tenfold),
batches of 1,024 decisions: the cross-entropy of softmax(Q / 0.05) over the legal plays
toward the search's play, plus 0.1 times the squared error of Q against the one world's
win. The first 4 shards are held out: `imitation` is how often the network's best play is
the search's there, `heuristic_share` how often it is the heuristic's, `train_imitation`
the same on as many training decisions (a fit the held-out figure does not reach is
over-fitting; a low fit on both, too little capacity or training). Then WP against
`heuristic` on --deals duplicate deals of seed 1: the 44-input network as `dmc:FILE`, the
45-input one as a Python agent that asks the heuristic (on a world sampled from the seat's
view; the heuristic reads no hidden card) for the flag. Writes OUT/log.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import shuangkou as sk
import torch
from shuangkou import _core
from shuangkou.dmc.net import QNetwork
from shuangkou.expert.labels import MANIFEST, read_labels, read_manifest

SHIPPED = Path(sk.__file__).parent / "models" / "dmc_baibian.safetensors"


def decisions(folder: str, advice: int, who: str = "search") -> tuple[dict, dict]:
    """(train, held out): the imitated decisions' tensors, held out = the first 4 shards."""
    man = read_manifest(Path(folder) / MANIFEST)
    a = read_labels(folder).arrays
    counts = np.diff(a["offset"])
    keep = (a["agent"] == list(man["config"]["agents"]).index(who)) & (counts == a["legal"]) & (a["chosen"] >= 0)
    held = a["deal"] < 4 * int(man["config"]["deals_per_shard"])

    def build(mask: np.ndarray) -> dict:
        idx = np.nonzero(mask)[0]
        c = counts[idx]
        rows = np.concatenate([np.arange(a["offset"][i], a["offset"][i + 1]) for i in idx])
        first = np.concatenate([[0], np.cumsum(c)[:-1]])
        heur = (a["why"][rows] & 2) > 0
        mv = np.concatenate([a["move"][rows], heur[:, None].astype(np.float32)], 1) if advice else a["move"][rows]
        t = {"obs": a["obs"][idx], "mv": mv, "first": first, "cnt": c, "played": first + a["chosen"][idx]}
        t |= {"win": a["win"][rows], "heur": heur}
        return {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in t.items()} | {"n": len(idx)}

    return build(keep & ~held), build(keep & held)


def subset(d: dict, n: int) -> dict:
    """`n` of `d`'s decisions drawn without replacement (seed 2), as `decisions` builds them
    (their rows gathered by `batch`)."""
    idx = torch.randperm(d["n"], generator=torch.Generator().manual_seed(2))[: min(n, d["n"])].sort().values
    _, mv, _, played, win, heur, k = batch(d, idx)
    first = torch.cumsum(d["cnt"][idx], 0) - d["cnt"][idx]
    return {"obs": d["obs"][idx], "mv": mv, "first": first, "cnt": d["cnt"][idx], "played": played} | {
        "win": win,
        "heur": heur,
        "n": k,
    }


def batch(d: dict, idx: torch.Tensor) -> tuple:
    """(obs rows, move rows, decision of each row, played row, win, heuristic's, decisions)."""
    c, f = d["cnt"][idx], d["first"][idx]
    start = torch.cumsum(c, 0) - c
    seg = torch.repeat_interleave(torch.arange(len(idx)), c)
    rows = f[seg] + torch.arange(int(c.sum())) - start[seg]
    return (
        d["obs"][idx][seg],
        d["mv"][rows],
        seg,
        start + d["played"][idx] - f,
        d["win"][rows],
        d["heur"][rows],
        len(idx),
    )


def segment_max(x: torch.Tensor, seg: torch.Tensor, n: int) -> torch.Tensor:
    return torch.full((n,), -1e30).scatter_reduce(0, seg, x, "amax")


def loss_of(net: QNetwork, b: tuple, temperature: float = 0.05) -> torch.Tensor:
    obs, mv, seg, played, win, _, n = b
    q = net(obs, mv) / temperature
    top = segment_max(q.detach(), seg, n)
    lse = torch.zeros(n).index_add_(0, seg, torch.exp(q - top[seg])).log() + top
    return (lse - q[played]).mean() + 0.1 * ((q * temperature - win) ** 2).mean()


@torch.no_grad()
def score(net: QNetwork, d: dict) -> tuple[float, float]:
    """(imitation, heuristic_share) of the network's best plays."""
    same = heur = 0
    for lo in range(0, d["n"], 4096):
        obs, mv, seg, played, _, h, n = batch(d, torch.arange(lo, min(d["n"], lo + 4096)))
        q = net(obs, mv)
        best = q >= segment_max(q, seg, n)[seg]
        pick = torch.full((n,), 1 << 40).scatter_reduce(0, seg[best], torch.nonzero(best).squeeze(1), "amin")
        same, heur = same + int((pick == played).sum()), heur + int(h[pick].sum())
    return same / d["n"], heur / d["n"]


def start_net(advice: int, hidden: tuple[int, ...] = (256, 128), scratch: bool = False) -> QNetwork:
    """The shipped network, with a zero-weight 45th move input where `advice`; with
    `scratch`, a network of `hidden` widths from random weights (torch's seed)."""
    if scratch:
        return QNetwork(445, 44 + advice, hidden)
    shipped = QNetwork.from_qnet(_core.QNet.load(str(SHIPPED)))
    net = QNetwork(445, 44 + advice, (256, 128))
    state = shipped.state_dict()
    state["l0_move.weight"] = torch.cat([state["l0_move.weight"], torch.zeros(256, advice)], 1)
    net.load_state_dict(state)
    return net


class AdvisedQ(sk.Agent):
    """The 45-input network as an agent: the flag asked of the heuristic."""

    def __init__(self, net: QNetwork) -> None:
        self.net, self.heuristic, self.rng, self.name = net, _core.Bot("heuristic"), np.random.default_rng(0), "advised"

    @torch.no_grad()
    def act(self, d: sk.Decisions) -> np.ndarray:
        seg = np.concatenate([np.full(len(ids), i) for i, ids in enumerate(d.legal_ids)])
        flags = [ids == self.heuristic.step(d.views[i].sample_world(self.rng)) for i, ids in enumerate(d.legal_ids)]
        mv = np.concatenate([np.concatenate([f, x[:, None]], 1) for f, x in zip(d.legal_features, flags)]).astype(
            np.float32
        )
        q = self.net(torch.from_numpy(d.obs[seg]), torch.from_numpy(mv)).numpy()
        bounds = np.cumsum([0] + [len(ids) for ids in d.legal_ids])
        return np.array([ids[np.argmax(q[lo:hi])] for ids, lo, hi in zip(d.legal_ids, bounds, bounds[1:])], np.int64)


def evaluate(net: QNetwork, advice: int, deals: int, out: Path) -> dict:
    if advice:
        agent = AdvisedQ(net.eval())
    else:
        agent = f"dmc:{out / 'model.safetensors'}"
        net.save(out / "model.safetensors", {"variant": "baibian"})
    p = sk.arena("baibian", agents=[agent, "heuristic"], deals=deals, seed=1)["pairs"][0]
    return {"deals": deals, "seed": 1, "wp": p["wp"], "wp_ci": p["wp_ci"], "adp": p["adp"]}


def widths(text: str) -> tuple[int, ...]:
    """--hidden's value: layer widths, comma-separated, each 1..4096."""
    try:
        hidden = tuple(int(h) for h in text.split(","))
    except ValueError:
        hidden = ()
    if not hidden or not all(1 <= h <= 4096 for h in hidden):
        raise argparse.ArgumentTypeError(f"{text!r} is not layer widths 1..4096, comma-separated (e.g. 512,512,256)")
    return hidden


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--labels", required=True)
    parser.add_argument("--advice", type=int, choices=(0, 1), required=True)
    parser.add_argument("--updates", type=int, default=4000)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--out", required=True)
    parser.add_argument("--hidden", type=widths, default=(256, 128), help="hidden widths, e.g. 512,512,256")
    parser.add_argument("--scratch", action="store_true", help="random weights, not the shipped network's")
    args = parser.parse_args()
    hidden = args.hidden
    if hidden != (256, 128) and not args.scratch:
        parser.error(f"--hidden {','.join(map(str, hidden))}: the shipped network is 256,128 (add --scratch)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    train, held = decisions(args.labels, args.advice)
    fit = subset(train, held["n"])
    net = start_net(args.advice, hidden, args.scratch)
    opt = torch.optim.Adam(net.parameters(), lr=3e-4)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda u: 0.1 ** (u / args.updates))
    gen, t0 = torch.Generator().manual_seed(1), time.time()
    log = {"train": train["n"], "held": held["n"], "hidden": list(hidden), "scratch": args.scratch}
    log["curve"] = [{"update": 0, **dict(zip(("imitation", "heuristic_share"), score(net, held)))}]
    for u in range(1, args.updates + 1):
        loss = loss_of(net, batch(train, torch.randint(0, train["n"], (1024,), generator=gen)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if u % 1000 == 0 or u == args.updates:
            s = score(net, held)
            log["curve"].append({"update": u, "imitation": s[0], "heuristic_share": s[1], "seconds": time.time() - t0})
            log["curve"][-1]["train_imitation"] = score(net, fit)[0]
            print(json.dumps(log["curve"][-1]), flush=True)
    log["against_heuristic"] = evaluate(net, args.advice, args.deals, out)
    print(json.dumps(log["against_heuristic"]))
    (out / "log.json").write_text(json.dumps(log, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
