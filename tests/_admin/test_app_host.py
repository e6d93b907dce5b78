"""Tests for django_mcp._admin.app_host: the playground as an MCP Apps host.

On the wire: the App page the admin serves (read as the user, under the CSP
its ``_meta.ui.csp`` builds) and the relay of the App's ``tools/call`` and
``resources/read`` (JSON in, JSON out, CSRF-protected, as the signed-in
user with the playground's permission checks).
"""

from __future__ import annotations

import copy
import html
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import path

from django_mcp import AppResource, Csp, McpRequest, McpResponse, Server, Tool
from django_mcp._admin.app_host import content_security_policy
from django_mcp.protocol.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, PARSE_ERROR
from django_mcp.registry import registry
from django_mcp.schemas import Schema

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]

urlpatterns = [path("admin/", admin.site.urls)]

SECTION = "/admin/django_mcp/mcpcatalog/"
SERVER = f"{__name__}.BoardServer"
PAGE = "<!DOCTYPE html><html><body><h1>Board</h1></body></html>"


class BoardApp(AppResource):
    name = "board"
    template_name = "board.html"
    csp = Csp(resource_domains=("https://cdn.example.com",), connect_domains=("https://api.example.com",))


class BoardTool(Tool):
    """Show the board."""

    name = "board"
    app = BoardApp

    def handle(self) -> McpResponse:
        return McpResponse.structured({"orders": 3})


class RefreshInput(Schema):
    page: int = 1


class RefreshTool(Tool[RefreshInput]):
    """Refresh the board (for the App only)."""

    name = "refresh"
    app = BoardApp
    app_visibility = ("app",)

    def handle(self, payload: RefreshInput) -> McpResponse:
        return McpResponse.text(f"page {payload.page}")


class ModelOnlyTool(Tool):
    """A tool the model may call, never the App."""

    name = "model-only"
    app = BoardApp
    app_visibility = ("model",)

    def handle(self) -> McpResponse:
        return McpResponse.text("model only")


class SecretTool(Tool):
    """A tool only those who may view users see."""

    name = "secret"
    permissions = ("auth.view_user",)

    def handle(self) -> McpResponse:
        return McpResponse.text("The secret is 42.")


class PlainTool(Tool):
    """A tool without an App."""

    name = "plain"

    def handle(self) -> McpResponse:
        return McpResponse.text("plain")


class StaffApp(AppResource):
    name = "staff"
    template_name = "board.html"

    def authorize(self, request: McpRequest) -> bool:
        return bool(request.user.is_superuser)


class StaffTool(Tool):
    """A tool whose App only superusers may read."""

    name = "staff"
    app = StaffApp

    def handle(self) -> McpResponse:
        return McpResponse.text("staff")


class BoardServer(Server):
    name = "boards"
    tools = (BoardTool, RefreshTool, ModelOnlyTool, SecretTool, PlainTool, StaffTool)


@pytest.fixture(autouse=True)
def boards(settings: Any, tmp_path: Path) -> Iterator[None]:
    (tmp_path / "board.html").write_text(PAGE, encoding="utf-8")
    templates = copy.deepcopy(settings.TEMPLATES)
    templates[0]["DIRS"] = [tmp_path]
    settings.TEMPLATES = templates
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    registry.web("boards", BoardServer)
    try:
        yield
    finally:
        registry.restore(saved)


def _client(*perms: str, csrf: bool = False) -> Client:
    username = f"player{get_user_model().objects.count()}"
    user = get_user_model().objects.create_user(username=username, password="pw-123456", is_staff=True)
    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def _url(page: str, tool: str = "board") -> str:
    return f"{SECTION}{page}/{quote(f'{SERVER}~tool~{tool}')}/"


def _relay(client: Client, message: Any, tool: str = "board") -> Any:
    body = message if isinstance(message, str) else json.dumps(message)
    response = client.post(_url("app-relay", tool), body, content_type="application/json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    return response.json()


# ------------------------------------------------------------ the page


def test_the_app_page_is_served_under_the_csp_its_meta_declares() -> None:
    client = _client("django_mcp.use_playground")

    response = client.get(_url("app"))

    assert response.status_code == 200
    assert response.content.decode() == PAGE
    assert response["Content-Security-Policy"] == (
        "default-src 'none'; "
        "script-src 'unsafe-inline' https://cdn.example.com; "
        "style-src 'unsafe-inline' https://cdn.example.com; "
        "img-src data: https://cdn.example.com; "
        "font-src https://cdn.example.com; "
        "media-src data: https://cdn.example.com; "
        "connect-src https://api.example.com; "
        "frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; sandbox allow-scripts"
    )
    assert response["X-Frame-Options"] == "SAMEORIGIN"


def test_the_app_page_needs_the_playground_permission() -> None:
    assert _client().get(_url("app")).status_code == 403


def test_an_app_page_the_user_may_not_read_is_not_found_without_detail() -> None:
    response = _client("django_mcp.use_playground").get(_url("app", "staff"))

    assert response.status_code == 404
    assert response.content.decode() == "resources/read answered JSON-RPC error -32602."
    assert response["Content-Security-Policy"] == "default-src 'none'; sandbox"


def test_a_tool_without_an_app_has_no_app_page_or_relay() -> None:
    client = _client("django_mcp.use_playground")

    assert client.get(_url("app", "plain")).status_code == 404
    assert client.post(_url("app-relay", "plain"), "{}", content_type="application/json").status_code == 404


def test_the_default_csp_is_the_specifications_without_self_and_declarations_cannot_add_directives() -> None:
    injected = {
        "csp": {"resourceDomains": ["https://ok.example.com", "'unsafe-eval'", "https://x; script-src *"]}
    }

    assert content_security_policy({}) == (
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        "img-src data:; font-src 'none'; media-src data:; connect-src 'none'; "
        "frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; sandbox allow-scripts"
    )
    assert "script-src 'unsafe-inline' https://ok.example.com;" in content_security_policy(injected)
    assert "unsafe-eval" not in content_security_policy(injected)
    assert "*" not in content_security_policy(injected)


def test_calling_the_tool_shows_its_app_in_a_sandboxed_frame_with_input_and_result() -> None:
    client = _client("django_mcp.use_playground")

    page = html.unescape(client.post(_change(), {"step": "call"}).content.decode())

    assert (
        f'sandbox="allow-scripts"\n          src="{_url("app")}" data-relay-url="{_url("app-relay")}"' in page
    )
    bridge = json.loads(
        page.split('<script id="mcp-app-bridge" type="application/json">', 1)[1].split("</script>")[0]
    )
    assert bridge["arguments"] == {}
    assert bridge["result"]["structuredContent"] == {"orders": 3}
    assert bridge["tool"]["_meta"]["ui"] == {
        "resourceUri": "ui://boards/board",
        "visibility": ["model", "app"],
    }


def _change(tool: str = "board") -> str:
    return f"{SECTION}{quote(f'{SERVER}~tool~{tool}')}/change/"


# ------------------------------------------------------------ the relay


def test_the_relay_calls_an_app_tool_as_the_user_and_records_it() -> None:
    client = _client("django_mcp.use_playground")

    answer = _relay(client, {"method": "tools/call", "params": {"name": "refresh", "arguments": {"page": 2}}})

    assert answer["result"]["content"] == [{"type": "text", "text": "page 2"}]
    assert answer["result"].get("isError") is not True
    entry = LogEntry.objects.get()
    assert entry.get_change_message() == (
        f"Playground sent tools/call (from its App) for tool “board” ({SERVER}): succeeded."
    )


def test_the_relay_reads_a_resource_as_the_user() -> None:
    client = _client("django_mcp.use_playground")

    answer = _relay(client, {"method": "resources/read", "params": {"uri": "ui://boards/board"}})

    [content] = answer["result"]["contents"]
    assert (content["uri"], content["mimeType"], content["text"]) == (
        "ui://boards/board",
        "text/html;profile=mcp-app",
        PAGE,
    )


def test_the_relay_refuses_a_tool_apps_may_not_call() -> None:
    client = _client("django_mcp.use_playground")

    answer = _relay(client, {"method": "tools/call", "params": {"name": "model-only", "arguments": {}}})

    assert answer["error"]["code"] == INVALID_PARAMS
    assert not LogEntry.objects.exists()


def test_a_hidden_tool_is_refused_like_an_unknown_one() -> None:
    client = _client("django_mcp.use_playground")

    answer = _relay(client, {"method": "tools/call", "params": {"name": "secret", "arguments": {}}})

    assert answer["error"]["code"] == INVALID_PARAMS
    assert LogEntry.objects.get().get_change_message().endswith(": refused with JSON-RPC error -32602.")


def test_a_user_who_may_see_the_tool_calls_it_through_the_app() -> None:
    client = _client("django_mcp.use_playground", "auth.view_user")

    answer = _relay(client, {"method": "tools/call", "params": {"name": "secret"}})

    assert answer["result"]["content"] == [{"type": "text", "text": "The secret is 42."}]


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"method": "prompts/get", "params": {"name": "x"}}, METHOD_NOT_FOUND),
        ({"method": "ui/message", "params": {}}, METHOD_NOT_FOUND),
        (["tools/call"], METHOD_NOT_FOUND),
        ({"method": "tools/call", "params": []}, INVALID_PARAMS),
        ({"method": "tools/call", "params": {"arguments": {}}}, INVALID_PARAMS),
        ({"method": "tools/call", "params": {"name": "refresh", "arguments": [1]}}, INVALID_PARAMS),
        ({"method": "resources/read", "params": {"uri": 7}}, INVALID_PARAMS),
        ("{not json", PARSE_ERROR),
    ],
)
def test_the_relay_answers_bad_requests_with_json_rpc_errors(message: Any, code: int) -> None:
    answer = _relay(_client("django_mcp.use_playground"), message)

    assert answer["error"]["code"] == code
    assert not LogEntry.objects.exists()


def test_the_relay_needs_the_permission_a_csrf_token_and_post() -> None:
    call = json.dumps({"method": "tools/call", "params": {"name": "refresh"}})

    assert _client().post(_url("app-relay"), call, content_type="application/json").status_code == 403
    guarded = _client("django_mcp.use_playground", csrf=True)
    assert guarded.post(_url("app-relay"), call, content_type="application/json").status_code == 403
    assert _client("django_mcp.use_playground").get(_url("app-relay")).status_code == 405
    assert not LogEntry.objects.exists()
