"""McpWSGIApp (django_mcp/wsgi.py) called as a WSGI server calls it: environ in, status and body out.

The wire behaviour is pinned by ``tests/transports/test_http_wsgi.py``; here
the WSGI level itself: no Django request or response is built for an MCP
request, ``request_started``/``request_finished`` are sent, a chunked body is
read when the server decodes it and refused (411) when it does not, a refused
body is drained before the answer goes, and a disallowed Host is JSON.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections

from django_mcp.protocol import jsonrpc
from django_mcp.transports._body import DRAIN_BYTES
from django_mcp.wsgi import McpWSGIApp
from tests.calls import python_calls
from tests.wire import modern_headers, tool_request

URL = "/conformance/mcp"

# The tools and the session middleware read the database, in this thread.
pytestmark = pytest.mark.django_db


class _Input(io.BytesIO):
    """A ``wsgi.input`` that counts what was read."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.read_bytes = 0

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.read_bytes += len(chunk)
        return chunk


def environ(
    body: bytes = b"",
    *,
    headers: dict[str, str] | None = None,
    length: int | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Return a WSGI environ POSTing ``body`` to the conformance endpoint."""
    env: dict[str, Any] = {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": URL,
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "testserver",
        "CONTENT_TYPE": "application/json",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": _Input(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        **extra,
    }
    if length is not None:
        env["CONTENT_LENGTH"] = str(length)
    for name, value in (headers or {}).items():
        env["HTTP_" + name.upper().replace("-", "_")] = value
    return env


def call(app: McpWSGIApp, env: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    """Serve ``env`` as a WSGI server would; return status, headers and body."""
    started: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        started["status"] = int(status.split(" ", 1)[0])
        started["headers"] = {name.lower(): value for name, value in headers}

    with _test_connection_kept():
        result: Iterable[bytes] = app(env, start_response)
        try:
            body = b"".join(result)
        finally:
            getattr(result, "close", lambda: None)()
    return started["status"], started["headers"], body


@contextlib.contextmanager
def _test_connection_kept() -> Iterator[None]:
    """Keep ``close_old_connections`` off the request signals while the block runs.

    As Django's test client does: it closes a connection inside a
    transaction, which is where a test's connection is, and then the test's
    data is gone (on PostgreSQL; SQLite's in-memory test database ignores
    the close). The signals are still sent, to every other receiver.
    """
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def warm_python_calls(
    app: Any, path: str, data: bytes, headers: dict[str, str]
) -> tuple[int, tuple[int, dict[str, str], bytes]]:
    """Return the Python calls one POST of ``data`` to ``path`` makes, and its answer.

    Three requests go first, to warm what the first ones fill (caches, the
    URL's endpoint, the Host verdict, database connections).
    """

    def request() -> tuple[int, dict[str, str], bytes]:
        return call(app, environ(data, headers=headers, length=len(data), PATH_INFO=path))

    for _ in range(3):
        request()
    return python_calls(request)


@pytest.fixture
def app() -> McpWSGIApp:
    return McpWSGIApp(get_wsgi_application())


def _tool_call() -> tuple[bytes, dict[str, str]]:
    body = tool_request("test_simple_text", {})
    return json.dumps(body).encode(), modern_headers(body)


def test_an_echo_tool_call_builds_no_django_request_or_response(app: McpWSGIApp, monkeypatch: Any) -> None:
    from django.http import HttpRequest
    from django.http.response import HttpResponseBase

    built: list[str] = []
    for cls in (HttpRequest, HttpResponseBase):
        original = cls.__init__

        def noting(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> None:
            built.append(type(self).__name__)
            _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", noting)
    data, headers = _tool_call()

    status, _headers, body = call(app, environ(data, headers=headers, length=len(data)))

    assert status == 200
    assert json.loads(body)["result"]["isError"] is False
    assert built == []


def test_request_started_and_finished_are_sent_as_under_djangos_handler(app: McpWSGIApp) -> None:
    seen: list[str] = []

    def started(**kwargs: Any) -> None:
        seen.append("started")

    def finished(**kwargs: Any) -> None:
        seen.append("finished")

    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    try:
        data, headers = _tool_call()
        call(app, environ(data, headers=headers, length=len(data)))
    finally:
        signals.request_started.disconnect(started)
        signals.request_finished.disconnect(finished)

    assert seen == ["started", "finished"]


def test_a_chunked_body_is_read_when_the_server_decodes_it(app: McpWSGIApp) -> None:
    data, headers = _tool_call()

    status, _headers, body = call(
        app,
        environ(data, headers={**headers, "Transfer-Encoding": "chunked"}, **{"wsgi.input_terminated": True}),
    )

    assert status == 200
    assert json.loads(body)["result"]["isError"] is False


def test_a_chunked_body_over_the_limit_is_refused_once_it_passes_it(app: McpWSGIApp, settings: Any) -> None:
    settings.MCP_MAX_REQUEST_SIZE = 1000
    _data, headers = _tool_call()
    env = environ(b" " * 5000, headers=headers, **{"wsgi.input_terminated": True})

    status, _headers, body = call(app, env)

    assert status == 413
    assert json.loads(body)["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert env["wsgi.input"].read_bytes == 5000  # the rest was drained, within DRAIN_BYTES


def test_a_chunked_body_the_server_does_not_decode_is_refused_with_411(app: McpWSGIApp) -> None:
    data, headers = _tool_call()

    status, response_headers, body = call(
        app, environ(data, headers={**headers, "Transfer-Encoding": "chunked"})
    )

    assert (status, response_headers["content-type"]) == (411, "application/json")
    error = json.loads(body)["error"]
    assert error["code"] == jsonrpc.INVALID_REQUEST
    assert "Content-Length" in error["message"]


def test_a_declared_body_over_the_limit_is_refused_then_drained(app: McpWSGIApp, settings: Any) -> None:
    settings.MCP_MAX_REQUEST_SIZE = 100
    env = environ(b"x" * 5000, length=5000)

    status, _headers, _body = call(app, env)

    assert status == 413
    assert env["wsgi.input"].read_bytes == 5000  # read after the refusal, so the answer arrives


def test_a_body_declared_past_the_drain_bound_is_not_waited_for(app: McpWSGIApp) -> None:
    env = environ(b"", length=DRAIN_BYTES + 1)

    status, _headers, _body = call(app, env)

    assert status == 413
    assert env["wsgi.input"].read_bytes == 0


@pytest.mark.parametrize("host", ["evil.example.com", "evil.example.com:80"])
def test_a_disallowed_host_is_a_json_rpc_error(app: McpWSGIApp, host: str) -> None:
    data, headers = _tool_call()

    status, response_headers, body = call(
        app, environ(data, headers={**headers, "Host": host}, length=len(data))
    )

    assert (status, response_headers["content-type"]) == (403, "application/json")
    assert json.loads(body)["error"]["code"] == jsonrpc.INVALID_REQUEST


def test_a_threaded_server_holds_a_listen_stream_open_until_it_is_closed(app: McpWSGIApp) -> None:
    from tests.wire import modern_request

    message = modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    data = json.dumps(message).encode()
    env = environ(data, headers=modern_headers(message), length=len(data), **{"wsgi.multithread": True})
    started: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        started.update(status=status, headers=dict(headers))

    result = app(env, start_response)
    first = next(iter(result))  # the acknowledgement, while the stream stays open
    result.close()  # type: ignore[attr-defined]  # the client left: the stream and its loop end

    assert started["status"].startswith("200")
    assert started["headers"]["Content-Type"] == "text/event-stream"
    assert b"notifications/subscriptions/acknowledged" in first


def test_a_server_without_threads_refuses_listen_with_json(app: McpWSGIApp) -> None:
    from tests.wire import modern_request

    message = modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    data = json.dumps(message).encode()

    status, _headers, body = call(app, environ(data, headers=modern_headers(message), length=len(data)))

    assert status == 404
    assert json.loads(body)["error"]["code"] == jsonrpc.METHOD_NOT_FOUND


def test_a_progress_call_streams_from_the_workers_thread(app: McpWSGIApp) -> None:
    message = tool_request("test_tool_with_progress", {}, meta=None)
    message["params"]["_meta"]["progressToken"] = "p"
    data = json.dumps(message).encode()

    status, headers, body = call(app, environ(data, headers=modern_headers(message), length=len(data)))

    assert (status, headers["content-type"]) == (200, "text/event-stream")
    assert body.count(b"notifications/progress") >= 2
    assert b'"result"' in body


# ------------------------------------------------------- Python calls


@pytest.mark.urls("tests.echo_server")
def test_an_echo_tool_call_makes_fewer_python_calls_than_a_bare_django_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.calls import without_wire_hooks
    from tests.echo_server import FLOOR_URL, URL, echo_request

    without_wire_hooks(monkeypatch)
    data, headers = echo_request()
    counted = {}
    for name, app, path in (
        ("mcp", McpWSGIApp(get_wsgi_application()), URL),
        ("floor", get_wsgi_application(), FLOOR_URL),
    ):
        counted[name], (status, _headers, body) = warm_python_calls(app, path, data, headers)
        assert (status, json.loads(body)["result"]["content"]) == (200, [{"type": "text", "text": "hello"}])

    # The floor is a Django view that only decodes and encodes with msgspec,
    # behind the project's middleware.
    assert counted["mcp"] < counted["floor"]


@pytest.mark.urls("tests.echo_server")
def test_a_sync_orm_tool_call_starts_no_thread_and_runs_no_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.calls import started
    from tests.echo_server import ORM_URL, orm_request

    get_user_model().objects.create_user("wsgi-orm")
    app = McpWSGIApp(get_wsgi_application())
    data, headers = orm_request()
    call(app, environ(data, headers=headers, length=len(data), PATH_INFO=ORM_URL))  # warm

    with started(monkeypatch) as seen:
        answers = [
            call(app, environ(data, headers=headers, length=len(data), PATH_INFO=ORM_URL)) for _ in range(5)
        ]

    assert [(status, json.loads(body)["result"]["content"]) for status, _headers, body in answers] == [
        (200, [{"type": "text", "text": "wsgi-orm"}])
    ] * 5
    # As in a bare sync Django view: the tool ran in this thread, inline.
    assert (seen.threads, seen.loops) == (0, 0)


@pytest.mark.urls("tests.echo_server")
def test_a_sync_orm_tool_call_makes_no_more_python_calls_than_a_bare_django_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.calls import without_wire_hooks
    from tests.echo_server import ORM_FLOOR_URL, ORM_URL, orm_request

    without_wire_hooks(monkeypatch)
    get_user_model().objects.create_user("wsgi-orm")
    data, headers = orm_request()
    counted = {}
    for name, app, path in (
        ("mcp", McpWSGIApp(get_wsgi_application()), ORM_URL),
        ("floor", get_wsgi_application(), ORM_FLOOR_URL),
    ):
        counted[name], (status, _headers, body) = warm_python_calls(app, path, data, headers)
        content = json.loads(body)["result"]["content"]
        assert (status, content) == (200, [{"type": "text", "text": "wsgi-orm"}])

    # The same ten-row read in a bare sync view behind the project's
    # middleware; before the sync work was made inline, McpWSGIApp's
    # thread, loop and wake-ups cost it hundreds of calls more.
    assert counted["mcp"] < counted["floor"], counted


@pytest.mark.urls("tests.transports.test_bridge")
def test_an_async_tool_that_waits_still_answers_in_a_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.calls import started

    app = McpWSGIApp(get_wsgi_application())
    body = tool_request("waiting", {"text": "later"})
    data = json.dumps(body).encode()

    with started(monkeypatch) as seen:
        status, _headers, answer = call(
            app, environ(data, headers=modern_headers(body), length=len(data), PATH_INFO="/mcp")
        )

    assert (status, json.loads(answer)["result"]["content"]) == (200, [{"type": "text", "text": "later"}])
    # Only what awaits the event loop needs one: its thread, for this request.
    assert (seen.threads, seen.loops) == (1, 1)


def test_a_caller_known_by_its_session_cookie_starts_no_thread(
    app: McpWSGIApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.conf import settings
    from django.test import Client

    from tests.calls import started

    client = Client()
    client.force_login(get_user_model().objects.create_user("wsgi-cookie"))
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    data, headers = _tool_call()

    with started(monkeypatch) as seen:
        status, _headers, body = call(
            app, environ(data, headers={**headers, "Cookie": cookie}, length=len(data))
        )

    assert (status, json.loads(body)["result"]["isError"]) == (200, False)
    # The session and its user are read in this thread, inline.
    assert (seen.threads, seen.loops) == (0, 0)
