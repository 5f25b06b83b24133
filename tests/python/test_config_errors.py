"""Variant config files that are no file (shuangkou.config): a device, a FIFO or a
folder given as the variant is refused at once with a ValueError naming the path.
(The variant config reader's other refusals are in test_config.py.)"""

from __future__ import annotations

import os

from snippet_util import snippet_outcome


def test_rules_of_device_fifo_or_folder_raise_value_error_quickly(tmp_path):
    """11: /dev/zero, a FIFO and a folder as the variant: ValueError naming the
    path, at once (never blocking on the FIFO or reading /dev/zero forever)."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    for path in ["/dev/zero", str(fifo), str(folder), str(tmp_path) + "/"]:
        out = snippet_outcome(
            f"""
            import shuangkou as sk
            _report(lambda: sk.Rules({path!r}))
            """,
            timeout=20,
        )
        assert out["type"] == "ValueError", (path, out)
        assert path.rstrip("/") in out["message"], (path, out)
