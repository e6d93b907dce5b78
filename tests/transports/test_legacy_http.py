"""The 2025-11-25 wire: ``initialize`` sessions on the same endpoint.

Results carry none of the 2026-07-28 fields (``resultType``, ``ttlMs``,
``cacheScope``, server-info ``_meta``); ``ping`` and ``logging/setLevel``
answer exactly ``{}``; unknown or deleted sessions are 404, and so are
sessions another caller opened. Sessions are bounded (size, sessions per
caller), changed atomically, and have at most one GET stream. The streaming
server-to-client round trip (``elicitation/create`` on the tools/call
stream, answered by a second POST) runs against the live uvicorn server.
"""

from __future__ import annotations

import asyncio
import gc
import json
import re
from typing import Any
from unittest.mock import ANY

import httpx
import pytest
from django.core.cache import caches

import django_mcp
from django_mcp import ratelimit
from django_mcp.dispatcher import relay, subscriptions
from django_mcp.dispatcher.admission import OPEN_STREAMS
from django_mcp.dispatcher.sessions import LegacySession, stored_size
from django_mcp.events import EventBackend, ForwardFailed
from django_mcp.protocol import jsonrpc
from testproject.conformance.mcp import ConformanceServer
from tests.fake_backends import RETRY_AFTER, DownBackend

LEGACY = "2025-11-25"
SERVER_INFO = {"name": "django-mcp-conformance", "version": "0.1.0"}
MODERN_ONLY_KEYS = {"resultType", "ttlMs", "cacheScope", "_meta"}


def initialize_body(version: str = LEGACY, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": capabilities or {},
            "clientInfo": {"name": "legacy-wire-tests", "version": "1.0.0"},
        },
    }


# ------------------------------------------------------------ handshake


async def test_initialize_opens_a_session_without_modern_fields(wire: Any) -> None:
    response = await wire.post(initialize_body(), drop=("Mcp-Method",))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    session_id = response["Mcp-Session-Id"]
    assert re.fullmatch(r"[\x21-\x7e]{16,}", session_id)
    assert json.loads(response.content) == {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {
            "protocolVersion": LEGACY,
            "capabilities": {
                "tools": {"listChanged": True},
                "resources": {"listChanged": True, "subscribe": True},
                "prompts": {"listChanged": True},
                "completions": {},
                "logging": {},
            },
            "serverInfo": SERVER_INFO,
        },
    }


async def test_initialize_with_harness_headers_is_still_a_handshake(wire: Any) -> None:
    response = await wire.post(
        initialize_body(), headers={"MCP-Protocol-Version": LEGACY, "Mcp-Method": "initialize"}
    )

    assert response.status_code == 200
    assert "Mcp-Session-Id" in response


@pytest.mark.parametrize(
    ("asked", "agreed"), [("2025-06-18", "2025-06-18"), ("2024-11-05", LEGACY), ("9999", LEGACY)]
)
async def test_initialize_negotiates_a_legacy_version(wire: Any, asked: str, agreed: str) -> None:
    response = await wire.post(initialize_body(asked), drop=("Mcp-Method",))

    assert json.loads(response.content)["result"]["protocolVersion"] == agreed


async def test_session_ids_are_unique(wire: Any) -> None:
    first = await wire.initialize()
    second = await wire.initialize()

    assert first != second


async def test_initialize_without_capabilities_is_invalid_params(wire: Any) -> None:
    body = initialize_body()
    del body["params"]["capabilities"]

    response = await wire.post(body, drop=("Mcp-Method",))

    assert "Mcp-Session-Id" not in response
    assert json.loads(response.content) == {
        "jsonrpc": "2.0",
        "id": 0,
        "error": {"code": jsonrpc.INVALID_PARAMS, "message": ANY},
    }


async def test_initialized_notification_is_accepted_with_202(wire: Any) -> None:
    session_id = await wire.initialize()

    response = await wire.post(
        {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=wire.session_headers(session_id)
    )

    assert response.status_code == 202
    assert response.content == b""


async def test_second_initialize_in_a_session_is_refused(wire: Any) -> None:
    session_id = await wire.initialize()

    status, body = await wire.legacy(session_id, "initialize", initialize_body()["params"])

    assert status == 400
    assert body["error"]["code"] == jsonrpc.INVALID_REQUEST


async def test_request_without_session_or_meta_is_400(wire: Any) -> None:
    response = await wire.post({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, drop=("Mcp-Method",))

    assert response.status_code == 400
    assert json.loads(response.content) == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": jsonrpc.INVALID_REQUEST, "message": ANY},
    }


async def test_legacy_version_header_without_session_or_meta_is_400(wire: Any) -> None:
    response = await wire.post(
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, headers={"MCP-Protocol-Version": LEGACY}
    )

    assert response.status_code == 400


# -------------------------------------------------------------- results


async def test_list_results_carry_no_modern_fields(wire: Any) -> None:
    session_id = await wire.initialize()

    for method in ("tools/list", "prompts/list", "resources/list", "resources/templates/list"):
        status, body = await wire.legacy(session_id, method)
        assert status == 200
        assert not MODERN_ONLY_KEYS & set(body["result"]), method


async def test_tool_call_result_carries_no_modern_fields(wire: Any) -> None:
    session_id = await wire.initialize()

    status, body = await wire.legacy(session_id, "tools/call", {"name": "test_simple_text", "arguments": {}})

    assert (status, body) == (
        200,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "content": [{"type": "text", "text": "This is a simple text response for testing."}],
                "isError": False,
            },
        },
    )


async def test_read_result_carries_no_modern_fields(wire: Any) -> None:
    session_id = await wire.initialize()

    _, body = await wire.legacy(session_id, "resources/read", {"uri": "test://static-text"})

    assert body["result"] == {
        "contents": [
            {
                "uri": "test://static-text",
                "text": "This is the content of the static text resource.",
                "mimeType": "text/plain",
            }
        ]
    }


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("ping", None),
        ("logging/setLevel", {"level": "info"}),
        ("resources/subscribe", {"uri": "test://watched-resource"}),
        ("resources/unsubscribe", {"uri": "test://watched-resource"}),
    ],
)
async def test_session_utilities_answer_exactly_an_empty_object(
    wire: Any, method: str, params: dict[str, Any] | None
) -> None:
    session_id = await wire.initialize()

    status, body = await wire.legacy(session_id, method, params, request_id="u-1")

    assert (status, body) == (200, {"jsonrpc": "2.0", "id": "u-1", "result": {}})


async def test_set_level_with_an_unknown_level_is_invalid_params(wire: Any) -> None:
    session_id = await wire.initialize()

    _, body = await wire.legacy(session_id, "logging/setLevel", {"level": "loud"})

    assert body == {"jsonrpc": "2.0", "id": 1, "error": {"code": jsonrpc.INVALID_PARAMS, "message": ANY}}


async def test_set_level_makes_later_calls_stream_log_messages(wire: Any) -> None:
    session_id = await wire.initialize()
    await wire.legacy(session_id, "logging/setLevel", {"level": "info"})

    response, messages = await wire.stream(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "test_tool_with_logging"}},
        headers=wire.session_headers(session_id),
        drop=("Mcp-Method", "Mcp-Name"),
    )

    assert response["Content-Type"].startswith("text/event-stream")
    assert [m.get("method") for m in messages] == ["notifications/message"] * 3 + [None]
    assert not MODERN_ONLY_KEYS & set(messages[-1]["result"])


async def test_legacy_progress_is_streamed(wire: Any) -> None:
    session_id = await wire.initialize()

    response, messages = await wire.stream(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "test_tool_with_progress", "_meta": {"progressToken": "p"}},
        },
        headers=wire.session_headers(session_id),
        drop=("Mcp-Method", "Mcp-Name"),
    )

    assert [m.get("method") for m in messages] == ["notifications/progress"] * 3 + [None]


async def test_resource_not_found_uses_the_legacy_code(wire: Any) -> None:
    session_id = await wire.initialize()

    status, body = await wire.legacy(session_id, "resources/read", {"uri": "test://nope"})

    assert (status, body) == (
        200,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": jsonrpc.LEGACY_RESOURCE_NOT_FOUND,
                "message": ANY,
                "data": {"uri": "test://nope"},
            },
        },
    )


@pytest.mark.parametrize("method", ["server/discover", "subscriptions/listen", "unknown/method"])
async def test_modern_only_and_unknown_methods_are_not_found_in_a_session(wire: Any, method: str) -> None:
    session_id = await wire.initialize()

    _, body = await wire.legacy(session_id, method, {})

    assert body == {"jsonrpc": "2.0", "id": 1, "error": {"code": jsonrpc.METHOD_NOT_FOUND, "message": ANY}}


async def test_client_response_post_is_accepted_with_202(wire: Any) -> None:
    session_id = await wire.initialize()

    response = await wire.post(
        {"jsonrpc": "2.0", "id": "nobody-asked", "result": {}}, headers=wire.session_headers(session_id)
    )

    assert response.status_code == 202


class _Forwarding(EventBackend):
    """An event backend reaching other workers, with a fixed outcome."""

    forwards = True

    def __init__(self, *, outcome: bool | Exception) -> None:
        self.outcome = outcome
        self.forwarded: list[Any] = []

    async def forward(self, message: Any) -> bool:
        self.forwarded.append(message)
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


@pytest.mark.parametrize(
    ("outcome", "status"), [(True, 202), (False, 202), (ForwardFailed("Redis did not take it"), 503)]
)
@pytest.mark.parametrize(
    ("message", "forwarded"),
    [
        (
            {"jsonrpc": "2.0", "id": "elsewhere", "result": {"action": "decline"}},
            {"kind": "answer", "id": "elsewhere", "result": {"action": "decline"}, "error": None},
        ),
        (
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}},
            {"kind": "cancel", "id": 5},
        ),
    ],
)
async def test_an_answer_or_cancellation_for_another_worker_is_forwarded_or_refused(
    wire: Any,
    monkeypatch: pytest.MonkeyPatch,
    outcome: Any,
    status: int,
    message: dict[str, Any],
    forwarded: dict[str, Any],
) -> None:
    session_id = await wire.initialize()
    backend = _Forwarding(outcome=outcome)
    monkeypatch.setattr(relay, "get_backend", lambda: backend)

    response = await wire.post(message, headers=wire.session_headers(session_id))

    assert response.status_code == status
    assert backend.forwarded == [{**forwarded, "server": KEY, "session": session_id}]
    if status == 503:
        assert response["Retry-After"] == "1"
        assert json.loads(response.content) == {
            "jsonrpc": "2.0",
            "error": {"code": jsonrpc.INTERNAL_ERROR, "message": ANY},
        }


async def test_unsupported_version_header_in_a_session_is_400(wire: Any) -> None:
    session_id = await wire.initialize()

    response = await wire.post(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={**wire.session_headers(session_id), "MCP-Protocol-Version": "1999-01-01"},
    )

    assert response.status_code == 400


# ------------------------------------------------------------- lifetime


async def test_unknown_session_is_404(wire: Any) -> None:
    response = await wire.post(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=wire.session_headers("no-such-session")
    )

    assert response.status_code == 404
    assert json.loads(response.content) == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": jsonrpc.INVALID_REQUEST, "message": ANY},
    }


async def test_delete_ends_the_session(wire: Any, async_client: Any) -> None:
    session_id = await wire.initialize()

    deleted = await async_client.delete("/conformance/mcp", headers={"Mcp-Session-Id": session_id})
    after = await wire.post(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=wire.session_headers(session_id)
    )
    again = await async_client.delete("/conformance/mcp", headers={"Mcp-Session-Id": session_id})

    assert 200 <= deleted.status_code < 300
    assert after.status_code == 404
    assert again.status_code == 404


async def test_get_of_an_unknown_session_is_404(async_client: Any) -> None:
    response = await async_client.get(
        "/conformance/mcp", headers={"Mcp-Session-Id": "no-such-session", "Accept": "text/event-stream"}
    )

    assert response.status_code == 404


async def test_get_without_accepting_sse_is_406(wire: Any, async_client: Any) -> None:
    session_id = await wire.initialize()

    response = await async_client.get(
        "/conformance/mcp", headers={"Mcp-Session-Id": session_id, "Accept": "application/json"}
    )

    assert response.status_code == 406
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == {
        "jsonrpc": "2.0",
        "error": {"code": jsonrpc.INVALID_REQUEST, "message": ANY},
    }


@pytest.mark.parametrize("debug", [False, True])
async def test_session_replies_without_a_body_carry_no_content_type(
    wire: Any, async_client: Any, settings: Any, debug: Any
) -> None:
    settings.DEBUG = debug
    session_id = await wire.initialize()
    headers = wire.session_headers(session_id)

    notified = await wire.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    answered = await wire.post({"jsonrpc": "2.0", "id": "nobody-asked", "result": {}}, headers=headers)
    deleted = await async_client.delete("/conformance/mcp", headers={"Mcp-Session-Id": session_id})

    assert [(r.status_code, r.content) for r in (notified, answered, deleted)] == [
        (202, b""),
        (202, b""),
        (204, b""),
    ]
    assert [r.has_header("Content-Type") for r in (notified, answered, deleted)] == [False] * 3


def test_wsgi_get_of_a_session_is_405(client: Any) -> None:
    body = initialize_body()
    started = client.post(
        "/conformance/mcp",
        data=json.dumps(body),
        content_type="application/json",
        headers={"Accept": "application/json"},
    )

    response = client.get(
        "/conformance/mcp",
        headers={"Mcp-Session-Id": started["Mcp-Session-Id"], "Accept": "text/event-stream"},
    )

    assert response.status_code == 405


# ------------------------------------------------ streaming round trip (live)

WAIT = 10.0  # seconds: upper bound of every live wait


async def _messages(lines: Any) -> Any:
    async for line in lines:
        if line.startswith("data:") and line[5:].strip():
            yield json.loads(line[5:])


async def _live_initialize(
    client: httpx.AsyncClient, url: str, capabilities: dict[str, Any]
) -> dict[str, str]:
    response = await client.post(
        url,
        json=initialize_body(capabilities=capabilities),
        headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": LEGACY},
    )
    assert response.status_code == 200
    headers = {
        "Accept": "application/json, text/event-stream",
        "Mcp-Session-Id": response.headers["mcp-session-id"],
        "MCP-Protocol-Version": LEGACY,
    }
    initialized = await client.post(
        url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
    )
    assert initialized.status_code == 202
    return headers


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            {"result": {"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}}},
            {
                "content": [
                    {
                        "type": "text",
                        "text": "User response: action=accept, "
                        'content={"username":"ada","email":"ada@example.com"}',
                    }
                ],
                "isError": False,
            },
        ),
        ({"error": {"code": -1, "message": "user closed the dialog"}}, None),
    ],
)
async def test_legacy_elicitation_round_trip_over_the_tool_stream(
    live_server_url: str, wire_schema: Any, answer: dict[str, Any], expected: dict[str, Any] | None
) -> None:
    url = f"{live_server_url}/conformance/mcp"
    async with httpx.AsyncClient(timeout=WAIT) as client:
        headers = await _live_initialize(client, url, {"elicitation": {}})
        call = {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "test_elicitation", "arguments": {"message": "Who are you?"}},
        }

        async def run() -> tuple[dict[str, Any], dict[str, Any]]:
            async with client.stream("POST", url, json=call, headers=headers) as stream:
                assert stream.status_code == 200
                assert stream.headers["content-type"].startswith("text/event-stream")
                messages = _messages(stream.aiter_lines())
                asked = await anext(messages)
                assert asked["method"] == "elicitation/create"
                assert asked["params"]["message"] == "Who are you?"
                assert set(asked["params"]["requestedSchema"]["properties"]) == {"username", "email"}
                reply = await client.post(
                    url, json={"jsonrpc": "2.0", "id": asked["id"], **answer}, headers=headers
                )
                assert reply.status_code == 202
                return asked, await anext(messages)

        asked, final = await asyncio.wait_for(run(), WAIT)

    wire_schema.record(asked, era="legacy")
    wire_schema.record(final, era="legacy", method="tools/call")
    assert isinstance(asked["id"], str | int)
    assert final["id"] == 5
    if expected is None:
        assert final["error"]["code"] == jsonrpc.INTERNAL_ERROR
    else:
        assert final["result"] == expected


async def test_legacy_get_stream_delivers_list_changes_without_subscription_ids(
    live_server_url: str, wire_schema: Any
) -> None:
    url = f"{live_server_url}/conformance/mcp"
    async with httpx.AsyncClient(timeout=WAIT) as client:
        headers = await _live_initialize(client, url, {})

        async def run() -> dict[str, Any]:
            get_headers = {**headers, "Accept": "text/event-stream"}
            async with client.stream("GET", url, headers=get_headers) as stream:
                assert stream.status_code == 200
                assert stream.headers["content-type"].startswith("text/event-stream")
                lines = stream.aiter_lines()
                # The first line is a comment sent once the stream listens.
                assert (await anext(lines)).startswith(":")
                trigger = {
                    "jsonrpc": "2.0",
                    "id": 9,
                    "method": "tools/call",
                    "params": {"name": "test_trigger_tool_change", "arguments": {}},
                }
                called = await client.post(url, json=trigger, headers=headers)
                assert called.status_code == 200
                return await anext(_messages(lines))

        changed = await asyncio.wait_for(run(), WAIT)

    wire_schema.record(changed, era="legacy")
    assert changed == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


# ----------------------------------------------------------------- owners

URL = "/conformance/mcp"
KEY = "testproject.conformance.mcp.ConformanceServer"


class TokenUser:
    """Just enough of a Django user: authenticated, with a primary key."""

    is_authenticated = True

    def __init__(self, pk: int) -> None:
        self.pk = pk


class BearerUsers:
    """Authenticate ``Authorization: Bearer user-<pk>`` as user ``pk``."""

    def authenticate(self, request: Any) -> TokenUser | None:
        value = request.headers.get("Authorization", "")
        if value.startswith("Bearer user-"):
            return TokenUser(int(value.removeprefix("Bearer user-")))
        return None


@pytest.fixture
def bearer_users(settings: Any) -> None:
    # pytest registers this module in sys.modules: import_string finds it.
    settings.MCP_AUTHENTICATION_BACKENDS = [f"{__name__}.BearerUsers"]


def as_user(pk: int | None) -> dict[str, str]:
    return {} if pk is None else {"Authorization": f"Bearer user-{pk}"}


async def open_session(wire: Any, *, user: int | None = None) -> str:
    response = await wire.post(initialize_body(), headers=as_user(user), drop=("Mcp-Method",))
    assert response.status_code == 200
    return str(response["Mcp-Session-Id"])


@pytest.mark.parametrize(("owner", "intruder"), [(1, 2), (1, None), (None, 2)])
async def test_a_session_is_unknown_to_another_caller(
    wire: Any, async_client: Any, bearer_users: None, owner: int | None, intruder: int | None
) -> None:
    session_id = await open_session(wire, user=owner)
    theirs = {**wire.session_headers(session_id), **as_user(intruder)}

    set_level = {"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}}
    posted = await wire.post(set_level, headers=theirs, drop=("Mcp-Method",))
    streamed = await async_client.get(URL, headers={**theirs, "Accept": "text/event-stream"})
    deleted = await async_client.delete(URL, headers=theirs)
    pinged = await wire.post(
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        headers={**wire.session_headers(session_id), **as_user(owner)},
        drop=("Mcp-Method",),
    )

    assert (posted.status_code, streamed.status_code, deleted.status_code) == (404, 404, 404)
    assert json.loads(posted.content)["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert json.loads(deleted.content)["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert pinged.status_code == 200
    owner_id = None if owner is None else f"user:{owner}"
    session = await LegacySession.load(session_id, server=KEY, owner=owner_id)
    assert session is not None
    assert session.log_level is None


# ------------------------------------------------------------------ bounds


async def test_initialize_storing_more_than_the_session_size_is_invalid_params(
    wire: Any, settings: Any
) -> None:
    settings.MCP_MAX_SESSION_SIZE = 1024
    body = initialize_body(capabilities={"experimental": {"blob": "x" * 2000}})

    response = await wire.post(body, drop=("Mcp-Method",))

    assert response.status_code == 200
    assert "Mcp-Session-Id" not in response
    assert json.loads(response.content) == {
        "jsonrpc": "2.0",
        "id": 0,
        "error": {"code": jsonrpc.INVALID_PARAMS, "message": ANY},
    }


async def test_subscriptions_beyond_the_session_size_are_invalid_params(wire: Any, settings: Any) -> None:
    settings.MCP_MAX_SESSION_SIZE = 600
    session_id = await wire.initialize()

    codes = []
    for n in range(8):
        _, body = await wire.legacy(
            session_id, "resources/subscribe", {"uri": f"test://template/{n}{'x' * 100}/data"}
        )
        codes.append(body["error"]["code"] if "error" in body else None)

    assert codes[0] is None
    assert codes[-1] == jsonrpc.INVALID_PARAMS
    session = await LegacySession.load(session_id, server=KEY)
    assert session is not None
    assert stored_size(session.capabilities, session.client_info, session.subscriptions) <= 600


async def test_initialize_past_the_sessions_per_client_limit_is_429(
    wire: Any, settings: Any, bearer_users: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.MCP_MAX_SESSIONS_PER_CLIENT = 3
    settings.MCP_SESSION_TIMEOUT = 3600
    caches["default"].clear()
    now = [3600.0 * 500_000 + 100]  # 100 s into a window
    monkeypatch.setattr(ratelimit, "_now", lambda: now[0])

    answers = [await wire.post(initialize_body(), drop=("Mcp-Method",)) for _ in range(4)]
    other_caller = await wire.post(initialize_body(), headers=as_user(7), drop=("Mcp-Method",))
    now[0] += 3600
    next_window = await wire.post(initialize_body(), drop=("Mcp-Method",))

    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    refused = answers[-1]
    assert "Mcp-Session-Id" not in refused
    assert refused["Retry-After"] == "3500"
    assert json.loads(refused.content) == {
        "jsonrpc": "2.0",
        "id": 0,
        "error": {"code": jsonrpc.INVALID_REQUEST, "message": ANY},
    }
    assert other_caller.status_code == 200
    assert next_window.status_code == 200


# ---------------------------------------------------------------- atomicity


@pytest.mark.usefixtures("patient_lock")
async def test_concurrent_subscribe_requests_keep_every_subscription(wire: Any) -> None:
    session_id = await wire.initialize()

    answers = await asyncio.gather(
        *(
            wire.legacy(session_id, "resources/subscribe", {"uri": f"test://template/{n}/data"}, request_id=n)
            for n in range(30)
        )
    )

    assert all(status == 200 and body["result"] == {} for status, body in answers)
    stored = await LegacySession.load(session_id, server=KEY)
    assert stored is not None
    assert sorted(stored.subscriptions) == sorted(f"test://template/{n}/data" for n in range(30))


async def test_a_subscribe_request_overtaken_by_delete_does_not_resurrect_the_session(
    wire: Any, async_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = await wire.initialize()
    loaded, deleted = asyncio.Event(), asyncio.Event()
    subscribe = LegacySession.subscribe

    async def overtaken(self: LegacySession, uri: str) -> None:
        loaded.set()  # the request holds the session it loaded...
        await deleted.wait()  # ...while a DELETE ends it
        await subscribe(self, uri)

    monkeypatch.setattr(LegacySession, "subscribe", overtaken)

    async def delete() -> Any:
        await asyncio.wait_for(loaded.wait(), WAIT)
        response = await async_client.delete(URL, headers={"Mcp-Session-Id": session_id})
        deleted.set()
        return response

    (status, _), gone = await asyncio.wait_for(
        asyncio.gather(
            wire.legacy(session_id, "resources/subscribe", {"uri": "test://template/1/data"}), delete()
        ),
        WAIT,
    )

    assert (status, gone.status_code) == (200, 204)
    assert await LegacySession.load(session_id, server=KEY) is None


# -------------------------------------------------------------- GET streams

WAIT_STREAM = 5.0  # seconds: bound of every in-process stream wait


def stream_headers(wire: Any, session_id: str) -> dict[str, str]:
    return {**wire.session_headers(session_id), "Accept": "text/event-stream"}


async def rest_of(chunks: Any) -> list[bytes]:
    return [chunk async for chunk in chunks]


async def test_a_second_get_stream_of_a_session_is_409_while_the_first_is_open(
    wire: Any, async_client: Any
) -> None:
    session_id = await wire.initialize()
    headers = stream_headers(wire, session_id)

    first = await async_client.get(URL, headers=headers)
    second = await async_client.get(URL, headers=headers)
    first.close()  # as the ASGI handler does once the stream ends
    third = await async_client.get(URL, headers=headers)
    third.close()

    assert (first.status_code, second.status_code, third.status_code) == (200, 409, 200)
    assert json.loads(second.content)["error"]["code"] == jsonrpc.INVALID_REQUEST


async def test_a_get_stream_over_max_streams_is_503_and_leaves_the_session_free(
    wire: Any, async_client: Any, settings: Any
) -> None:
    gc.collect()  # streams of earlier tests that nobody holds any more
    settings.MCP_MAX_STREAMS = OPEN_STREAMS.count  # full: not one stream more
    session_id = await wire.initialize()
    headers = stream_headers(wire, session_id)

    refused = await async_client.get(URL, headers=headers)
    settings.MCP_MAX_STREAMS = OPEN_STREAMS.count + 1
    opened = await async_client.get(URL, headers=headers)  # not 409: the refusal kept no claim
    opened.close()

    assert (refused.status_code, opened.status_code) == (503, 200)
    assert refused["Retry-After"] == "1"
    assert json.loads(refused.content)["error"]["code"] == jsonrpc.INTERNAL_ERROR


async def test_a_get_stream_open_in_another_process_is_409(wire: Any, async_client: Any) -> None:
    session_id = await wire.initialize()
    # What an open stream of another worker leaves in the shared cache.
    await caches["default"].aset("django_mcp:session-stream:" + session_id, "another-worker", 60)

    response = await async_client.get(URL, headers=stream_headers(wire, session_id))

    assert response.status_code == 409


async def test_a_get_stream_while_notifications_are_unavailable_is_503_and_leaves_the_session_free(
    wire: Any, async_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = await wire.initialize()
    headers = stream_headers(wire, session_id)

    monkeypatch.setattr(subscriptions, "get_backend", DownBackend)
    refused = await async_client.get(URL, headers=headers)
    monkeypatch.undo()
    opened = await async_client.get(URL, headers=headers)  # not 409: the refusal kept no claim
    opened.close()

    assert (refused.status_code, refused["Retry-After"], opened.status_code) == (503, str(RETRY_AFTER), 200)
    assert json.loads(refused.content) == {
        "jsonrpc": "2.0",
        "error": {"code": jsonrpc.INTERNAL_ERROR, "message": ANY},
    }


async def test_delete_ends_the_sessions_get_stream_at_once(
    wire: Any, async_client: Any, settings: Any
) -> None:
    settings.MCP_SSE_KEEPALIVE = 60  # the stream must not wait for a keep-alive to end
    session_id = await wire.initialize()
    stream = await async_client.get(URL, headers=stream_headers(wire, session_id))
    chunks = aiter(stream.streaming_content)
    listening = await asyncio.wait_for(anext(chunks), WAIT_STREAM)

    deleted = await async_client.delete(URL, headers={"Mcp-Session-Id": session_id})
    rest = await asyncio.wait_for(rest_of(chunks), WAIT_STREAM)

    assert listening.startswith(b":")
    assert deleted.status_code == 204
    assert rest == []


async def test_get_stream_ends_at_a_keepalive_once_its_session_ended_elsewhere(
    wire: Any, async_client: Any, settings: Any
) -> None:
    settings.MCP_SSE_KEEPALIVE = 0.05
    session_id = await wire.initialize()
    stream = await async_client.get(URL, headers=stream_headers(wire, session_id))
    chunks = aiter(stream.streaming_content)
    await asyncio.wait_for(anext(chunks), WAIT_STREAM)

    # Another worker's DELETE: the stored session goes, no in-process signal.
    ended = await LegacySession.load(session_id, server=KEY)
    assert ended is not None
    await ended.delete()
    rest = await asyncio.wait_for(rest_of(chunks), WAIT_STREAM)
    again = await async_client.get(URL, headers=stream_headers(wire, session_id))

    assert all(chunk.startswith(b":") for chunk in rest)  # keep-alives at most
    assert again.status_code == 404


async def test_get_stream_gets_updates_of_what_its_session_subscribed_after_it_opened_and_nothing_else(
    wire: Any, async_client: Any, settings: Any
) -> None:
    settings.MCP_SSE_KEEPALIVE = 60  # no keep-alive comment between the messages
    session_id = await wire.initialize()
    other_id = await wire.initialize()
    stream = await async_client.get(URL, headers=stream_headers(wire, session_id))
    chunks = aiter(stream.streaming_content)
    await asyncio.wait_for(anext(chunks), WAIT_STREAM)  # listening

    # Any worker may serve these: the stream learns of them as events.
    assert (await wire.legacy(session_id, "resources/subscribe", {"uri": "test://template/1/data"}))[0] == 200
    assert (await wire.legacy(other_id, "resources/subscribe", {"uri": "test://watched-resource"}))[0] == 200
    django_mcp.resource_updated(ConformanceServer, "test://watched-resource")  # the other session's
    django_mcp.resource_updated(ConformanceServer, "test://template/1/data")
    first = await asyncio.wait_for(anext(chunks), WAIT_STREAM)
    assert (await wire.legacy(session_id, "resources/unsubscribe", {"uri": "test://template/1/data"}))[
        0
    ] == 200
    django_mcp.resource_updated(ConformanceServer, "test://template/1/data")
    django_mcp.tools_changed(ConformanceServer)
    second = await asyncio.wait_for(anext(chunks), WAIT_STREAM)
    stream.close()

    def message(chunk: bytes) -> Any:
        return json.loads(chunk.decode().split("data:", 1)[1])

    assert message(first) == {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"uri": "test://template/1/data"},
    }
    assert message(second) == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
