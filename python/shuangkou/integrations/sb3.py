"""Trained Stable-Baselines3 and sb3-contrib policies as agents of the arena.

    import shuangkou as sk
    agent = sk.policy_agent("runs/ppo/model.zip", variant="baibian")  # or a model / policy in memory
    result = sk.arena("baibian", agents=[agent, "random", "heuristic"], deals=1000)

`policy_agent` wraps a model (MaskablePPO, PPO, A2C, DQN, QRDQN, ...), its policy, or
the ``.zip`` that ``model.save`` wrote, as an `Agent`. A ``.zip`` is read without running
anything in it: the policy is rebuilt from its weights (``torch.load(weights_only=True)``)
and the plain JSON beside them; ``trusted=True`` loads it with Stable-Baselines3's own
load instead, which unpickles the file and so runs code in it (only for files you trust).
The agent takes every agent's place
(`arena`, `selfplay`, the Gymnasium env's ``opponents``). Each call decides a whole
batch in one forward pass, and only legal actions come out: the policy's action
logits (or Q-values) are masked to the legal ids before the argmax (deterministic, the
default) or before sampling (``deterministic=False``, from a numpy generator seeded by
``seed`` again at every run, so a run repeats exactly). For a MaskablePPO model that
is what ``model.predict(obs, action_masks=mask)`` does; an unmasked PPO or DQN plays
its best legal action.

The observation the agent feeds the policy is the one the Gymnasium env
``shuangkou/Shuangkou-v0`` gives its learner: both are the 445 float32s of
``shuangkou.observation_slices`` from the acting seat's view, made by the same C++
encoder, so no conversion is needed (tests/python/test_policies.py checks that they
agree position by position).

Before a run plays any deal, `PolicyAgent.reset` checks the model against the rules
played: the observation must be the env's (Box of shape (445,)), the action space
``Discrete(n)`` of the rules' catalogue (a model trained in baibian, 351 actions, does
not fit qianbian's 12,580), and, where the rules it was trained on are known (``variant=``,
or the Gymnasium env still attached to the model), those rules must be the ones played
(the arena's ``team_formation: fixed`` aside). A mismatch is a ValueError naming it;
the arena reports it as an `AgentError` whose message holds it (``__cause__`` is the
ValueError). ``check(rules)`` runs the same check directly. Docs: docs/policies.md.
"""

from __future__ import annotations

import io
import json
import os
import re
import warnings
import zipfile
from pathlib import Path
from typing import Any, Union

import numpy as np

from .. import _core
from ..agents import MAX_LABEL, Agent, Decisions
from ..envs.actions import rules_of
from ..envs.options import observation_box

__all__ = ["PolicyAgent", "policy_agent"]

ENV_ID = "shuangkou/Shuangkou-v0"
# Parameters a model may have been trained with that the arena overrides: it plays
# team_formation fixed (duplicate deals), the same game otherwise.
IGNORED_PARAMS = ("team_formation",)
INSTALL_HINT = "bash scripts/setup.sh --sb3, or pip install '.[sb3]' in the clone, which pins a CPU torch"

# A model: the path of a saved .zip, a BaseAlgorithm or a BasePolicy (Stable-Baselines3 is optional).
ModelLike = Union[str, os.PathLike, Any]


def _sb3() -> Any:
    """The stable_baselines3 module; ImportError naming what to install otherwise."""
    try:
        import stable_baselines3
    except ImportError as e:
        raise ImportError(f"policy_agent needs Stable-Baselines3 ({INSTALL_HINT}): {e}") from e
    return stable_baselines3


def _device(device: Any) -> Any:
    """`device` as a torch.device (SB3's rule: "auto" and "cuda" fall back to the CPU
    without CUDA); ValueError naming it if it is none."""
    import torch
    from stable_baselines3.common.utils import get_device

    if not isinstance(device, (str, torch.device)):
        raise ValueError(f"device must be a string such as 'cpu' or 'cuda', or a torch.device, got {device!r:.60}")
    try:
        return get_device(device)
    except (RuntimeError, ValueError, TypeError) as e:
        raise ValueError(f"device {str(device)!r:.60}: not a torch device ({_line(e)})") from e


def _line(e: BaseException) -> str:
    """An exception's message on one line, without terminal escapes, cut to 240 characters."""
    text = " ".join(part.strip() for part in re.sub(r"\x1b\[[0-9;]*m", "", str(e)).splitlines() if part.strip())
    return (text or type(e).__name__)[:240]


def _check_algorithm(algorithm: Any) -> None:
    """ValueError unless `algorithm` is None or a Stable-Baselines3 algorithm class."""
    from stable_baselines3.common.base_class import BaseAlgorithm

    if algorithm is not None and not (isinstance(algorithm, type) and issubclass(algorithm, BaseAlgorithm)):
        raise ValueError(f"algorithm must be a Stable-Baselines3 algorithm class (e.g. MaskablePPO), got {algorithm!r}")


def _algorithm_for(policy_class: type, path: Path) -> Any:
    """The algorithm class that loads a zip whose policy is of `policy_class`."""
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.policies import ActorCriticPolicy
    from stable_baselines3.dqn.policies import DQNPolicy

    candidates: list[tuple[type, Any]] = []
    try:
        from sb3_contrib import QRDQN, MaskablePPO
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
        from sb3_contrib.qrdqn.policies import QRDQNPolicy

        candidates += [(MaskableActorCriticPolicy, MaskablePPO), (QRDQNPolicy, QRDQN)]
    except ImportError:
        pass
    candidates += [(ActorCriticPolicy, PPO), (DQNPolicy, DQN)]  # (PPO.load reads A2C's zips too)
    for base, algorithm in candidates:
        if issubclass(policy_class, base):
            return algorithm
    raise ValueError(
        f"{path}: cannot tell which algorithm saved this model (its policy is {policy_class.__name__}); "
        "pass algorithm=, e.g. policy_agent(path, algorithm=sb3_contrib.MaskablePPO)"
    )


def _load_trusted(path: Path, algorithm: Any, device: Any) -> Any:
    """The model saved at `path` by ``model.save``, loaded by `algorithm` (found from the
    zip's policy class when None) with Stable-Baselines3's own load, which unpickles the
    zip's ``data``: it runs code in the file (``trusted=True`` only); ValueError naming the
    file and the problem."""
    from stable_baselines3.common.save_util import load_from_zip_file

    if algorithm is None:
        try:
            data, _, _ = load_from_zip_file(path, device=device)
        except Exception as e:  # noqa: BLE001 - any unreadable file: a zip that SB3 cannot read
            raise ValueError(
                f"{path} is not a model saved by Stable-Baselines3's model.save ({type(e).__name__}: {_line(e)}); "
                "a policy saved by policy.save loads with its class, e.g. MaskableActorCriticPolicy.load(path), "
                "and then goes to policy_agent"
            ) from e
        policy_class = (data or {}).get("policy_class")
        if not isinstance(policy_class, type):
            raise ValueError(f"{path}: the zip names no policy class; pass algorithm=, e.g. sb3_contrib.MaskablePPO")
        algorithm = _algorithm_for(policy_class, path)
    try:
        return algorithm.load(path, device=device)
    except Exception as e:  # noqa: BLE001 - SB3 raises many kinds for a file of another algorithm
        raise ValueError(f"{path}: {algorithm.__name__}.load failed ({type(e).__name__}: {_line(e)})") from e


# ---------------------------------------------------------------------------- loading without trust
# A zip that model.save wrote holds "data" (JSON; its objects that are not JSON are
# cloudpickled inside it, with their readable attributes beside them), "policy.pth" (the
# policy's weights, a torch file) and more (the optimizer's state, ...). By default only
# these two entries are read, each up to its cap (a zip bomb is refused, not inflated):
# "data" as plain JSON (its pickles stay unread) and "policy.pth" by torch.load with
# weights_only=True; the policy is rebuilt from its class's name, its weights' shapes and
# the env's spaces. Nothing in the file runs.
MAX_ENTRY_BYTES = {"data": 16 << 20, "policy.pth": 1 << 30}
MAX_ZIP_ENTRIES = 1024
TRUST_HINT = (
    "trusted=True loads it with Stable-Baselines3's own load, which runs code in the file: only for a file you trust"
)
# The policy classes rebuilt from a file without trust: (module, class name) -> kind.
SAFE_POLICIES = {
    ("stable_baselines3.common.policies", "ActorCriticPolicy"): "logits",
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "logits",
    ("stable_baselines3.dqn.policies", "DQNPolicy"): "q",
    ("sb3_contrib.qrdqn.policies", "QRDQNPolicy"): "quantiles",
}
# Activations (torch.nn classes without weights) a file may name in its policy_kwargs.
SAFE_ACTIVATIONS = frozenset(
    "ReLU Tanh ELU GELU SiLU Mish LeakyReLU SELU CELU Sigmoid Softplus Softsign Hardtanh ReLU6 Hardswish Tanhshrink "
    "Identity".split()
)
FLATTEN = "<class 'stable_baselines3.common.torch_layers.FlattenExtractor'>"
# policy_kwargs with no effect on a loaded discrete policy's scores (training, continuous actions, images).
IGNORED_KWARGS = frozenset(
    "net_arch ortho_init normalize_images share_features_extractor optimizer_class optimizer_kwargs log_std_init "
    "full_std use_expln squash_output".split()
)


def _read_zip(path: Path) -> dict[str, bytes]:
    """The entries "data" and "policy.pth" of the zip at `path`, each read up to its cap
    (MAX_ENTRY_BYTES); ValueError naming the file and the problem."""
    problem, out = "", {}
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            found = {i.filename: i for i in infos if i.filename in MAX_ENTRY_BYTES}
            missing = [name for name in MAX_ENTRY_BYTES if name not in found]
            big = [
                f"{i.filename} ({i.file_size:,} bytes)"
                for i in found.values()
                if i.file_size > MAX_ENTRY_BYTES[i.filename]
            ]
            if len(infos) > MAX_ZIP_ENTRIES:
                problem = f"it has {len(infos):,} entries (a model has a few)"
            elif missing:
                problem = f"it has no {' and no '.join(missing)} entry"
            elif big:
                problem = f"entry {big[0]} is larger than the {MAX_ENTRY_BYTES[big[0].split()[0]]:,} bytes read"
            else:
                for name, info in found.items():
                    with archive.open(info) as entry:
                        out[name] = entry.read(MAX_ENTRY_BYTES[name] + 1)
    except Exception as e:  # noqa: BLE001 - not a zip, cut short, encrypted, unknown compression, bad CRC
        raise ValueError(
            f"{path} is not a model saved by Stable-Baselines3's model.save (not a readable zip: "
            f"{type(e).__name__}: {_line(e)})"
        ) from e
    over = [name for name, raw in out.items() if len(raw) > MAX_ENTRY_BYTES[name]]
    if over:
        problem = f"entry {over[0]} is larger than the {MAX_ENTRY_BYTES[over[0]]:,} bytes read"
    if problem:
        raise ValueError(f"{path} is not a model saved by Stable-Baselines3's model.save: {problem}")
    return out


def _read_metadata(raw: bytes, path: Path) -> dict[str, Any]:
    """The zip's "data" entry as plain JSON (its cloudpickled parts are left unread)."""
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ValueError(f"{path}: its data entry is not JSON ({type(e).__name__}: {_line(e)})") from e
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: its data entry is JSON {type(meta).__name__}, not the object model.save writes")
    return meta


def _read_weights(raw: bytes, path: Path) -> dict[str, Any]:
    """The zip's "policy.pth" by torch.load with weights_only=True: a dict of tensors."""
    import torch

    try:
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - torch's refusal of a pickle, or a file that is no torch file
        found = re.search(r"Unsupported global: GLOBAL ([\w.]{1,80})", str(e))
        why = f"it pickles {found.group(1)}, which weights_only refuses" if found else f"{type(e).__name__}: {_line(e)}"
        raise ValueError(f"{path}: its policy.pth is not a weights-only torch file ({why}); {TRUST_HINT}") from e
    if not (isinstance(state, dict) and all(isinstance(k, str) and torch.is_tensor(v) for k, v in state.items())):
        raise ValueError(f"{path}: its policy.pth is not a state dict (names to tensors) but {type(state).__name__}")
    return state


def _readable(entry: Any) -> dict[str, Any]:
    """The readable part of an entry of "data": a plain JSON object as it is, or the
    attributes that model.save wrote beside a cloudpickled object (never the pickle)."""
    if not isinstance(entry, dict):
        return {}
    return {k: v for k, v in entry.items() if not k.startswith(":")}


def _policy_class(meta: dict[str, Any], path: Path) -> tuple[str, str]:
    """(module, class name) of the policy the zip's data names, one of SAFE_POLICIES."""
    entry = meta.get("policy_class")
    readable = _readable(entry)
    module = readable.get("__module__") if isinstance(readable.get("__module__"), str) else None
    init = readable.get("__init__")
    match = re.fullmatch(r"<function (\w+)\.__init__ at 0x[0-9a-fA-F]+>", init) if isinstance(init, str) else None
    key = (module, match.group(1) if match else None)
    if key not in SAFE_POLICIES:
        known = ", ".join(name for _, name in SAFE_POLICIES)
        what = f"{key[1] or 'a class'} of {module}" if isinstance(module, str) else "no class it can read"
        raise ValueError(
            f"{path}: its policy class is {what:.120}, not one rebuilt from weights alone ({known}); {TRUST_HINT}"
        )
    return key  # type: ignore[return-value]


def _policy_kwargs(meta: dict[str, Any], kind: str, path: Path) -> dict[str, Any]:
    """The policy's keyword arguments that shape its scores, from the readable part of the
    data's policy_kwargs: activation_fn (a torch.nn activation) and n_quantiles (QRDQN)."""
    import torch

    kwargs = _readable(meta.get("policy_kwargs") or {})
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key == "activation_fn":
            m = re.fullmatch(r"<class 'torch\.nn\.modules\.(?:activation|linear)\.(\w+)'>", str(value))
            if not (m and m.group(1) in SAFE_ACTIVATIONS):
                raise ValueError(
                    f"{path}: its activation_fn {str(value):.80} is not a torch.nn activation; {TRUST_HINT}"
                )
            out[key] = getattr(torch.nn, m.group(1))
        elif key == "n_quantiles" and kind == "quantiles":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{path}: its n_quantiles {value!r:.40} is not a positive integer")
            out[key] = value
        elif key == "features_extractor_class" and value == FLATTEN or key == "features_extractor_kwargs" and not value:
            continue
        elif key == "use_sde" and value is False or key in IGNORED_KWARGS:
            continue
        else:
            raise ValueError(
                f"{path}: its policy_kwargs {key}={str(value):.80} is not rebuilt from weights alone (only the default "
                f"flatten features extractor and an activation_fn are); {TRUST_HINT}"
            )
    return out


def _layers(state: dict[str, Any], prefix: str, path: Path) -> list[tuple[int, int]]:
    """(out, in) of the Linear layers ``prefix0``, ``prefix2``, ... of an MLP (a Sequential
    of Linear layers with an activation between them) in the weights `state`."""
    found = sorted(int(m.group(1)) for k in state if (m := re.fullmatch(re.escape(prefix) + r"(\d+)\.weight", k)))
    if found != list(range(0, 2 * len(found), 2)):
        raise ValueError(f"{path}: the layers {prefix}* of its policy.pth are not an MLP of Linear layers ({found})")
    shapes = [tuple(state[f"{prefix}{i}.weight"].shape) for i in found]
    if any(len(s) != 2 for s in shapes):
        raise ValueError(f"{path}: the layers {prefix}* of its policy.pth are not Linear layers ({shapes})")
    return shapes  # type: ignore[return-value]


def _architecture(state: dict[str, Any], kind: str, kwargs: dict[str, Any], path: Path) -> tuple[dict, int, int]:
    """(net_arch keyword, observation size, number of actions) read from the weights' shapes."""
    if kind == "logits":
        pi, vf = _layers(state, "mlp_extractor.policy_net.", path), _layers(state, "mlp_extractor.value_net.", path)
        head = state.get("action_net.weight")
        if head is None or head.dim() != 2:
            raise ValueError(f"{path}: its policy.pth has no action_net.weight matrix (not an actor-critic policy)")
        arch = {"net_arch": {"pi": [o for o, _ in pi], "vf": [o for o, _ in vf]}}
        return arch, (pi[0][1] if pi else int(head.shape[1])), int(head.shape[0])
    prefix = "q_net.q_net." if kind == "q" else "quantile_net.quantile_net."
    q = _layers(state, prefix, path)
    if not q:
        raise ValueError(f"{path}: its policy.pth has no {prefix}0.weight (not a {kind} policy)")
    n, per = q[-1][0], kwargs.get("n_quantiles", 200) if kind == "quantiles" else 1
    if n % per:
        raise ValueError(f"{path}: its output layer has {n} units, not a multiple of n_quantiles {per}")
    return {"net_arch": [o for o, _ in q[:-1]]}, q[0][1], n // per


def _check_spaces(meta: dict[str, Any], size: int, n: int, path: Path) -> None:
    """The data's spaces (their readable parts), and the weights' input size, against the
    env's: Box of shape (observation_size,), Discrete(n)."""
    obs, act, want = meta.get("observation_space"), meta.get("action_space"), _core.observation_size()
    obs_type = str(obs.get(":type:", "")) if isinstance(obs, dict) else ""
    act_type = str(act.get(":type:", "")) if isinstance(act, dict) else ""
    shape = _readable(obs).get("_shape")
    if size != want or (obs_type and ".Box'" not in obs_type) or (shape is not None and shape != [want]):
        raise ValueError(
            f"{path}: the model observes {obs_type or 'a space':.80} of shape {str(shape or (size,)):.40}, but an "
            f"agent is given the observation of the Gymnasium env {ENV_ID}, Box of shape ({want},)"
        )
    if act_type and ".Discrete'" not in act_type:
        raise ValueError(
            f"{path}: the model's action space is {act_type:.80}; an agent chooses Discrete(num_actions) ids"
        )
    said, start = _readable(act).get("n"), _readable(act).get("start", 0)
    if str(start) != "0":
        raise ValueError(f"{path}: its action space starts at {str(start):.20}; an agent chooses ids from 0")
    if said is not None and str(said) != str(n):
        raise ValueError(f"{path}: its data says Discrete({str(said):.20}), its weights give {n} actions")


def _load_weights_only(path: Path, algorithm: Any, device: Any) -> Any:
    """The policy saved at `path` by ``model.save``, rebuilt without running anything in
    the file: its class (one of SAFE_POLICIES) and activation from the zip's JSON, its
    layer sizes from the weights, the spaces from the env's; ValueError naming the file
    and the problem (TRUST_HINT where only the trusted load could read it)."""
    import importlib

    from gymnasium import spaces

    entries = _read_zip(path)
    meta = _read_metadata(entries["data"], path)
    module, name = _policy_class(meta, path)
    kind = SAFE_POLICIES[(module, name)]
    try:
        policy_class = getattr(importlib.import_module(module), name)
    except ImportError as e:
        raise ImportError(f"{path}: its policy is {name}, from {module} ({INSTALL_HINT}): {e}") from e
    fits = getattr(algorithm, "policy_aliases", {}).get("MlpPolicy")
    if algorithm is not None and not (isinstance(fits, type) and issubclass(policy_class, fits)):
        raise ValueError(
            f"{path}: its policy is {name}, not {algorithm.__name__}'s ({getattr(fits, '__name__', fits)})"
        )
    kwargs = _policy_kwargs(meta, kind, path)
    state = _read_weights(entries["policy.pth"], path)
    arch, size, n = _architecture(state, kind, kwargs, path)
    _check_spaces(meta, size, n, path)
    if kind == "logits":
        kwargs["ortho_init"] = False  # (the weights are loaded over it)
    policy = policy_class(observation_box(size), spaces.Discrete(n), lambda _: 0.0, **arch, **kwargs)
    try:
        policy.load_state_dict(state, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{path}: its policy.pth does not fit a {name} of {arch} ({_line(e)})") from e
    try:
        return policy.to(device)
    except (RuntimeError, AssertionError) as e:
        raise ValueError(f"device {str(device)!r}: cannot hold the model ({_line(e)})") from e


def _load(path: Path, algorithm: Any, device: Any, trusted: bool) -> Any:
    """The model (``trusted``) or policy saved at `path` by ``model.save``; ValueError
    naming the file and the problem."""
    if not path.is_file():
        raise ValueError(f"policy_agent: no model file {path}" + ("" if path.suffix else " (model.save adds .zip)"))
    if trusted:
        return _load_trusted(path, algorithm, device)
    return _load_weights_only(path, algorithm, device)


def _env_rules(model: Any) -> _core.Rules | None:
    """The rules of the Gymnasium env still attached to a model (None if there is none,
    or it is not shuangkou's)."""
    env = getattr(model, "env", None)
    if env is None:
        return None
    try:
        found = env.get_attr("rules", indices=[0])[0]
    except Exception:  # noqa: BLE001 - another env, or one that cannot be asked
        return None
    return found if isinstance(found, _core.Rules) else None


def _sizes_hint(n: int) -> str:
    """Which presets have an action catalogue of `n` ids, for an error message."""
    names = [p for p in _core.preset_names() if rules_of(p).num_actions == n]
    if not names:
        return f"no preset has {n:,} actions"
    return f"Discrete({n}) is the action space of {' and '.join(names)}"


def _short(rules: _core.Rules) -> str:
    """The rules' name without the parameters the arena sets itself ("baibian", not
    "baibian team_formation=fixed")."""
    kept = [w for w in rules.name.split() if w.partition("=")[0] not in IGNORED_PARAMS]
    return " ".join(kept) or rules.name


def _same_catalogue(a: _core.Rules, b: _core.Rules) -> bool:
    """Whether action id i means the same move under both rule sets, for every i."""
    ca, cb = a.catalogue, b.catalogue
    return len(ca) == len(cb) and all(ca.pattern(i) == cb.pattern(i) for i in range(len(ca)))


class PolicyAgent(Agent):
    """A Stable-Baselines3 / sb3-contrib policy playing as an arena agent: build it with
    `policy_agent`.

    Attributes: ``policy`` (the SB3 policy, a torch module), ``model`` (the algorithm,
    or None for a bare policy), ``trained_rules`` (the rules it was trained on, or None
    when unknown), ``deterministic``, ``seed``, ``strict``, ``name`` (its label in
    reports)."""

    def __init__(
        self,
        policy: Any,
        model: Any = None,
        *,
        trained_rules: _core.Rules | None = None,
        deterministic: bool = True,
        seed: int | None = 0,
        strict: bool = True,
        name: str = "policy",
    ) -> None:
        from gymnasium import spaces

        self.policy, self.model, self.trained_rules = policy, model, trained_rules
        self.deterministic, self.seed, self.strict, self.name = deterministic, seed, strict, name
        obs_space, act_space = policy.observation_space, policy.action_space
        size = _core.observation_size()
        if not (isinstance(obs_space, spaces.Box) and tuple(obs_space.shape) == (size,)):
            raise ValueError(
                f"{name}: the model observes {obs_space}, but an agent is given the observation of the Gymnasium env "
                f"{ENV_ID}, Box of shape ({size},) (docs/observation.md): train on that env's observations "
                "(a wrapper that changes them, such as one putting the mask in the observation, does not fit)"
            )
        if not isinstance(act_space, spaces.Discrete) or int(act_space.start) != 0:
            raise ValueError(
                f"{name}: the model's action space is {act_space}; an agent chooses ids of the rules' action "
                "catalogue, Discrete(num_actions) from 0"
            )
        self.num_actions = int(act_space.n)
        self._kind = self._policy_kind()
        if self._kind != "logits" and not deterministic:
            raise ValueError(
                f"{name}: {type(policy).__name__} gives Q-values, not a distribution to sample from: "
                "play it with deterministic=True (its best legal action)"
            )
        if trained_rules is not None:
            self._check_size(trained_rules, " (the rules it was trained on)")
        self._rng = np.random.default_rng(seed)

    def _policy_kind(self) -> str:
        """How actions are scored: "logits" (actor-critic policies), "q" (DQN), "quantiles" (QRDQN)."""
        p = self.policy
        if "Recurrent" in type(p).__name__:
            raise ValueError(
                f"{self.name}: {type(p).__name__} is recurrent; policy_agent plays policies without memory "
                "(MaskablePPO, PPO, A2C, DQN, QRDQN)"
            )
        if hasattr(p, "q_net") and callable(p.q_net):
            return "q"
        if hasattr(p, "quantile_net") and callable(p.quantile_net):
            return "quantiles"
        if callable(getattr(p, "get_distribution", None)):
            return "logits"
        raise ValueError(
            f"{self.name}: {type(p).__name__} has no action distribution (get_distribution) and no Q-network "
            "(q_net, quantile_net): not a policy policy_agent can play"
        )

    # ------------------------------------------------------------------ checks
    def _check_size(self, rules: _core.Rules, how: str) -> None:
        n = rules.num_actions
        if self.num_actions != n:
            raise ValueError(
                f"{self.name}: the model's action space is Discrete({self.num_actions}), {_short(rules)}{how} has "
                f"{n:,} actions: the model is for other rules ({_sizes_hint(self.num_actions)})"
            )

    def check(self, rules: Any) -> None:
        """ValueError naming the mismatch if the model cannot play `rules` (a preset, a
        YAML file or a `Rules`): another action catalogue, or (``strict``) other rules than
        it was trained on where those are known. Changes nothing."""
        rules = rules if isinstance(rules, _core.Rules) else rules_of(rules)
        self._check_size(rules, "")
        trained = self.trained_rules
        if trained is None:
            self._warn_unknown(rules)
            return
        diffs = ", ".join(
            f"{k} {v} -> {rules.params.get(k)}"
            for k, v in trained.params.items()
            if k not in IGNORED_PARAMS and rules.params.get(k) != v
        )
        if not diffs:
            return
        what = f"{self.name} was trained on {_short(trained)}, not {_short(rules)}"
        if not _same_catalogue(trained, rules):
            raise ValueError(f"{what}: its action ids mean other moves there ({diffs})")
        if self.strict:
            raise ValueError(
                f"{what} (strict=False plays it there anyway: the observation and the action catalogue are the "
                f"same): {diffs}"
            )

    def _warn_unknown(self, rules: _core.Rules) -> None:
        """Once an agent: a warning (stderr) that the rules it plays cannot be checked."""
        if getattr(self, "_warned", False):
            return
        self._warned = True
        warnings.warn(
            f"{self.name}: the rules the model was trained on are unknown, so playing {_short(rules)} is not "
            "checked; give policy_agent(..., variant=...) to have them checked (docs/policies.md)",
            UnknownRulesWarning,
            stacklevel=3,
        )

    # ------------------------------------------------------------------ the Agent interface
    def reset(self, rules: _core.Rules) -> None:
        """Checks the model against the rules about to be played (`check`), and seeds the
        sampling generator again (``deterministic=False``), so every run repeats."""
        self.check(rules)
        self._rng = np.random.default_rng(self.seed)

    def act(self, decisions: Decisions) -> np.ndarray:
        return self.choose(decisions.obs, decisions.mask)

    # ------------------------------------------------------------------ deciding
    def scores(self, obs: np.ndarray) -> np.ndarray:
        """The policy's score of every action for each row of `obs` (float32 [B, 445]):
        action logits, or Q-values for DQN and QRDQN; float32 [B, num_actions]."""
        import torch

        p = self.policy
        p.set_training_mode(False)
        with torch.no_grad():
            obs_t, _ = p.obs_to_tensor(np.asarray(obs, dtype=np.float32))
            if self._kind == "q":
                out = p.q_net(obs_t)
            elif self._kind == "quantiles":
                out = p.quantile_net(obs_t).mean(dim=1)
            else:
                out = p.get_distribution(obs_t).distribution.logits
        return out.cpu().numpy().astype(np.float32, copy=False)

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action id per row (int64 [B]): `obs` float32 [B, 445], `mask` [B,
        num_actions] (nonzero where legal; every row needs a legal action). The best legal
        action by the policy's scores, or (``deterministic=False``) one drawn from the
        policy's distribution restricted to the legal actions."""
        obs, legal = np.asarray(obs), np.asarray(mask) != 0
        if obs.ndim != 2 or legal.shape != (len(obs), self.num_actions):
            raise ValueError(
                f"{self.name}: expected obs [B, {_core.observation_size()}] and mask [B, {self.num_actions}], "
                f"got {obs.shape} and {legal.shape}"
            )
        if not legal.any(axis=1).all():
            raise ValueError(f"{self.name}: row {int(np.flatnonzero(~legal.any(axis=1))[0])} has no legal action")
        scores = np.where(legal, self.scores(obs).astype(np.float64), -np.inf)
        if self.deterministic:
            return scores.argmax(axis=1).astype(np.int64)
        probs = np.exp(scores - scores.max(axis=1, keepdims=True))  # 0 where illegal
        cdf = np.cumsum(probs, axis=1)
        u = (1.0 - self._rng.random(len(obs))) * cdf[:, -1]  # in (0, total]: never lands on an illegal id
        chosen = (cdf < u[:, None]).sum(axis=1)
        return np.minimum(chosen, self.num_actions - 1).astype(np.int64)

    def __repr__(self) -> str:
        trained = f", trained on {self.trained_rules.name}" if self.trained_rules is not None else ""
        return f"PolicyAgent({self.name!r}, {type(self.policy).__name__}{trained}, deterministic={self.deterministic})"


def _check_options(deterministic: Any, strict: Any, trusted: Any, seed: Any, name: Any) -> None:
    """ValueError naming the first of policy_agent's plain options that is out of range."""
    if not all(isinstance(b, (bool, np.bool_)) for b in (deterministic, strict, trusted)):
        raise ValueError(
            f"deterministic, strict and trusted must be True or False, got {deterministic!r}, {strict!r}, {trusted!r}"
        )
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}")
    if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > MAX_LABEL):
        raise ValueError(f"name must be a non-empty string of at most {MAX_LABEL} characters, got {name!r:.60}")


def _policy_and_owner(model: Any) -> tuple[Any, Any]:
    """(policy, algorithm or None) of a Stable-Baselines3 model or policy; ValueError otherwise."""
    from stable_baselines3.common.base_class import BaseAlgorithm
    from stable_baselines3.common.policies import BasePolicy

    if isinstance(model, BaseAlgorithm):
        return model.policy, model
    if isinstance(model, BasePolicy):
        return model, None
    raise ValueError(
        "policy_agent takes a Stable-Baselines3 model (e.g. MaskablePPO), its policy, or the path of its saved "
        f".zip; got {type(model).__name__}"
    )


class UnknownRulesWarning(UserWarning):
    """A policy whose training rules are unknown plays unchecked (give variant=)."""


def policy_agent(
    model: ModelLike,
    *,
    variant: Any = None,
    deterministic: bool = True,
    seed: int | None = 0,
    strict: bool = True,
    algorithm: Any = None,
    device: Any = "cpu",
    trusted: bool = False,
    name: str | None = None,
) -> PolicyAgent:
    """A Stable-Baselines3 / sb3-contrib policy as an agent for `shuangkou.arena`,
    `shuangkou.selfplay` and the Gymnasium env's ``opponents``; only legal actions come out.

    model: a model (``MaskablePPO``, ``PPO``, ``A2C``, ``DQN``, ``QRDQN``, ... any
    ``BaseAlgorithm``), its policy (``model.policy``), or the path of the ``.zip`` that
    ``model.save`` wrote, put on `device`; trained on the observations (Box (445,)) and
    actions (``Discrete(num_actions)``) of the Gymnasium env ``shuangkou/Shuangkou-v0``.
    trusted: False (default): nothing in the file runs. Only its weights (``policy.pth``, by
    ``torch.load(weights_only=True)``) and the plain JSON of its ``data`` are read, each up
    to a size cap, and the MLP policy of MaskablePPO, PPO, A2C, DQN or QRDQN is rebuilt from
    them and the env's spaces (``agent.model`` is None); anything else (a custom policy
    class or features extractor, ...) is refused. True: Stable-Baselines3's own load (by
    `algorithm`, e.g. ``sb3_contrib.MaskablePPO``, or the one the zip's policy class
    names), which unpickles ``data``: it RUNS CODE IN THE FILE, only for files you trust.
    variant: the rules it was trained on (a preset, a YAML file or a `Rules`); when given,
    or when the model still holds its Gymnasium env, a run of other rules is refused
    (`strict`; ``strict=False`` allows rules of the same action catalogue).
    deterministic: the best legal action (default); False draws from the policy's
    distribution over the legal actions with a generator seeded by `seed` at each run
    (not for Q-value policies). name: the label in reports (default: the file's stem, or
    the model's class name).

    Raises ValueError naming the problem (other spaces, rules it does not fit, a file not
    saved by model.save or not rebuilt without trust, an unknown device, a recurrent
    policy); ImportError without Stable-Baselines3.
    """
    _check_options(deterministic, strict, trusted, seed, name)
    trained = None if variant is None else rules_of(variant)  # ValueError for a bad variant
    _sb3()
    on = _device(device)
    _check_algorithm(algorithm)
    label = None
    if isinstance(model, (str, os.PathLike)):
        path = Path(model)
        model = _load(path, algorithm, on, bool(trusted))
        label = path.stem[:MAX_LABEL] or "policy"
    policy, owner = _policy_and_owner(model)
    if trained is None and owner is not None:
        trained = _env_rules(owner)
    return PolicyAgent(
        policy,
        owner,
        trained_rules=trained,
        deterministic=bool(deterministic),
        seed=None if seed is None else int(seed),
        strict=bool(strict),
        name=name or label or type(owner if owner is not None else policy).__name__,
    )
