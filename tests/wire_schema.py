"""Validate every message the server produces against its era's MCP JSON schema.

Each JSON-RPC message django_mcp encodes during a test passes through one
function, ``django_mcp.dispatcher.codec.encode_message``; the autouse
``wire_schema`` fixture (installed by ``tests/conftest.py``) wraps it and,
at teardown, validates what it saw against ``tests/spec/schema-2026-07-28.json``
(modern) or ``tests/spec/schema-2025-11-25.json`` (legacy).

The era and method come from the request being served (``Dispatcher.respond``
is wrapped to note them) or the stream being iterated (``Dispatcher.listen``
is modern, ``Dispatcher.session_notifications`` legacy). A message encoded
outside any of those (transport errors before routing) is checked as modern,
since error envelopes are identical in both schemas; a result encoded by a
transport itself (the handshake, a pre-initialize ping, a listen's end) has
its era and method inferred from its shape.

Each message is checked against its envelope (JSONRPCResultResponse, ...)
and its specific definition (the method's result, e.g. ListToolsResult or
InputRequiredResult; ProgressNotification; HeaderMismatchError; ...; the
tasks extension's CreateTaskResult, GetTaskResult and
TaskStatusNotification, transcribed from SEP-2663 below, and the skills
extension's results, transcribed from SEP-2640), plus
three era rules the schemas cannot express: a modern server never sends
requests nor -32000..-32099 codes other than -32020/-32021/-32022, and
legacy results carry no 2026-only fields. Validators are built once per
session and identical messages are validated once. Tests that read a live
server feed messages in with ``wire_schema.record(message, era=...)``; a
test that deliberately emits a non-conforming message calls
``wire_schema.ignore()``.
"""

from __future__ import annotations

import contextvars
import functools
import importlib.util
import json
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

SPEC_DIR = Path(__file__).resolve().parent / "spec"
_SCHEMA_FILES = {"modern": "schema-2026-07-28.json", "legacy": "schema-2025-11-25.json"}
# (era, method) of the request or stream encoding right now.
_WIRE_CALL: contextvars.ContextVar[tuple[str | None, str | None] | None] = contextvars.ContextVar(
    "wire_call", default=None
)

_RESULT_DEFS = {
    "initialize": "InitializeResult",
    "server/discover": "DiscoverResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "completion/complete": "CompleteResult",
    "subscriptions/listen": "SubscriptionsListenResult",
    "ping": "EmptyResult",
    "logging/setLevel": "EmptyResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    # The io.modelcontextprotocol/tasks extension (see _TASKS_EXTENSION_DEFS).
    "tasks/get": "GetTaskResult",
    "tasks/update": "EmptyResult",
    "tasks/cancel": "EmptyResult",
    # The io.modelcontextprotocol/skills extension (see _SKILLS_EXTENSION_DEFS).
    "skills/list": "ListSkillsResult",
    "skills/get": "GetSkillResult",
    "resources/directory/read": "ReadResourceDirectoryResult",
}
_MRTR_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
_NOTIFICATION_DEFS = {
    "notifications/progress": "ProgressNotification",
    "notifications/message": "LoggingMessageNotification",
    "notifications/cancelled": "CancelledNotification",
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/prompts/list_changed": "PromptListChangedNotification",
    "notifications/resources/list_changed": "ResourceListChangedNotification",
    "notifications/resources/updated": "ResourceUpdatedNotification",
    "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
    "notifications/elicitation/complete": "ElicitationCompleteNotification",
    "notifications/tasks": "TaskStatusNotification",
}
_REQUEST_DEFS = {
    "elicitation/create": "ElicitRequest",
    "sampling/createMessage": "CreateMessageRequest",
    "roots/list": "ListRootsRequest",
    "ping": "PingRequest",
}
# Whole error responses with a code-specific definition.
_ERROR_RESPONSE_DEFS = {
    "modern": {
        -32020: "HeaderMismatchError",
        -32021: "MissingRequiredClientCapabilityError",
        -32022: "UnsupportedProtocolVersionError",
    },
    "legacy": {-32042: "URLElicitationRequiredError"},
}
# Bare error objects with a code-specific definition (2026-07-28 only).
_ERROR_OBJECT_DEFS = {
    -32700: "ParseError",
    -32600: "InvalidRequestError",
    -32601: "MethodNotFoundError",
    -32602: "InvalidParamsError",
    -32603: "InternalError",
}
_MODERN_ONLY_RESULT_KEYS = ("resultType", "ttlMs", "cacheScope")

# The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) is not part
# of the 2026-07-28 schema, and the extension repository's generated schema
# cannot validate its own examples (its CreateTaskResult forbids
# resultType). These definitions transcribe the SEP's TypeScript (Task,
# CreateTaskResult = Result & Task, GetTaskResult = Result & DetailedTask,
# TaskStatusNotification) over the 2026-07-28 definitions, and are added to
# the modern schema in memory; a completed task's result is a CallToolResult
# (tools/call is the only method that becomes a task).
_TASK_FIELDS: dict[str, Any] = {
    "taskId": {"type": "string", "minLength": 1},
    "status": {"enum": ["working", "input_required", "completed", "failed", "cancelled"]},
    "statusMessage": {"type": "string"},
    "createdAt": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}"},
    "lastUpdatedAt": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}"},
    "ttlMs": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
    "pollIntervalMs": {"type": "integer", "minimum": 1},
}
_TASK_REQUIRED = ["taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"]
_TASK_PAYLOADS = ("result", "error", "inputRequests")


def _task_status(status: str, payload: str | None) -> dict[str, Any]:
    """Return the DetailedTask branch for ``status``, carrying only ``payload``."""
    branch: dict[str, Any] = {"properties": {"status": {"const": status}}}
    if payload is not None:
        branch["required"] = [payload]
    absent = [name for name in _TASK_PAYLOADS if name != payload]
    branch["not"] = {"anyOf": [{"required": [name]} for name in absent]}
    return branch


_TASKS_EXTENSION_DEFS: dict[str, Any] = {
    "Task": {"type": "object", "properties": _TASK_FIELDS, "required": _TASK_REQUIRED},
    "DetailedTask": {
        "allOf": [
            {"$ref": "#/$defs/Task"},
            {
                "properties": {
                    "result": {"$ref": "#/$defs/CallToolResult"},
                    "error": {"$ref": "#/$defs/Error"},
                    "inputRequests": {"$ref": "#/$defs/InputRequests", "minProperties": 1},
                }
            },
            {
                "oneOf": [
                    _task_status("working", None),
                    _task_status("input_required", "inputRequests"),
                    _task_status("completed", "result"),
                    _task_status("failed", "error"),
                    _task_status("cancelled", None),
                ]
            },
        ]
    },
    "CreateTaskResult": {
        "allOf": [
            {"$ref": "#/$defs/Result"},
            {"$ref": "#/$defs/Task"},
            {
                "properties": {"resultType": {"const": "task"}},
                "not": {
                    "anyOf": [{"required": [name]} for name in (*_TASK_PAYLOADS, "requestState", "task")]
                },
            },
        ]
    },
    "GetTaskResult": {
        "allOf": [
            {"$ref": "#/$defs/Result"},
            {"$ref": "#/$defs/DetailedTask"},
            {"properties": {"resultType": {"const": "complete"}}, "not": {"required": ["requestState"]}},
        ]
    },
    "TaskStatusNotification": {
        "type": "object",
        "properties": {
            "method": {"const": "notifications/tasks"},
            "params": {"$ref": "#/$defs/DetailedTask"},
        },
        "required": ["method", "params"],
    },
}

# The skills extension (io.modelcontextprotocol/skills, SEP-2640) is not
# part of the 2026-07-28 schema either. These definitions transcribe the
# extension's TypeScript (SkillResource, Skill, ListSkillsResult extends
# PaginatedResult and CacheableResult, GetSkillResult extends
# CacheableResult, ReadResourceDirectoryResult extends PaginatedResult),
# plus what its prose requires of the values: the digest format, a
# non-negative size, resultType "complete", no cursor on skills/get.
_SKILLS_EXTENSION_DEFS: dict[str, Any] = {
    "SkillResource": {
        "type": "object",
        "properties": {
            "uri": {"type": "string"},
            "digest": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
            "size": {"type": "integer", "minimum": 0},
        },
        "required": ["uri", "digest", "size"],
    },
    "Skill": {
        "type": "object",
        "properties": {
            "uri": {"type": "string"},
            "frontmatter": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "description": {"type": "string"}},
                "required": ["name", "description"],
            },
            "resources": {
                "anyOf": [{"type": "array", "items": {"$ref": "#/$defs/SkillResource"}}, {"const": "dynamic"}]
            },
        },
        "required": ["uri", "frontmatter", "resources"],
    },
    "ListSkillsResult": {
        "allOf": [
            {"$ref": "#/$defs/PaginatedResult"},
            {"$ref": "#/$defs/CacheableResult"},
            {
                "properties": {
                    "resultType": {"const": "complete"},
                    "skills": {"type": "array", "items": {"$ref": "#/$defs/Skill"}},
                },
                "required": ["skills", "ttlMs", "cacheScope"],
            },
        ]
    },
    "GetSkillResult": {
        "allOf": [
            {"$ref": "#/$defs/CacheableResult"},
            {
                "properties": {"resultType": {"const": "complete"}, "skill": {"$ref": "#/$defs/Skill"}},
                "required": ["skill", "ttlMs", "cacheScope"],
                "not": {"required": ["nextCursor"]},
            },
        ]
    },
    "ReadResourceDirectoryResult": {
        "allOf": [
            {"$ref": "#/$defs/PaginatedResult"},
            {
                "properties": {
                    "resultType": {"const": "complete"},
                    "resources": {"type": "array", "items": {"$ref": "#/$defs/Resource"}},
                },
                "required": ["resources"],
            },
        ]
    },
}
_validated: set[tuple[str, str | None, bytes]] = set()


@functools.cache
def _wire_schemas() -> tuple[Any, dict[str, set[str]]]:
    """Return a registry holding both era schemas and each era's definition names."""
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    registry: Any = Registry()
    names: dict[str, set[str]] = {}
    for era, filename in _SCHEMA_FILES.items():
        schema = json.loads((SPEC_DIR / filename).read_text(encoding="utf-8"))
        # Known quirk of the generated schemas (both revisions):
        # JSONValue lacks non-integer numbers and null although the TypeScript
        # source allows them, so a capability setting such as {"x": 0.5} or
        # {"x": null} fails spuriously. JSONValue is referenced only from
        # JSONObject/JSONArray (capabilities, experimental, extensions,
        # sampling metadata), so widening this one definition in memory fixes
        # exactly those places; every other number/null rule stays strict.
        if "JSONValue" in schema["$defs"]:
            schema["$defs"]["JSONValue"] = {
                "anyOf": [
                    {"$ref": "#/$defs/JSONObject"},
                    {"type": "array", "items": {"$ref": "#/$defs/JSONValue"}},
                    {"type": ["string", "number", "boolean", "null"]},
                ]
            }
        if era == "modern":
            schema["$defs"].update(_TASKS_EXTENSION_DEFS)
            schema["$defs"].update(_SKILLS_EXTENSION_DEFS)
        names[era] = set(schema["$defs"])
        resource = Resource.from_contents(schema, DRAFT202012)
        registry = registry.with_resource(f"urn:mcp-schema:{era}", resource)
    return registry, names


@functools.cache
def _wire_validator(era: str, name: str) -> Any:
    from jsonschema import Draft202012Validator

    registry, _ = _wire_schemas()
    # An explicit registry without a retriever: never fetch remote $refs.
    return Draft202012Validator({"$ref": f"urn:mcp-schema:{era}#/$defs/{name}"}, registry=registry)


def _schema_problem(era: str, name: str, instance: Any) -> str | None:
    from jsonschema.exceptions import best_match

    if name not in _wire_schemas()[1][era]:
        return f"{name} does not exist in the {era} schema"
    error = best_match(_wire_validator(era, name).iter_errors(instance))
    if error is None:
        return None
    path = "/".join(str(part) for part in error.absolute_path)
    return f"not a valid {name}: {error.message} (at /{path})"


def wire_problems(message: Any, *, era: str, method: str | None = None) -> list[str]:
    """Return why ``message`` is not a valid ``era`` server message (empty if valid)."""
    if not isinstance(message, dict):
        return ["not a JSON object"]
    checks: list[tuple[str, Any]] = []
    problems: list[str] = []
    if "result" in message:
        result = message["result"]
        name = _RESULT_DEFS.get(method or "")
        if era == "modern" and isinstance(result, dict) and result.get("resultType") == "input_required":
            if method not in _MRTR_METHODS:
                problems.append(f"InputRequiredResult is not allowed for {method}")
            name = "InputRequiredResult"
        if era == "modern" and isinstance(result, dict) and result.get("resultType") == "task":
            if method != "tools/call":
                problems.append(f"CreateTaskResult is not allowed for {method}")
            name = "CreateTaskResult"
        checks.append(("JSONRPCResultResponse", message))
        if name is not None:
            checks.append((name, result))
        if era == "legacy" and isinstance(result, dict):
            extra = [key for key in _MODERN_ONLY_RESULT_KEYS if key in result]
            meta = result.get("_meta")
            if isinstance(meta, dict) and "io.modelcontextprotocol/serverInfo" in meta:
                extra.append("_meta.io.modelcontextprotocol/serverInfo")
            if extra:
                problems.append(f"legacy result carries 2026-only fields {extra}")
    elif "error" in message:
        checks.append(("JSONRPCErrorResponse", message))
        error = message["error"]
        code = error.get("code") if isinstance(error, dict) else None
        if code in _ERROR_RESPONSE_DEFS[era]:
            checks.append((_ERROR_RESPONSE_DEFS[era][code], message))
        if era == "modern":
            if code in _ERROR_OBJECT_DEFS:
                checks.append((_ERROR_OBJECT_DEFS[code], error))
            reserved = isinstance(code, int) and -32099 <= code <= -32000
            if reserved and code not in _ERROR_RESPONSE_DEFS["modern"]:
                problems.append(f"error code {code} is reserved in 2026-07-28")
    elif "method" in message and "id" in message:
        if era == "modern":
            problems.append("a 2026-07-28 server never sends requests")
        checks.append(("JSONRPCRequest", message))
        checks.append((_REQUEST_DEFS.get(message["method"], "ServerRequest"), message))
    elif "method" in message:
        checks.append(("JSONRPCNotification", message))
        checks.append((_NOTIFICATION_DEFS.get(message["method"], "ServerNotification"), message))
    else:
        problems.append("neither a result, an error, a request nor a notification")
    for name, instance in checks:
        problem = _schema_problem(era, name, instance)
        if problem is not None:
            problems.append(problem)
    return problems


class WireRecorder:
    """The JSON-RPC messages the server produced during one test."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, str | None, bytes]] = []
        self._bodies: set[bytes] = set()
        self.enabled = True

    def add(self, body: bytes, *, era: str | None, method: str | None = None) -> None:
        """Record one encoded message (``era`` None: outside any request)."""
        if self.enabled and isinstance(body, bytes | bytearray):
            body = bytes(body)
            self.entries.append((era or "modern", method, body))
            self._bodies.add(body)

    def seen(self, body: bytes) -> bool:
        """Return True when ``body`` has been recorded."""
        return body in self._bodies

    def record(self, message: Any, *, era: str, method: str | None = None) -> None:
        """Record a decoded message read off the wire (live-server tests)."""
        self.add(json.dumps(message).encode(), era=era, method=method)

    def check(self, message: Any, *, era: str, method: str | None = None) -> list[str]:
        """Return why ``message`` would fail validation (empty if it is valid)."""
        return wire_problems(message, era=era, method=method)

    def ignore(self) -> None:
        """Stop recording and forget this test's messages (deliberately invalid output)."""
        self.enabled = False
        self.entries.clear()

    @property
    def messages(self) -> list[tuple[str, Any]]:
        """Return ``(era, decoded message)`` for every recorded message."""
        return [(era, json.loads(body)) for era, _, body in self.entries]

    def problems(self) -> list[str]:
        """Return a description of every recorded message that is not valid."""
        found = []
        for era, method, body in self.entries:
            key = (era, method, body)
            if key in _validated:
                continue
            issues = wire_problems(json.loads(body), era=era, method=method)
            if issues:
                shown = body.decode(errors="replace")
                shown = shown if len(shown) <= 600 else shown[:600] + "..."
                found.append(f"[{era}{' ' + method if method else ''}] {shown}\n    " + "\n    ".join(issues))
            else:
                _validated.add(key)
        return found


def _tag_stream(function: Callable[..., AsyncIterator[bytes]], era: str, method: str | None) -> Any:
    """Wrap a method returning a stream so what it encodes is recorded under ``era``."""

    @functools.wraps(function)
    def tagged(*args: Any, **kwargs: Any) -> AsyncIterator[bytes]:
        # Called eagerly: errors raised before the stream starts stay errors.
        return _tagged(function(*args, **kwargs), era, method)

    return tagged


async def _tagged(source: AsyncIterator[bytes], era: str, method: str | None) -> AsyncIterator[bytes]:
    try:
        while True:
            token = _WIRE_CALL.set((era, method))
            try:
                item = await source.__anext__()
            except StopAsyncIteration:
                return
            finally:
                _WIRE_CALL.reset(token)
            yield item
    finally:
        aclose = getattr(source, "aclose", None)
        if aclose is not None:
            await aclose()


def _raw_result_kind(result: Any) -> tuple[str, str | None]:
    """Return the era and method of a result encoded outside a request.

    The handshake, a pre-initialize ping and a listen's closing result are
    encoded by the transports themselves, so infer both from the shape.
    """
    if not isinstance(result, dict):
        return "modern", None
    if {"protocolVersion", "capabilities", "serverInfo"} <= set(result):
        return "legacy", "initialize"
    if "resultType" not in result:
        return "legacy", "ping" if not result else None
    meta = result.get("_meta")
    if isinstance(meta, dict) and "io.modelcontextprotocol/subscriptionId" in meta:
        return "modern", "subscriptions/listen"
    return "modern", None


def install_wire_hooks(monkeypatch: pytest.MonkeyPatch, recorder: WireRecorder) -> None:
    """Record every message the server encodes, with its era and method."""
    from django_mcp.dispatcher import Dispatcher, codec

    original_encode = codec.encode_message
    original_respond = Dispatcher.respond

    @functools.wraps(original_encode)
    def encode_message(message: Any) -> bytes:
        body = original_encode(message)
        current = _WIRE_CALL.get()
        if current is not None:
            era, method = current
            # A stream's notifications and errors are not its method's result.
            recorder.add(body, era=era, method=method if b'"result"' in body else None)
        else:
            decoded = json.loads(body)
            era, method = _raw_result_kind(decoded.get("result")) if "result" in decoded else (None, None)
            recorder.add(body, era=era, method=method)
        return body

    @functools.wraps(original_respond)
    async def respond(self: Any, envelope: Any, ctx: Any, *args: Any, **kwargs: Any) -> Any:
        token = _WIRE_CALL.set((getattr(ctx, "era", None), getattr(envelope, "method", None)))
        try:
            return await original_respond(self, envelope, ctx, *args, **kwargs)
        finally:
            _WIRE_CALL.reset(token)

    monkeypatch.setattr(codec, "encode_message", encode_message)
    monkeypatch.setattr(Dispatcher, "respond", respond)
    monkeypatch.setattr(
        Dispatcher, "listen", _tag_stream(Dispatcher.listen, "modern", "subscriptions/listen")
    )
    monkeypatch.setattr(
        Dispatcher, "session_notifications", _tag_stream(Dispatcher.session_notifications, "legacy", None)
    )


@pytest.fixture(autouse=True)
def wire_schema(monkeypatch: pytest.MonkeyPatch) -> Iterator[WireRecorder]:
    """Validate every message the server produces in this test against its era's schema.

    Without python-jsonschema (the minimal tox env, no test extra) nothing is
    recorded or validated; every full run validates.
    """
    recorder = WireRecorder()
    if importlib.util.find_spec("jsonschema") is None:
        yield recorder
        return
    install_wire_hooks(monkeypatch, recorder)
    yield recorder
    problems = recorder.problems()
    if problems:
        pytest.fail(
            f"{len(problems)} server message(s) do not validate against the MCP schema of their era:\n"
            + "\n".join(problems),
            pytrace=False,
        )
