"""McpASGIApp (django_mcp/asgi.py): oversized MCP requests refused before they are read; the fast path.

The wrapper is called at the ASGI level with a fake ``receive`` that fails
the test if the body is read when it must not be, and a ``send`` that
records the answer. Requests within the limit are served by the fast path
(``direct=False``: Django's own ASGI handler) from the conformance server at
``/conformance/mcp``; the parity tests compare the fast path's answers with
the plain view's under Django's handler (``tests/direct_clients.py``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from typing import Any
from unittest.mock import ANY

import pytest
from django.core.asgi import get_asgi_application

from django_mcp.asgi import McpASGIApp
from django_mcp.protocol import jsonrpc
from django_mcp.transports._body import DRAIN_BYTES
from tests.wire import modern_headers, modern_request, tool_request

pytestmark = pytest.mark.timeout(30)

URL = "/conformance/mcp"
MiB = 1024 * 1024


def http_scope(
    path: str = URL, *, headers: Iterable[tuple[str, str]] = (), root_path: str = ""
) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": root_path + path,
        "raw_path": (root_path + path).encode(),
        "root_path": root_path,
        "query_string": b"",
        "headers": [(b"host", b"testserver")]
        + [(name.lower().encode(), value.encode("latin-1")) for name, value in headers],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }


async def never_read() -> dict[str, Any]:
    raise AssertionError("the body was read")


def sending(*chunks: bytes) -> Any:
    """Return a ``receive`` giving ``chunks`` as the body, then a client that stays until answered."""
    messages = [
        {"type": "http.request", "body": chunk, "more_body": index < len(chunks) - 1}
        for index, chunk in enumerate(chunks)
    ]

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop(0)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    return receive


class Lingering:
    """A client that sends nothing more, then leaves; notes when the app first reads."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        #: How many messages had been sent when the app first read.
        self.first_read_after: int | None = None

    async def receive(self) -> dict[str, Any]:
        if self.first_read_after is None:
            self.first_read_after = len(self.recorder.sent)
        return {"type": "http.disconnect"}


class Recorder:
    """An ASGI ``send`` that keeps what it is given, and an app that notes its calls."""

    def __init__(self) -> None:
        self.sent: list[Mapping[str, Any]] = []
        self.calls: list[tuple[dict[str, Any], Any]] = []

    async def send(self, message: Mapping[str, Any]) -> None:
        self.sent.append(message)

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.calls.append((scope, receive))

    @property
    def status(self) -> int:
        return int(self.sent[0]["status"])

    @property
    def headers(self) -> dict[bytes, bytes]:
        return dict(self.sent[0]["headers"])

    @property
    def body(self) -> Any:
        return json.loads(b"".join(m.get("body", b"") for m in self.sent[1:]))


def chunks(size: int, *, count: int | None = None) -> tuple[Any, list[int]]:
    """Return a ``receive`` giving ``size``-byte chunks (``count`` of them, or forever)."""
    given: list[int] = []

    async def receive() -> dict[str, Any]:
        given.append(size)
        last = count is not None and len(given) >= count
        return {"type": "http.request", "body": b" " * size, "more_body": not last}

    return receive, given


async def test_a_declared_body_over_the_limit_is_refused_before_it_is_read() -> None:
    recorder = Recorder()
    client = Lingering(recorder)
    scope = http_scope(headers=[("Content-Length", str(200 * MiB)), ("Content-Type", "application/json")])

    await McpASGIApp(recorder.app)(scope, client.receive, recorder.send)

    assert recorder.calls == []
    assert client.first_read_after is None  # past DRAIN_BYTES: never read, the connection closes
    assert recorder.status == 413
    assert recorder.headers[b"content-type"] == b"application/json"
    assert recorder.headers[b"connection"] == b"close"
    assert recorder.body == {"jsonrpc": "2.0", "error": {"code": jsonrpc.INVALID_REQUEST, "message": ANY}}


def uploading(recorder: Recorder, size: int, *, chunk: int = 64 * 1024) -> tuple[Any, list[int]]:
    """Return a ``receive`` sending a ``size``-byte body, and the answer messages sent by each read."""
    reads: list[int] = []
    left = size

    async def receive() -> dict[str, Any]:
        nonlocal left
        reads.append(len(recorder.sent))
        if left == 0:
            await asyncio.Event().wait()  # the client stays until answered
        part = min(chunk, left)
        left -= part
        return {"type": "http.request", "body": b" " * part, "more_body": left > 0}

    return receive, reads


@pytest.mark.parametrize("direct", [True, False])  # the fast path, the plain view's early check
async def test_a_refused_body_within_the_drain_bound_is_read_whole_before_its_answer(*, direct: bool) -> None:
    recorder = Recorder()
    receive, reads = uploading(recorder, 3 * MiB)
    scope = http_scope(headers=[("Content-Length", str(3 * MiB)), ("Content-Type", "application/json")])

    await McpASGIApp(recorder.app, direct=direct)(scope, receive, recorder.send)

    assert (recorder.calls, recorder.status) == ([], 413)
    # Every chunk read before the answer started: uvicorn closes on the answer's end.
    assert (len(reads), set(reads)) == (3 * MiB // (64 * 1024), {0})
    assert b"connection" not in recorder.headers  # read to its end: the connection stays usable
    assert recorder.body["error"]["code"] == jsonrpc.INVALID_REQUEST


async def test_a_client_waiting_for_100_continue_gets_its_413_unread() -> None:
    recorder = Recorder()
    scope = http_scope(
        headers=[
            ("Content-Length", str(3 * MiB)),
            ("Expect", "100-continue"),
            ("Content-Type", "application/json"),
        ]
    )

    await McpASGIApp(recorder.app)(scope, never_read, recorder.send)

    assert (recorder.status, recorder.headers[b"connection"]) == (413, b"close")


async def test_a_chunked_body_is_refused_as_soon_as_it_passes_the_limit(settings: Any) -> None:
    settings.MCP_MAX_REQUEST_SIZE = 1000
    recorder = Recorder()
    receive, given = chunks(300)  # endless: only the limit stops the reading
    scope = http_scope(headers=[("Content-Type", "application/json"), ("Accept", "application/json")])

    await McpASGIApp(recorder.app)(scope, receive, recorder.send)

    assert recorder.calls == []
    assert recorder.status == 413
    # 1200 bytes > 1000 when refused; then at most DRAIN_BYTES more are read.
    assert 4 < len(given) <= 4 + DRAIN_BYTES // 300 + 1
    assert recorder.body["error"]["code"] == jsonrpc.INVALID_REQUEST


async def test_a_chunked_body_within_the_limit_reaches_the_view_whole() -> None:
    body = json.dumps(modern_request("tools/list")).encode()
    headers = [("Content-Type", "application/json"), *modern_headers(modern_request("tools/list")).items()]
    receive = sending(body[:10], body[10:20], body[20:])

    recorder = Recorder()
    await McpASGIApp(get_asgi_application())(http_scope(headers=headers), receive, recorder.send)

    assert recorder.status == 200
    assert "tools" in recorder.body["result"]


@pytest.mark.parametrize(
    ("path", "length"),
    [
        (URL, 100),  # an MCP endpoint, declared within the limit (direct=False)
        ("/admin/login/", 200 * MiB),  # not an MCP endpoint: Django's business
        ("/no/such/path", 200 * MiB),
    ],
)
async def test_other_requests_pass_through_untouched(path: str, length: int) -> None:
    recorder = Recorder()
    scope = http_scope(path, headers=[("Content-Length", str(length))])

    await McpASGIApp(recorder.app, direct=path != URL)(scope, never_read, recorder.send)

    assert recorder.calls == [(scope, never_read)]
    assert recorder.sent == []


async def test_the_fast_path_serves_an_endpoint_without_the_wrapped_app() -> None:
    body = json.dumps(modern_request("tools/list")).encode()
    headers = [("Content-Type", "application/json"), *modern_headers(modern_request("tools/list")).items()]
    receive = sending(body)

    recorder = Recorder()
    await McpASGIApp(recorder.app)(http_scope(headers=headers), receive, recorder.send)

    assert recorder.calls == []
    assert recorder.status == 200
    assert "tools" in recorder.body["result"]


@pytest.mark.parametrize("kind", ["websocket", "lifespan"])
async def test_other_connection_types_pass_through(kind: str) -> None:
    recorder = Recorder()
    scope = {"type": kind, "path": URL}

    await McpASGIApp(recorder.app)(scope, never_read, recorder.send)

    assert recorder.calls == [(scope, never_read)]


async def test_an_endpoint_under_a_root_path_is_recognised() -> None:
    recorder = Recorder()
    scope = http_scope(headers=[("Content-Length", str(200 * MiB))], root_path="/prefix")

    await McpASGIApp(recorder.app)(scope, Lingering(recorder).receive, recorder.send)

    assert (recorder.calls, recorder.status) == ([], 413)


async def test_a_client_gone_while_sending_gets_no_answer() -> None:
    recorder = Recorder()
    messages = [{"type": "http.request", "body": b"{", "more_body": True}, {"type": "http.disconnect"}]

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    scope = http_scope(headers=[("Content-Type", "application/json"), ("Accept", "application/json")])
    await McpASGIApp(recorder.app)(scope, receive, recorder.send)

    assert (recorder.calls, recorder.sent) == ([], [])


async def test_a_client_gone_while_its_request_runs_cancels_it(monkeypatch: Any) -> None:
    from django_mcp.transports._endpoint import Endpoint

    started, cancelled = asyncio.Event(), asyncio.Event()

    async def slow_view(self: Any, exchange: Any) -> Any:
        await exchange.body.read(MiB)
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        raise AssertionError("not cancelled")

    monkeypatch.setattr(Endpoint, "serve", slow_view)
    body = json.dumps(modern_request("tools/list")).encode()

    async def receive() -> dict[str, Any]:
        if not started.is_set():
            return {"type": "http.request", "body": body, "more_body": False}
        await started.wait()
        return {"type": "http.disconnect"}

    recorder = Recorder()
    # Returns normally: the cancellation was the fast path's own, not its caller's.
    await McpASGIApp(recorder.app)(http_scope(), receive, recorder.send)

    assert cancelled.is_set()
    assert recorder.sent == []
    current = asyncio.current_task()
    assert current is not None and current.cancelling() == 0


async def test_a_cancellation_from_outside_still_propagates(monkeypatch: Any) -> None:
    from django_mcp.transports._endpoint import Endpoint

    async def slow_view(self: Any, exchange: Any) -> Any:
        await exchange.body.read(MiB)
        await asyncio.sleep(30)

    monkeypatch.setattr(Endpoint, "serve", slow_view)
    body = json.dumps(modern_request("tools/list")).encode()
    receive = sending(body)

    recorder = Recorder()
    task = asyncio.ensure_future(McpASGIApp(recorder.app)(http_scope(), receive, recorder.send))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


# ------------------------------------------------------------ fast path parity


async def _both(method: str, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """Return the plain view's and the fast path's answers to the same request."""
    from django.test import AsyncClient

    from tests.direct_clients import ASGIAppClient

    return (
        await getattr(AsyncClient(), method)(*args, **kwargs),
        await getattr(ASGIAppClient(), method)(*args, **kwargs),
    )


#: Headers Django's middleware adds under Django's handler: the fast path runs none.
MIDDLEWARE_HEADERS = {
    "content-length",
    "vary",
    "referrer-policy",
    "cross-origin-opener-policy",
    "x-frame-options",
}


def _headers(response: Any) -> dict[str, str]:
    return {name.lower(): value for name, value in response.items() if name.lower() not in MIDDLEWARE_HEADERS}


async def test_the_fast_path_answers_with_the_views_status_headers_and_body() -> None:
    body = modern_request("tools/list")
    view, fast = await _both(
        "post", URL, data=json.dumps(body), content_type="application/json", headers=modern_headers(body)
    )

    assert (fast.status_code, _headers(fast), fast.content) == (
        view.status_code,
        _headers(view),
        view.content,
    )
    assert "x-content-type-options" in _headers(fast)  # the endpoint's own, not SecurityMiddleware's


@pytest.mark.parametrize("host", ["evil.example.com", "evil.example.com:80"])
async def test_a_disallowed_host_is_refused_alike(host: str) -> None:
    body = modern_request("tools/list")
    view, fast = await _both(
        "post",
        URL,
        data=json.dumps(body),
        content_type="application/json",
        headers={**modern_headers(body), "Host": host, "Origin": f"http://{host}"},
    )

    assert (fast.status_code, _headers(fast), fast.content) == (
        view.status_code,
        _headers(view),
        view.content,
    )
    assert 400 <= fast.status_code < 500


@pytest.mark.django_db(transaction=True)
async def test_the_session_cookie_identifies_the_caller_on_the_fast_path() -> None:
    from asgiref.sync import sync_to_async
    from django.contrib.auth import get_user_model

    from tests.direct_clients import ASGIAppClient
    from tests.transports.conftest import Wire

    user = await sync_to_async(get_user_model().objects.create_user)("fast-caller", password="pw")
    owner = ASGIAppClient()
    await owner.aforce_login(user)
    session = await Wire(owner).initialize()

    stranger = await ASGIAppClient().delete(URL, headers={"Mcp-Session-Id": session})
    own = await owner.delete(URL, headers={"Mcp-Session-Id": session})

    assert (stranger.status_code, own.status_code) == (404, 204)


# ------------------------------------------------------- no Django objects


@pytest.fixture
def django_objects(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Note every Django request and response constructed while the test runs."""
    from django.http import HttpRequest
    from django.http.response import HttpResponseBase

    built: list[str] = []
    for cls in (HttpRequest, HttpResponseBase):
        original = cls.__init__

        def noting(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> None:
            built.append(type(self).__name__)
            _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", noting)
    return built


async def test_an_echo_tool_call_builds_no_django_request_or_response(django_objects: list[str]) -> None:
    body = tool_request("test_simple_text", {})
    headers = [("Content-Type", "application/json"), *modern_headers(body).items()]
    receive = sending(json.dumps(body).encode())

    recorder = Recorder()
    app = McpASGIApp(recorder.app)
    django_objects.clear()  # constructing the app may build what Django's URLconf needs
    await app(http_scope(headers=headers), receive, recorder.send)

    assert recorder.status == 200
    text = "This is a simple text response for testing."
    assert recorder.body["result"]["content"] == [{"type": "text", "text": text}]
    assert django_objects == []


# ------------------------------------------------------- Python calls


@pytest.mark.urls("tests.echo_server")
async def test_an_echo_tool_call_makes_at_most_90_python_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.calls import apython_calls, without_wire_hooks
    from tests.echo_server import URL, echo_request

    without_wire_hooks(monkeypatch)
    app = McpASGIApp(get_asgi_application())
    data, headers = echo_request()
    scope = http_scope(URL, headers=[("Content-Type", "application/json"), *headers.items()])

    async def once() -> Recorder:
        receive = sending(data)

        recorder = Recorder()
        await app(dict(scope), receive, recorder.send)
        return recorder

    for _ in range(3):  # warm: caches, the URL's endpoint, the Host verdict
        await once()
    calls, recorder = await apython_calls(once)

    assert recorder.body["result"]["content"] == [{"type": "text", "text": "hello"}]
    # The receive() and send() above are a few of them.
    assert calls <= 90


async def test_a_content_length_of_non_ascii_digits_declares_no_length() -> None:
    # "²" (a latin-1 header byte) is a digit to str.isdigit but not to int().
    body = json.dumps(tool_request("test_simple_text", {})).encode()
    scope = http_scope(headers=[("Content-Type", "application/json"), ("Content-Length", "\xb2")])
    receive = sending(body)

    recorder = Recorder()
    await McpASGIApp(recorder.app)(scope, receive, recorder.send)

    assert recorder.status == 400  # the MCP headers are missing: answered, not a crash
    assert recorder.body["error"]["code"] == jsonrpc.HEADER_MISMATCH


# ------------------------------------------------------- threads


@pytest.mark.urls("tests.echo_server")
async def test_an_async_echo_tool_call_takes_no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    from django_mcp.transports._threads import Lease
    from tests.calls import started
    from tests.echo_server import URL as ECHO_URL
    from tests.echo_server import echo_request

    app = McpASGIApp(get_asgi_application())
    data, headers = echo_request()
    scope = http_scope(ECHO_URL, headers=[("Content-Type", "application/json"), *headers.items()])
    submitted: list[object] = []
    original = Lease.submit

    def counted(lease: Lease, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        submitted.append(fn)
        return original(lease, fn, *args, **kwargs)

    monkeypatch.setattr(Lease, "submit", counted)
    await app(dict(scope), sending(data), Recorder().send)  # warm
    submitted.clear()

    with started(monkeypatch) as seen:
        recorders = [Recorder() for _ in range(5)]
        for recorder in recorders:
            await app(dict(scope), sending(data), recorder.send)

    assert [recorder.body["result"]["content"] for recorder in recorders] == [
        [{"type": "text", "text": "hello"}]
    ] * 5
    # No sync work: no hop to a thread, none taken, none started.
    assert (submitted, seen.threads, seen.loops) == ([], 0, 0)


@pytest.mark.django_db(transaction=True)
@pytest.mark.urls("tests.echo_server")
async def test_a_sync_orm_tool_call_makes_one_hop_to_a_thread_lent_from_the_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    from asgiref.sync import sync_to_async
    from django.contrib.auth import get_user_model

    import tests.echo_server
    from django_mcp.transports._threads import Lease
    from tests.calls import started
    from tests.echo_server import ORM_URL, orm_request

    await sync_to_async(get_user_model().objects.create_user)("asgi-orm")
    read = tests.echo_server.first_usernames
    readers: list[str] = []

    def reading() -> str:
        readers.append(threading.current_thread().name)
        return read()

    monkeypatch.setattr(tests.echo_server, "first_usernames", reading)
    app = McpASGIApp(get_asgi_application())
    data, headers = orm_request()
    scope = http_scope(ORM_URL, headers=[("Content-Type", "application/json"), *headers.items()])
    hops: list[object] = []
    original = Lease.submit

    def counted(lease: Lease, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        hops.append(fn)
        return original(lease, fn, *args, **kwargs)

    monkeypatch.setattr(Lease, "submit", counted)
    await app(dict(scope), sending(data), Recorder().send)  # warm: the pool's thread is started once
    hops.clear()
    readers.clear()

    with started(monkeypatch) as seen:
        recorders = [Recorder() for _ in range(5)]
        for recorder in recorders:
            await _thread_given_back()
            await app(dict(scope), sending(data), recorder.send)

    assert [recorder.body["result"]["content"] for recorder in recorders] == [
        [{"type": "text", "text": "asgi-orm"}]
    ] * 5
    # One hop per request, to a thread lent from the pool: none started.
    assert (len(hops), seen.threads, seen.loops) == (5, 0, 0)
    assert len(readers) == 5
    assert all(name.startswith("mcp-request") for name in readers), readers


async def _thread_given_back() -> None:
    """Wait until the last request's thread is back in the pool (it goes back once its work is done)."""
    from django_mcp.transports._threads import REQUEST_THREADS

    for _ in range(500):
        if REQUEST_THREADS._idle:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the request's thread never came back to the pool")
