"""The task-capable tools and server the tests of django_mcp/tasks/ share, and their request helpers.

Tasks run on the test project's immediate Tasks backend (inside the
request that creates them) unless a test uses the ``stored_only`` fixture
(``conftest.py``), whose dummy backend stores jobs and never runs them.
"""

from __future__ import annotations

from typing import Any

from django_mcp import McpRequest, McpResponse, Server, Tool
from django_mcp.exceptions import InternalError
from django_mcp.inputs import elicit, input_required
from django_mcp.protocol.tasks import EXTENSION
from django_mcp.schemas import Schema
from tests.wire import call, modern_meta

TASKS = {"extensions": {EXTENSION: {}}, "elicitation": {}}
MISSING_TASKS = {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
QUESTION = {"type": "object", "properties": {"answer": {"type": "string"}}}
DUMMY = "django_tasks.backends.dummy.DummyBackend"
IMMEDIATE = "django_tasks.backends.immediate.ImmediateBackend"


class EchoInput(Schema):
    text: str


class EchoTool(Tool[EchoInput]):
    name = "echo"
    task = "optional"

    def handle(self, payload: EchoInput, request: McpRequest) -> McpResponse:
        where = "task" if request.task is not None else "request"
        return McpResponse.text(f"{payload.text} ({where})").withMeta({"example.com/seen": True})


class InstantTool(Tool[EchoInput]):
    name = "instant"
    task = "optional"

    def use_task(self, payload: EchoInput) -> bool:
        return payload.text != "now"

    def handle(self, payload: EchoInput) -> McpResponse:
        return McpResponse.text(payload.text)


class RequiredTool(Tool):
    name = "required"
    task = "required"

    def handle(self) -> McpResponse:
        return McpResponse.text("done")


class PlainTool(Tool):
    name = "plain"

    def handle(self) -> McpResponse:
        return McpResponse.text("plain")


class ToolErrorTool(Tool):
    name = "tool_error"
    task = "optional"

    def handle(self) -> McpResponse:
        return McpResponse.error("no luck")


class ProtocolErrorTool(Tool):
    name = "protocol_error"
    task = "optional"

    def handle(self) -> McpResponse:
        raise InternalError("broken", data={"hint": "none"})


class CrashTool(Tool):
    name = "crash"
    task = "optional"

    def handle(self) -> McpResponse:
        raise RuntimeError("secret detail")


class AskTwiceTool(Tool):
    """Asks ``first`` and ``second`` together, then ``first`` again."""

    name = "ask"
    task = "optional"

    def handle(self, request: McpRequest) -> Any:
        answers = request.input_responses
        state = request.request_state or 0
        if state == 0:
            if "first" in answers and "second" in answers:
                return input_required({"first": elicit("Again?", QUESTION)}, state=1)
            return input_required(
                {"first": elicit("First?", QUESTION), "second": elicit("Second?", QUESTION)}
            )
        return McpResponse.text(
            f"{answers['first']['content']['answer']}+{answers['second']['content']['answer']}"
        )


class GatedTool(Tool):
    name = "gated"
    task = "required"

    def prepare(self, request: McpRequest) -> Any:
        if "name" not in request.input_responses:
            return input_required({"name": elicit("Name?", QUESTION)}, state="asked")
        return None

    def handle(self, request: McpRequest) -> McpResponse:
        return McpResponse.text(f"hi {request.input_responses['name']['content']['answer']}")


class RetryTool(Tool[EchoInput]):
    name = "retry"
    task = "optional"
    task_retries = 1  # safe to run again: it only echoes

    def handle(self, payload: EchoInput) -> McpResponse:
        return McpResponse.text(f"again {payload.text}")


class TaskServer(Server):
    tools = (
        EchoTool,
        RetryTool,
        InstantTool,
        RequiredTool,
        PlainTool,
        ToolErrorTool,
        ProtocolErrorTool,
        CrashTool,
        AskTwiceTool,
        GatedTool,
    )


class NoTaskServer(Server):
    tools = (PlainTool,)


async def ask(
    target: Any, method: str, params: dict[str, Any], *, tasks: bool = True, user: Any = None
) -> Any:
    """Send ``method`` declaring the tasks extension (or not); return the decoded reply."""
    return await call(target, method, params, meta=modern_meta(TASKS if tasks else {}), user=user)


async def start(
    target: Any, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, Any]:
    """Call tool ``name`` declaring the extension; return its CreateTaskResult."""
    reply = await ask(target, "tools/call", {"name": name, "arguments": arguments or {}}, **kwargs)
    assert reply["result"]["resultType"] == "task", reply
    return reply["result"]  # type: ignore[no-any-return]


async def get(target: Any, task_id: str, **kwargs: Any) -> dict[str, Any]:
    reply = await ask(target, "tasks/get", {"taskId": task_id}, **kwargs)
    assert "result" in reply, reply
    return reply["result"]  # type: ignore[no-any-return]


def answer(text: str) -> dict[str, Any]:
    return {"action": "accept", "content": {"answer": text}}
