"""Extension revisions and settings: django_mcp/dispatcher/extensions.py.

The Beta extensions (tasks, skills) declare the ``revision`` they implement;
a client declaring no revision or a known one gets the extension, one
declaring an unknown revision does not (SEP-3392 "Identifiers and
compatibility"); ``MCP_TASKS_EXTENSION`` / ``MCP_SKILLS_EXTENSION`` turn
each off. On the wire, through a real ``Dispatcher`` (``tests.wire``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from django_mcp import McpResponse, Server, Tool
from django_mcp.dispatcher import extensions
from django_mcp.protocol import jsonrpc
from django_mcp.protocol.extensions import (
    INITIAL_REVISION,
    STAGES,
    client_revision,
    declares_unknown_revision,
    revision_of,
)
from django_mcp.protocol.skills import EXTENSION as SKILLS
from django_mcp.protocol.tasks import EXTENSION as TASKS
from tests.skill_folders import write_skill
from tests.wire import call, modern_meta

pytestmark = pytest.mark.django_db(transaction=True)


class LaterTool(Tool):
    name = "later"
    task = "optional"

    def handle(self) -> McpResponse:
        return McpResponse.text("done")


class OnlyLaterTool(Tool):
    name = "only_later"
    task = "required"

    def handle(self) -> McpResponse:
        return McpResponse.text("done")


class TaskServer(Server):
    tools = (LaterTool, OnlyLaterTool)


def _declaring(extension: str, settings: dict[str, Any] | None) -> dict[str, Any]:
    return modern_meta({"extensions": {extension: settings if settings is not None else {}}})


async def _call_tool(name: str, declared: dict[str, Any] | None) -> dict[str, Any]:
    return await call(TaskServer, "tools/call", {"name": name}, meta=_declaring(TASKS, declared))


@pytest.fixture
def skills_server(tmp_path: Path, settings: Any) -> type[Server]:
    write_skill(tmp_path, "guide")
    settings.MCP_SKILLS_DIRS = [tmp_path]
    return type("GuideServer", (Server,), {"__module__": __name__, "name": "guide", "skills": ("guide",)})


# ------------------------------------------------------------ declaring


async def test_discover_declares_the_revision_of_each_beta_extension(skills_server: type[Server]) -> None:
    tasks = await call(TaskServer, "server/discover")
    skills = await call(skills_server, "server/discover")

    assert tasks["result"]["capabilities"]["extensions"] == {TASKS: {"revision": "1"}}
    assert skills["result"]["capabilities"]["extensions"][SKILLS]["revision"] == "1"


# ----------------------------------------------------- the client's revision


@pytest.mark.parametrize("declared", [{}, {"revision": "1"}])
async def test_a_client_declaring_no_or_a_known_revision_gets_tasks(declared: dict[str, Any]) -> None:
    reply = await _call_tool("later", declared)

    assert reply["result"]["resultType"] == "task"


@pytest.mark.parametrize("revision", ["2", "", 2, None])
async def test_a_client_declaring_an_unknown_revision_does_not_get_tasks(revision: Any) -> None:
    optional = await _call_tool("later", {"revision": revision})
    required = await _call_tool("only_later", {"revision": revision})

    assert optional["result"]["resultType"] == "complete"
    assert optional["result"]["content"] == [{"type": "text", "text": "done"}]
    assert required["error"]["code"] == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY


async def test_tasks_methods_refuse_a_client_declaring_an_unknown_revision() -> None:
    reply = await call(TaskServer, "tasks/get", {"taskId": "x"}, meta=_declaring(TASKS, {"revision": "9"}))

    assert reply["error"]["code"] == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert reply["error"]["data"] == {"requiredCapabilities": {"extensions": {TASKS: {"revision": "1"}}}}


async def test_skills_methods_refuse_a_client_declaring_an_unknown_revision(
    skills_server: type[Server],
) -> None:
    unknown = await call(skills_server, "skills/list", meta=_declaring(SKILLS, {"revision": "2027-01-01"}))
    known = await call(skills_server, "skills/list", meta=_declaring(SKILLS, {"revision": "1"}))
    undeclared = await call(skills_server, "skills/list")

    assert unknown["error"]["code"] == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert unknown["error"]["data"] == {"requiredCapabilities": {"extensions": {SKILLS: {"revision": "1"}}}}
    assert [skill["uri"] for skill in known["result"]["skills"]] == ["skill://guide/SKILL.md"]
    assert undeclared["result"]["skills"] == known["result"]["skills"]


# --------------------------------------------------------------- settings


async def test_turning_tasks_off_runs_calls_directly_and_hides_the_extension(settings: Any) -> None:
    settings.MCP_TASKS_EXTENSION = False

    discover = await call(TaskServer, "server/discover")
    optional = await _call_tool("later", {})
    required = await _call_tool("only_later", {})
    get = await call(TaskServer, "tasks/get", {"taskId": "x"}, meta=_declaring(TASKS, {}))

    assert "extensions" not in discover["result"]["capabilities"]
    assert (
        optional["result"]["content"] == required["result"]["content"] == [{"type": "text", "text": "done"}]
    )
    assert get["error"]["code"] == jsonrpc.METHOD_NOT_FOUND


async def test_turning_skills_off_answers_its_methods_as_not_found(
    skills_server: type[Server], settings: Any
) -> None:
    settings.MCP_SKILLS_EXTENSION = False

    discover = await call(skills_server, "server/discover")
    listed = await call(skills_server, "skills/list")

    assert "extensions" not in discover["result"]["capabilities"]
    assert listed["error"]["code"] == jsonrpc.METHOD_NOT_FOUND


# ------------------------------------------------------------------ units


def test_client_revision_reads_the_declaration() -> None:
    assert client_revision({"extensions": {TASKS: {}}}, TASKS) == INITIAL_REVISION
    assert client_revision({"extensions": {TASKS: {"revision": "1"}}}, TASKS) == "1"
    assert client_revision({"extensions": {TASKS: {"revision": "7"}}}, TASKS) is None
    assert client_revision({"extensions": {TASKS: True}}, TASKS) is None
    assert client_revision({}, TASKS) is None
    assert declares_unknown_revision({"extensions": {TASKS: {"revision": "7"}}}, TASKS)
    assert not declares_unknown_revision({"extensions": {TASKS: {}}}, TASKS)
    assert not declares_unknown_revision({}, TASKS)


def test_tasks_and_skills_are_beta_and_apps_stable() -> None:
    assert (STAGES[TASKS], STAGES[SKILLS], STAGES["io.modelcontextprotocol/ui"]) == ("beta", "beta", "stable")
    assert revision_of(TASKS) == revision_of(SKILLS) == INITIAL_REVISION


# ------------------------------------------------------------ task support


def test_django_mcp_serves_the_tasks_package_once_django_is_ready() -> None:
    from django_mcp.tasks.extension import SUPPORT

    assert extensions.task_support() is SUPPORT


async def test_without_the_tasks_package_calls_run_directly_and_its_methods_are_not_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(extensions, "_installed", [])

    optional = await _call_tool("later", {})
    get = await call(TaskServer, "tasks/get", {"taskId": "x"}, meta=_declaring(TASKS, {}))

    assert optional["result"]["content"] == [{"type": "text", "text": "done"}]
    assert get["error"]["code"] == jsonrpc.METHOD_NOT_FOUND
