"""Tests for django_mcp.admin: the staff-only catalog page.

The page is mounted by this module's own URLconf (``pytest.mark.urls``),
the way docs/admin.md tells projects to mount it; each test gets a fresh
registry.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from django.contrib import admin
from django.contrib.admin import AdminSite
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import path

from django_mcp import Prompt, PromptArgument, Resource, Server, Tool, ToolAnnotations
from django_mcp.admin import build_catalog, mcp_catalog_view
from django_mcp.registry import registry
from django_mcp.response import McpResponse
from django_mcp.schemas import Schema

other_site = AdminSite(name="other_admin")

urlpatterns = [
    path("admin/mcp/", mcp_catalog_view(), name="mcp-catalog"),
    path("admin/", admin.site.urls),
    path("other-admin/mcp/", mcp_catalog_view(other_site)),
    path("other-admin/", other_site.urls),
]

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]

URL = "/admin/mcp/"


class ForecastInput(Schema):
    """Where to forecast."""

    city: str
    days: int = 3


class ForecastOutput(Schema):
    summary: str


class ForecastTool(Tool[ForecastInput, ForecastOutput]):
    name = "forecast"
    title = "Weather forecast"
    description = "Forecast the weather <for> a city."
    annotations = ToolAnnotations(read_only=True, open_world=False)
    permissions = ("auth.view_user",)

    def handle(self, payload: ForecastInput) -> ForecastOutput:
        return ForecastOutput(summary="sunny")


class StationsResource(Resource):
    name = "stations"
    uri = "weather://stations"
    description = "All weather stations."
    mime_type = "application/json"

    def handle(self) -> McpResponse:
        return McpResponse.text("[]")


class StationResource(Resource):
    name = "station"
    uri_template = "weather://stations/{code}"
    description = "One station."

    def handle(self, code: str) -> McpResponse:
        return McpResponse.text(code)


class ReportPrompt(Prompt):
    name = "report"
    description = "Write a weather report."
    arguments = (PromptArgument(name="city", description="Which city", required=True),)

    def handle(self, city: str) -> McpResponse:
        return McpResponse.text(f"Report on {city}")


class WeatherServer(Server):
    name = "weather"
    version = "1.2.3"
    title = "Weather service"
    description = "Forecasts and stations."
    login_required = True
    tools = (ForecastTool,)
    resources = (StationsResource, StationResource)
    prompts = (ReportPrompt,)


class PingTool(Tool):
    name = "ping"
    description = "Answer pong."

    def handle(self) -> McpResponse:
        return McpResponse.text("pong")


class UtilityServer(Server):
    name = "utility"
    tools = (PingTool,)


@pytest.fixture(autouse=True)
def fresh_registry() -> Iterator[None]:
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    try:
        yield
    finally:
        registry.restore(saved)


@pytest.fixture
def servers() -> None:
    registry.web("weather", WeatherServer)
    registry.local("weather", WeatherServer)
    registry.local("utility", UtilityServer)


def _user(*, staff: bool) -> Client:
    user = get_user_model().objects.create_user(
        username="staff" if staff else "visitor", password="pw-123456", is_staff=staff
    )
    client = Client()
    client.force_login(user)
    return client


def test_staff_sees_every_server_with_its_components(servers: None) -> None:
    response = _user(staff=True).get(URL)

    assert response.status_code == 200
    assert [t.name for t in response.templates][:2] == [
        "django_mcp/admin/catalog.html",
        "admin/base_site.html",
    ]
    page = html.unescape(response.content.decode())
    for text in (
        "Weather service",
        "tests.test_admin.WeatherServer",
        "1.2.3",
        "Forecasts and stations.",
        "forecast",
        "Weather forecast",
        "Forecast the weather <for> a city.",
        "auth.view_user",
        "weather://stations",
        "weather://stations/{code}",
        "report",
        "Write a weather report.",
        "ping",
        "Answer pong.",
        "utility",
    ):
        assert text in page, text


def test_page_escapes_descriptions(servers: None) -> None:
    response = _user(staff=True).get(URL)

    assert b"Forecast the weather &lt;for&gt; a city." in response.content
    assert b"<for>" not in response.content


def _pre(page: str, css_class: str) -> list[Any]:
    return [json.loads(block) for block in re.findall(rf'<pre class="{css_class}">(.*?)</pre>', page, re.S)]


def _listed(definition: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(definition))


def test_schemas_and_annotations_are_the_listed_wire_json(servers: None) -> None:
    page = html.unescape(_user(staff=True).get(URL).content.decode())
    compiled = WeatherServer.compiled()
    tool = _listed(compiled.tools["forecast"].definition)
    ping = _listed(UtilityServer.compiled().tools["ping"].definition)
    listed = [
        tool,
        _listed(compiled.resources["weather://stations"].definition),
        _listed(compiled.templates["weather://stations/{code}"].definition),
        _listed(compiled.prompts["report"].definition),
        ping,
    ]

    assert _pre(page, "mcp-annotations") == [{"readOnlyHint": True, "openWorldHint": False}]
    assert _pre(page, "mcp-input-schema") == [tool["inputSchema"], ping["inputSchema"]]
    assert _pre(page, "mcp-output-schema") == [tool["outputSchema"]]
    assert _pre(page, "mcp-arguments") == [[{"name": "city", "description": "Which city", "required": True}]]
    assert _pre(page, "mcp-definition") == listed
    # Pretty-printed: two-space indents, camelCase wire names.
    assert (
        '<pre class="mcp-annotations">{\n  "readOnlyHint": true,\n  "openWorldHint": false\n}</pre>' in page
    )
    assert '"uriTemplate": "weather://stations/{code}"' in page


def test_mounts_list_stdio_names_and_http_paths(servers: None) -> None:
    weather, utility = build_catalog()

    assert weather.label == "tests.test_admin.WeatherServer"
    # This URLconf does not include django_mcp.urls, so no prefix is known.
    assert weather.mounts == (
        ("HTTP", "weather (below the include of django_mcp.urls)"),
        ("STDIO", "weather"),
    )
    assert utility.mounts == (("STDIO", "utility"),)
    assert [e.name for e in weather.tools] == ["forecast"]
    assert [e.uri for e in weather.resources] == ["weather://stations"]
    assert [e.uri for e in weather.templates] == ["weather://stations/{code}"]
    assert [e.name for e in weather.prompts] == ["report"]
    assert weather.login_required is True


def test_staff_sees_a_hint_when_nothing_is_registered() -> None:
    response = _user(staff=True).get(URL)

    assert response.status_code == 200
    assert b"No MCP servers are registered" in response.content


def test_non_staff_user_is_redirected_to_login(servers: None) -> None:
    response = _user(staff=False).get(URL)

    assert response.status_code == 302
    assert response["Location"] == f"/admin/login/?next={URL}"


def test_anonymous_user_is_redirected_to_login(servers: None) -> None:
    response = Client().get(URL)

    assert response.status_code == 302
    assert response["Location"] == f"/admin/login/?next={URL}"


def test_custom_admin_site_uses_its_own_login_and_breadcrumbs(servers: None) -> None:
    assert Client().get("/other-admin/mcp/")["Location"] == "/other-admin/login/?next=/other-admin/mcp/"

    response = _user(staff=True).get("/other-admin/mcp/")

    assert response.status_code == 200
    assert b'<a href="/other-admin/">Home</a>' in response.content
