"""The HTTP wire tests that hold under WSGI: ``McpWSGIApp`` and Django's own WSGI handler.

The imported tests of ``test_http.py`` run here with ``async_client`` (and
so ``wire``) served in a thread (``tests/direct_clients.py``) by
``McpWSGIApp(get_wsgi_application())``, then by ``get_wsgi_application()``
alone, where the plain view is called as a sync view (``DualView``).
The tests below pin what WSGI changes: a single-threaded WSGI server (as
this harness says it is) holds no long-lived stream (listen, a session's
GET), while request-scoped streams (progress) are sent from the worker's
thread; and the sync work (a sync tool, a session cookie looked up in the
database) made in the worker's thread.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.core.wsgi import get_wsgi_application

from django_mcp.protocol import jsonrpc
from django_mcp.wsgi import McpWSGIApp
from tests.direct_clients import WSGIAppClient
from tests.transports.test_http import (  # noqa: F401 - collected here, served by McpWSGIApp
    test_a_notification_is_accepted_with_202_and_no_body,
    test_a_response_object_from_a_modern_client_is_refused,
    test_accept_without_json_or_sse_is_406,
    test_acceptable_accept_headers_are_served,
    test_batch_array_is_an_invalid_request_without_id,
    test_cacheable_results_carry_ttl_and_scope,
    test_client_that_does_not_accept_sse_gets_json_only,
    test_declared_client_capability_is_served,
    test_delete_without_session_is_405,
    test_discover_lists_versions_and_capabilities,
    test_get_without_session_is_405,
    test_ids_that_are_not_string_or_integer_are_refused_and_omitted,
    test_input_required_round_trip_completes,
    test_invalid_json_is_a_parse_error_without_id,
    test_json_content_type_with_charset_is_accepted,
    test_missing_client_capability_is_400_naming_it,
    test_missing_meta_is_invalid_params_with_400,
    test_non_json_content_type_is_415,
    test_other_http_methods_are_405,
    test_prompt_is_rendered,
    test_removed_and_unknown_methods_are_404_method_not_found,
    test_replies_without_a_body_carry_no_content_type,
    test_simple_tool_result_is_exact,
    test_string_and_integer_ids_are_echoed_with_their_type,
    test_template_resource_is_read,
    test_unknown_tool_is_invalid_params,
    test_unsupported_version_names_supported_and_requested,
    test_without_progress_token_the_answer_is_plain_json,
)
from tests.wire import modern_headers, modern_request, tool_request


@pytest.fixture(params=["fast-wsgi", "plain-wsgi"])
def served_by(request: pytest.FixtureRequest) -> str:
    """Serve this module's ``async_client`` with ``McpWSGIApp``, then Django's WSGI handler."""
    return str(request.param)


async def test_a_progress_token_is_answered_with_a_stream_of_its_progress(wire: Any) -> None:
    response, messages = await wire.stream(
        tool_request("test_tool_with_progress", {}, meta=wire.meta(progressToken="wsgi"))
    )

    assert (response.status_code, response["Content-Type"]) == (200, "text/event-stream")
    assert [m["method"] for m in messages[:-1]] == ["notifications/progress"] * (len(messages) - 1)
    assert len(messages) > 1
    assert messages[-1]["result"]["content"] == [
        {"type": "text", "text": "Progress test completed for token wsgi"}
    ]


async def test_without_threads_to_spare_listen_is_refused_with_a_json_error(wire: Any) -> None:
    body = modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    status, answer = await wire.call(body)

    assert status == 404
    assert answer["error"]["code"] == jsonrpc.METHOD_NOT_FOUND


async def test_without_threads_to_spare_a_legacy_get_stream_is_405_without_get_in_allow(
    wire: Any, async_client: Any
) -> None:
    session = await wire.initialize()
    response = await async_client.get(
        "/conformance/mcp", headers={"Mcp-Session-Id": session, "Accept": "text/event-stream"}
    )

    assert (response.status_code, response["Allow"]) == (405, "POST, DELETE")


async def test_a_sync_tool_is_served_through_the_fallback_loop(wire: Any) -> None:
    status, body = await wire.call(tool_request("test_logging_tool", {}))

    assert status == 200
    assert body["result"]["isError"] is False


async def test_a_declared_body_over_the_limit_is_413_before_it_is_read(settings: Any) -> None:
    async_client = WSGIAppClient()  # McpWSGIApp answers before Django reads the body
    settings.MCP_MAX_REQUEST_SIZE = 100
    body = json.dumps(modern_request("tools/list", {"padding": "x" * 200}))
    response = await async_client.post("/conformance/mcp", data=body, content_type="application/json")

    # No Connection header: under WSGI that is the server's (wsgiref refuses hop-by-hop headers).
    assert (response.status_code, response.has_header("Connection")) == (413, False)
    assert json.loads(response.content)["error"]["code"] == jsonrpc.INVALID_REQUEST


@pytest.mark.django_db(transaction=True)
async def test_the_session_cookie_identifies_the_caller(async_client: Any, wire: Any) -> None:
    user = await sync_to_async(get_user_model().objects.create_user)("wsgi-caller", password="pw")
    await async_client.aforce_login(user)
    session = await wire.initialize()
    other = type(async_client)()

    response = await other.delete("/conformance/mcp", headers={"Mcp-Session-Id": session})

    assert response.status_code == 404  # another caller's session is unknown to it


def test_other_paths_go_to_django() -> None:
    called: list[str] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        called.append(environ["PATH_INFO"])
        return [b""]

    McpWSGIApp(app)({"PATH_INFO": "/admin/", "REQUEST_METHOD": "GET"}, lambda *a: None)

    assert called == ["/admin/"]
    assert callable(get_wsgi_application())


# ------------------------------------------ the plain view under Django's WSGI handler


def _plain(env: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    from tests.test_wsgi import call

    return call(get_wsgi_application(), env)  # type: ignore[arg-type]


def _call_body() -> tuple[bytes, dict[str, str]]:
    body = tool_request("test_simple_text", {})
    return json.dumps(body).encode(), modern_headers(body)


@pytest.mark.django_db  # Django's handler closes old connections in this thread
def test_the_plain_view_reads_a_chunked_body_the_server_decodes() -> None:
    from tests.test_wsgi import environ

    data, headers = _call_body()
    env = environ(
        data, headers={**headers, "Transfer-Encoding": "chunked"}, **{"wsgi.input_terminated": True}
    )

    status, _headers, body = _plain(env)

    assert status == 200
    assert json.loads(body)["result"]["isError"] is False


@pytest.mark.django_db  # Django's handler closes old connections in this thread
def test_the_plain_view_refuses_a_chunked_body_the_server_does_not_decode() -> None:
    from tests.test_wsgi import environ

    data, headers = _call_body()

    status, _headers, body = _plain(environ(data, headers={**headers, "Transfer-Encoding": "chunked"}))

    assert status == 411
    assert json.loads(body)["error"]["code"] == jsonrpc.INVALID_REQUEST


@pytest.mark.django_db  # Django's handler closes old connections in this thread
def test_the_plain_view_drains_a_refused_body(settings: Any) -> None:
    from tests.test_wsgi import environ

    settings.MCP_MAX_REQUEST_SIZE = 100
    env = environ(b"x" * 5000, length=5000)

    status, _headers, _body = _plain(env)

    assert status == 413
    assert env["wsgi.input"].read_bytes == 5000


@pytest.mark.django_db  # Django's handler closes old connections in this thread
@pytest.mark.parametrize("host", ["evil.example.com", "evil.example.com:80"])
def test_the_plain_view_answers_a_disallowed_host_with_json(host: str) -> None:
    from tests.test_wsgi import environ

    data, headers = _call_body()

    status, response_headers, body = _plain(
        environ(data, headers={**headers, "Host": host}, length=len(data))
    )

    # CommonMiddleware refuses it before the view; handler400 is django_mcp.views.bad_request.
    assert (status, response_headers["content-type"]) == (403, "application/json")
    assert json.loads(body)["error"]["code"] == jsonrpc.INVALID_REQUEST
