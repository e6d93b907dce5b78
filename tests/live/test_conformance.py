"""The official MCP conformance suite, both protocol revisions, as tests.

Each leg runs ``@modelcontextprotocol/conformance`` (pinned in
tests/node/package.json, Node 22 from npm) with ``--requirements`` against
the fixture server at ``/conformance/mcp``. A leg passes only when the
harness exits 0: every required scenario green, no expected-failures file.

The tasks extension (``io.modelcontextprotocol/tasks``) is no revision's
requirement: its ``tasks-*`` scenarios run one by one, twice: against the
same live server, whose tasks django-tasks-db stores and a ``db_worker``
process runs (``tests/conftest.py``), and against the demo as ``.ci/demo``
starts it (no ``TASKS`` setting, no worker process: tasks run in the
server's own thread pool). They pass with
``conformance-tasks-expected-failures.yaml``, which lists only the generic
``wire-schema-valid`` check where a task is created; each such violation
must be a ``tools/call`` answered with a ``CreateTaskResult``, which the
core schema cannot describe.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import LIVE_SERVERS

NODE_DIR = Path(__file__).resolve().parent.parent / "node"
TASKS_EXPECTED_FAILURES = Path(__file__).resolve().parent / "conformance-tasks-expected-failures.yaml"
TASKS_SCENARIOS = [
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
]


@pytest.fixture(params=LIVE_SERVERS)
def served_url(request: pytest.FixtureRequest) -> str:
    """Return the base URL of the live server, served each of the four ways.

    Resolved in the test's setup, so a server's start (migrate, boot) is
    reported as setup time, never as the time the suite itself takes.
    """
    return str(request.getfixturevalue(request.param))


@pytest.mark.parametrize("revision", ["2026-07-28", "2025-11-25"])
def test_official_conformance_suite_passes(
    revision: str, served_url: str, node_bin: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "PATH": f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(
        [
            str(node_bin / "conformance"),
            "server",
            "--url",
            f"{served_url}/conformance/mcp",
            "--requirements",
            revision,
            "-o",
            str(tmp_path / "results"),
            # The server advertises the tasks extension, so the 2026-07-28
            # run includes its scenarios: the same baseline applies.
            *(["--expected-failures", str(TASKS_EXPECTED_FAILURES)] if revision == "2026-07-28" else []),
        ],
        cwd=NODE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    summary = "\n".join(line for line in result.stdout.splitlines() if line.startswith(("✗", "Total")))
    assert result.returncode == 0, f"conformance {revision} failed:\n{summary}\n{result.stderr[-2000:]}"
    # The baseline masks wire-schema-valid in the tasks-* scenarios: only a
    # CreateTaskResult may stand behind it, on every way to serve.
    _assert_only_create_task_results_violate(_checks(tmp_path / "results"), revision)


def _checks(results: Path) -> list[dict[str, Any]]:
    return [check for path in sorted(results.rglob("checks.json")) for check in json.loads(path.read_text())]


def _is_create_task_result(violation: dict[str, Any]) -> bool:
    """Return True for the one violation the baseline expects: a CreateTaskResult."""
    message = violation.get("message") or {}
    result = message.get("result") if isinstance(message, dict) else None
    return (
        violation.get("origin") == "implementation"
        and violation.get("context") == "response to 'tools/call'"
        and isinstance(result, dict)
        and result.get("resultType") == "task"
        and violation.get("errors")
        == ["CallToolResult: must have required property 'content' (result of 'tools/call')"]
    )


@pytest.mark.parametrize("scenario", TASKS_SCENARIOS)
def test_official_tasks_extension_scenario_passes(
    scenario: str, live_server_url: str, node_bin: Path, tmp_path: Path
) -> None:
    from tests.conftest import TASKS_DB

    if not TASKS_DB:
        pytest.skip(
            "django-tasks-db is not installed (the tasks extra): no worker runs the live server's tasks"
        )
    _passes_tasks_scenario(scenario, live_server_url, node_bin, tmp_path)


@pytest.mark.parametrize("scenario", TASKS_SCENARIOS)
def test_official_tasks_extension_scenario_passes_on_the_demo_with_no_worker(
    scenario: str, demo_server_url: str, node_bin: Path, tmp_path: Path
) -> None:
    _passes_tasks_scenario(scenario, demo_server_url, node_bin, tmp_path)


def _passes_tasks_scenario(scenario: str, base_url: str, node_bin: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
    results = tmp_path / "results"
    result = subprocess.run(
        [
            str(node_bin / "conformance"),
            "server",
            "--url",
            f"{base_url}/conformance/mcp",
            "--scenario",
            scenario,
            "--expected-failures",
            str(TASKS_EXPECTED_FAILURES),
            "-o",
            str(results),
        ],
        cwd=NODE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    summary = "\n".join(line for line in result.stdout.splitlines() if "FAILURE" in line or "WARNING" in line)
    assert result.returncode == 0, (
        f"{scenario} failed:\n{summary}\n{result.stdout[-3000:]}\n{result.stderr[-2000:]}"
    )
    checks = _checks(results)
    assert checks, f"{scenario} recorded no checks"
    _assert_only_create_task_results_violate(checks, scenario)


def _assert_only_create_task_results_violate(checks: list[dict[str, Any]], run: str) -> None:
    """Fail unless every schema violation in ``checks`` is a CreateTaskResult."""
    for check in checks:
        if check["id"] == "wire-schema-valid" and check["status"] == "FAILURE":
            others = [v for v in check["details"]["violations"] if not _is_create_task_result(v)]
            assert others == [], f"{run}: schema violations besides CreateTaskResult: {others}"
