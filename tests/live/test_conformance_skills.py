"""The skills extension's official conformance scenarios, as tests.

``io.modelcontextprotocol/skills`` (SEP-2640) is checked by conformance
0.2.0-alpha.12, installed beside the pinned suite under the npm alias
``conformance-alpha12`` (tests/node/package.json): the frozen requirement
runs (``test_conformance.py``) stay on the pinned release. Each
``sep-2640-skills-*`` scenario runs against the fixture server at
``/conformance/mcp``, whose ``release-notes`` skill lives in
``testproject/conformance/skills/``, served both by the ASGI fast path and
by the plain view. A scenario passes only when the
harness exits 0 and every check it records is a success: its SHOULD-level
checks report warnings, which would not fail the exit code.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

NODE_DIR = Path(__file__).resolve().parent.parent / "node"
HARNESS = NODE_DIR / "node_modules" / "conformance-alpha12" / "dist" / "index.js"
SCENARIOS = ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"]


def _checks(results: Path) -> list[dict[str, Any]]:
    return [check for path in sorted(results.rglob("checks.json")) for check in json.loads(path.read_text())]


@pytest.mark.parametrize("server", ["live_server_url", "plain_view_server_url"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_official_skills_extension_scenario_passes(
    scenario: str, server: str, node_bin: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    # The fast path (McpASGIApp) and the plain view under Django's handler.
    live_server_url = request.getfixturevalue(server)
    if not HARNESS.exists():
        pytest.fail("tests/node lacks conformance-alpha12: run `npm ci` there (bash .ci/test does)")
    env = {**os.environ, "PATH": f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
    results = tmp_path / "results"
    result = subprocess.run(
        [
            str(node_bin / "node"),
            str(HARNESS),
            "server",
            "--url",
            f"{live_server_url}/conformance/mcp",
            "--scenario",
            scenario,
            "-o",
            str(results),
        ],
        cwd=NODE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"{scenario} failed:\n{result.stdout[-3000:]}\n{result.stderr[-2000:]}"
    checks = _checks(results)
    sep_2640 = [check for check in checks if check["id"].startswith("sep-2640-")]
    assert sep_2640, f"{scenario} recorded no sep-2640 checks"
    not_green = [(c["id"], c["status"], c.get("errorMessage")) for c in checks if c["status"] != "SUCCESS"]
    assert not_green == [], f"{scenario}: checks that did not succeed: {not_green}"
