"""The official MCP conformance suite, both protocol revisions, as tests.

Each leg runs ``@modelcontextprotocol/conformance`` (pinned in
tests/node/package.json, Node 22 from npm) with ``--requirements`` against
the fixture server at ``/conformance/mcp``. A leg passes only when the
harness exits 0: every required scenario green, no expected-failures file.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

NODE_DIR = Path(__file__).resolve().parent.parent / "node"


@pytest.mark.parametrize("revision", ["2026-07-28", "2025-11-25"])
def test_official_conformance_suite_passes(
    revision: str, live_server_url: str, node_bin: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "PATH": f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(
        [
            str(node_bin / "conformance"),
            "server",
            "--url",
            f"{live_server_url}/conformance/mcp",
            "--requirements",
            revision,
            "-o",
            str(tmp_path / "results"),
        ],
        cwd=NODE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    summary = "\n".join(line for line in result.stdout.splitlines() if line.startswith(("✗", "Total")))
    assert result.returncode == 0, f"conformance {revision} failed:\n{summary}\n{result.stderr[-2000:]}"
