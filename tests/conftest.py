"""Fixtures shared by several test packages: a live ASGI server process.

Tests that drive the server with real clients (the official conformance
suite, the official Python and TypeScript SDK clients) need it listening on
a socket. It runs ``uvicorn testproject.asgi:application`` with one worker
on a free loopback port and an SQLite database of its own; every wait is
bounded.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "tests" / "node"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def live_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start the demo project under uvicorn and return its base URL."""
    database = tmp_path_factory.mktemp("live") / "live.sqlite3"
    env = {**os.environ, "DJANGO_MCP_DB": str(database), "DJANGO_SETTINGS_MODULE": "testproject.settings"}
    subprocess.run(
        [sys.executable, "testproject/manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    port = _free_port()
    log = (tmp_path_factory.mktemp("live-log") / "uvicorn.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "testproject.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"uvicorn did not start; see {log.name}") from None
            time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(scope="session")
def node_bin() -> Path:
    """Return the directory holding the npm-installed Node 22 binaries."""
    bin_dir = NODE_DIR / "node_modules" / ".bin"
    if not (bin_dir / "node").exists():
        if os.environ.get("CI"):
            pytest.fail("tests/node is not installed: .ci/test must run `npm ci` there")
        pytest.skip("Node tooling not installed: run `npm ci` in tests/node (bash .ci/test does)")
    return bin_dir


# --- wire schema validation (every response) ---
#
# Every JSON-RPC message the server produces in-process during a test is
# recorded where django_mcp encodes it and, at teardown, validated against
# the spec JSON Schema of its protocol era: tests/spec/schema-2026-07-28.json
# (modern) or tests/spec/schema-2025-11-25.json (legacy), copies of the
# shared spec files so a clean clone needs nothing beside the repository.
#
# Hooks (monkeypatched per test, so nothing leaks between tests):
#   Dispatcher.respond            sets the era (ctx.era) for everything encoded
#                                 while it runs, and records its reply if no
#                                 other hook saw it;
#   Dispatcher.encode_result      result bodies, with their method and era;
#   Dispatcher.encode_raw_result  results encoded verbatim (InitializeResult,
#                                 a pre-initialize ping, a listen's end);
#   encode_error and encode_notification, in every loaded django_mcp module
#                                 that bound them (the HTTP view's own errors,
#                                 401 challenges, stream notifications);
#   envelope.encode_request (where bound)   legacy server-to-client requests;
#   subscriptions.listen, transports.http._session_stream
#                                 tag their notifications modern / legacy.
# A message encoded outside any era (transport errors before routing) is
# checked as modern (error envelopes are identical in both schemas); a
# verbatim result's era and method are inferred from its shape.
#
# Each message is checked against its envelope (JSONRPCResultResponse, ...)
# and its specific definition (the method's result, e.g. ListToolsResult or
# InputRequiredResult; ProgressNotification; HeaderMismatchError; ...), plus
# three era rules the schemas cannot express: a modern server never sends
# requests nor -32000..-32099 codes other than -32020/-32021/-32022, and
# legacy results carry no 2026-only fields. Validators are built once per
# session and identical messages are validated once, so the cost per test is
# a few monkeypatches (about 50 us). Tests read off a live server can feed messages in with
# ``wire_schema.record(message, era=...)``; a test that deliberately emits a
# non-conforming message calls ``wire_schema.ignore()``.

import contextvars  # noqa: E402
import functools  # noqa: E402
import json  # noqa: E402
from collections.abc import AsyncIterator, Callable  # noqa: E402
from typing import Any  # noqa: E402

SPEC_DIR = Path(__file__).resolve().parent / "spec"
_SCHEMA_FILES = {"modern": "schema-2026-07-28.json", "legacy": "schema-2025-11-25.json"}
_WIRE_ERA: contextvars.ContextVar[str | None] = contextvars.ContextVar("wire_era", default=None)

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
        # Known quirk of the generated schemas (SERVER-CHECKLIST §0, §17.9):
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


_Stream = Callable[..., AsyncIterator[bytes]]


def _tag_stream(function: _Stream, era: str) -> _Stream:
    """Wrap an async generator so what it encodes is recorded under ``era``."""

    @functools.wraps(function)
    async def tagged(*args: Any, **kwargs: Any) -> AsyncIterator[bytes]:
        source = function(*args, **kwargs)
        try:
            while True:
                token = _WIRE_ERA.set(era)
                try:
                    item = await source.__anext__()
                except StopAsyncIteration:
                    return
                finally:
                    _WIRE_ERA.reset(token)
                yield item
        finally:
            await source.aclose()

    return tagged


_module_scan: list[Any] = [-1, ()]


def _django_mcp_modules() -> tuple[Any, ...]:
    """Return the loaded django_mcp modules (rescanned only when imports happen)."""
    if _module_scan[0] != len(sys.modules):
        _module_scan[1] = tuple(
            module
            for name, module in list(sys.modules.items())
            if module is not None and (name == "django_mcp" or name.startswith("django_mcp."))
        )
        _module_scan[0] = len(sys.modules)
    return _module_scan[1]  # type: ignore[no-any-return]


def _raw_result_kind(result: Any) -> tuple[str, str | None]:
    """Return the era and method of a result encoded verbatim.

    ``encode_raw_result`` is given no method or era (transports use it for
    the handshake, a pre-initialize ping, a listen's closing result), so
    infer both from the result's shape.
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


def _install_wire_hooks(monkeypatch: pytest.MonkeyPatch, recorder: WireRecorder) -> None:
    import django_mcp._authn
    import django_mcp.subscriptions
    import django_mcp.transports.http
    from django_mcp import dispatcher, envelope

    original_error = envelope.encode_error
    original_notification = envelope.encode_notification
    original_respond = dispatcher.Dispatcher.respond
    original_result = dispatcher.Dispatcher.encode_result
    original_raw = dispatcher.Dispatcher.encode_raw_result
    http = django_mcp.transports.http
    original_request = envelope.encode_request

    def encode_error(*args: Any, **kwargs: Any) -> bytes:
        body = original_error(*args, **kwargs)
        recorder.add(body, era=_WIRE_ERA.get())
        return body

    def encode_notification(*args: Any, **kwargs: Any) -> bytes:
        body = original_notification(*args, **kwargs)
        recorder.add(body, era=_WIRE_ERA.get())
        return body

    def encode_request(*args: Any, **kwargs: Any) -> bytes:
        body = original_request(*args, **kwargs)
        recorder.add(body, era=_WIRE_ERA.get() or "legacy")
        return body

    async def respond(self: Any, envelope: Any, ctx: Any, *args: Any, **kwargs: Any) -> Any:
        era = getattr(ctx, "era", None)
        token = _WIRE_ERA.set(era)
        try:
            reply = await original_respond(self, envelope, ctx, *args, **kwargs)
        finally:
            _WIRE_ERA.reset(token)
        body = getattr(reply, "body", None)
        if isinstance(body, bytes) and not recorder.seen(body):
            recorder.add(body, era=era, method=getattr(envelope, "method", None))
        return reply

    def encode_result(self: Any, envelope: Any, ctx: Any, *args: Any, **kwargs: Any) -> Any:
        reply = original_result(self, envelope, ctx, *args, **kwargs)
        if getattr(reply, "error", None) is None:  # errors went through encode_error
            recorder.add(reply.body, era=getattr(ctx, "era", None), method=getattr(envelope, "method", None))
        return reply

    def encode_raw_result(self: Any, request_id: Any, result: Any, *args: Any, **kwargs: Any) -> bytes:
        body = original_raw(self, request_id, result, *args, **kwargs)
        era, method = _raw_result_kind(result)
        recorder.add(body, era=_WIRE_ERA.get() or era, method=method)
        return body

    for module in _django_mcp_modules():
        if getattr(module, "encode_error", None) is original_error:
            monkeypatch.setattr(module, "encode_error", encode_error)
        if getattr(module, "encode_notification", None) is original_notification:
            monkeypatch.setattr(module, "encode_notification", encode_notification)
        if getattr(module, "encode_request", None) is original_request:
            monkeypatch.setattr(module, "encode_request", encode_request)
    monkeypatch.setattr(dispatcher.Dispatcher, "respond", respond)
    monkeypatch.setattr(dispatcher.Dispatcher, "encode_result", encode_result)
    monkeypatch.setattr(dispatcher.Dispatcher, "encode_raw_result", encode_raw_result)
    monkeypatch.setattr(http, "_session_stream", _tag_stream(http._session_stream, "legacy"))
    subscriptions = django_mcp.subscriptions
    monkeypatch.setattr(subscriptions, "listen", _tag_stream(subscriptions.listen, "modern"))


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
    _install_wire_hooks(monkeypatch, recorder)
    yield recorder
    problems = recorder.problems()
    if problems:
        pytest.fail(
            f"{len(problems)} server message(s) do not validate against the MCP schema of their era:\n"
            + "\n".join(problems),
            pytrace=False,
        )
