"""Connecting to Ray, for the jobs that can run on a cluster (`selfplay`, `arena`, `train`).

Ray is optional (``bash scripts/setup.sh --ray``, or ``pip install '.[ray]' in the clone``); only the
code paths given ``ray=...`` import it, through this module. What ``ray=`` means, in every
job alike:

- ``True`` (the CLI's ``--ray`` without an address): the Ray this process is already
  connected to, or else a new local one, started on the loopback address 127.0.0.1 so
  that nothing listens on the machine's other addresses;
- ``"auto"``: the cluster started on this machine with ``ray start --head`` (Ray's own
  ``auto``);
- ``"HOST:PORT"``: the cluster whose head listens there (``ray start --head`` prints it).

A cluster that cannot be reached is refused at once with a one-line ConnectionError
naming the address (Ray itself would retry for minutes).
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

from ..errors import clip

LOOPBACK = "127.0.0.1"


# Ray then takes the loopback address as this machine's address, for the head it starts
# (the GCS address) and for every process it spawns (they inherit the environment). Read by
# ray when it is imported, and looked up again at each call (see `loopback_only`).
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def loopback_only() -> None:
    """Makes this process (and the Ray processes it starts) use 127.0.0.1 as the machine's
    address: Ray 2.x otherwise takes the machine's network address even for a local
    cluster. Call it before starting a local Ray (`start_local` and ``connect(True)`` do)."""
    os.environ[LOOPBACK_ENV] = "0"
    if "ray" in sys.modules:  # imported already: its constant was read at import
        from ray._private import ray_constants

        ray_constants.ENABLE_RAY_CLUSTER = False


def start_local(num_cpus: int | None = None) -> Any:
    """Starts a local Ray on the loopback address only (every node at 127.0.0.1) and
    returns the ray module; num_cpus: the CPUs it offers (None: every core)."""
    loopback_only()
    ray = import_ray()
    ray.init(
        num_cpus=num_cpus,
        _node_ip_address=LOOPBACK,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    return ray


def import_ray() -> Any:
    """The ray module; ImportError saying how to install it otherwise."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(
            f"this needs Ray: bash scripts/setup.sh --ray (or pip install '.[ray]' in the clone); importing ray failed: {e}"
        ) from None
    return ray


def check_ray_arg(value: Any) -> bool | str:
    """`value` as a ``ray=`` argument: False/None (no Ray), True, "auto" or "HOST:PORT";
    ValueError naming it otherwise. Checks the form only; nothing is imported."""
    if value is None or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, str) and value.strip():
        text = value.strip()
        if text == "auto":
            return text
        if "://" in text:  # ray://HOST:PORT (Ray Client) would pass the HOST:PORT form and go to DNS
            raise ValueError(
                f"ray: {clip(repr(text))} is a URL; Ray Client addresses (ray://...) are not supported: run on a "
                "machine of the cluster and give its head's 'HOST:PORT', 'auto' or True"
            )
        host, colon, port = text.rpartition(":")
        if colon and host and port.isdigit() and 0 < int(port) < 65536:
            return text
    raise ValueError(
        f"ray: True (this process's Ray, or a new local one), 'auto' (the cluster of this machine) "
        f"or 'HOST:PORT' (a cluster's head), got {value!r}"
    )


def connect(value: bool | str) -> Any:
    """Connects this process to the Ray that `value` names (see the module's doc) and
    returns the ray module. Already connected: kept as it is for True, refused with
    ValueError when an address names another cluster."""
    value = check_ray_arg(value)
    if not value:
        raise ValueError("connect: no Ray asked for (ray=False)")
    ray = import_ray()
    if ray.is_initialized():
        current = ray.get_runtime_context().gcs_address
        if value not in (True, "auto") and not _same_address(value, current):
            raise ValueError(
                f"ray: this process is connected to the Ray cluster at {current}, not {value} (ray.shutdown() first)"
            )
        return ray
    if value is True:
        return start_local()
    if value != "auto":
        host, _, port = value.rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=5):
                pass
        except OSError as e:
            raise ConnectionError(f"cannot reach a Ray cluster at {value}: {e.strerror or e}") from None
    try:
        ray.init(
            address=value,
            _node_ip_address=LOOPBACK if _is_loopback(value) else None,
            log_to_driver=False,
            configure_logging=False,
        )
    except ConnectionError as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ConnectionError(f"cannot reach a Ray cluster at {value}: {first}") from None
    return ray


def _same_address(a: str, b: str) -> bool:
    """Whether HOST:PORT `a` and `b` name one head (localhost and 127.x are one host)."""
    (ha, _, pa), (hb, _, pb) = a.rpartition(":"), b.rpartition(":")
    return pa == pb and (ha == hb or (_is_loopback(a) and _is_loopback(b)))


def _is_loopback(address: str) -> bool:
    host = address.rpartition(":")[0]
    return host in ("127.0.0.1", "localhost") or host.startswith("127.")


def node_cpus() -> dict[str, float]:
    """The CPUs of each alive node of the connected cluster, by node id."""
    ray = import_ray()
    return {n["NodeID"]: n["Resources"].get("CPU", 0.0) for n in ray.nodes() if n["Alive"]}


def worker_setup(threads: int) -> None:
    """Inside a Ray task: OpenMP and the math libraries use `threads` threads (the CPUs
    the task declared), so tasks sharing a node do not oversubscribe it."""
    for key in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[key] = str(threads)
