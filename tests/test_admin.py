"""Tests for django_mcp.admin: the MCP section of the admin and its playground.

The section needs no URL pattern: ``admin.site.urls`` serves it. This
module's URLconf (``pytest.mark.urls``) also mounts the older one-page
catalog (``mcp_catalog_view()``) and a custom admin site with the section
registered on it; each test gets a fresh registry.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from asgiref.sync import async_to_sync
from django.contrib import admin
from django.contrib.admin import AdminSite
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.urls import path

from django_mcp import (
    McpRequest,
    Prompt,
    PromptArgument,
    Resource,
    Server,
    Skill,
    Tool,
    ToolAnnotations,
    ToolSearch,
)
from django_mcp._admin.catalog import visible_keys
from django_mcp.admin import McpCatalogAdmin, build_catalog, mcp_catalog_view
from django_mcp.models import McpCatalog
from django_mcp.registry import registry
from django_mcp.response import McpResponse
from django_mcp.schemas import Schema
from django_mcp.testing import McpTestClient
from tests.playground import PlaygroundServer

other_site = AdminSite(name="other_admin")
other_site.register(McpCatalog, McpCatalogAdmin)

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


# ------------------------------------------------------------- the section

SECTION = "/admin/django_mcp/mcpcatalog/"
PLAYGROUND = "tests.playground.PlaygroundServer"


def _staff(username: str = "alice", *perms: str, superuser: bool = False) -> tuple[Any, Client]:
    user = get_user_model().objects.create_user(
        username=username, password="pw-123456", is_staff=True, is_superuser=superuser
    )
    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    client = Client()
    client.force_login(user)
    return user, client


def _player(*perms: str) -> tuple[Any, Client]:
    return _staff("player", "django_mcp.use_playground", *perms)


def _component(kind: str, key: str, server: str = PLAYGROUND, *, page: str = "change") -> str:
    return f"{SECTION}{quote(f'{server}~{kind}~{key}')}/{page}/"


@pytest.fixture
def playground() -> None:
    registry.web("playground", PlaygroundServer)
    registry.web("weather", WeatherServer)


def _text(response: Any) -> str:
    return html.unescape(response.content.decode())


def _history() -> list[LogEntry]:
    return list(LogEntry.objects.order_by("pk"))


def test_admin_index_shows_the_mcp_section_linking_to_the_catalog(playground: None) -> None:
    _user, client = _staff()

    page = client.get("/admin/").content.decode()

    # Django 6.1 dropped the link's title attribute.
    assert re.search(r'<a href="/admin/django_mcp/" class="section"( title="[^"]*")?>MCP</a>', page)
    assert f'<a href="{SECTION}">Catalog</a>' in page


def test_section_needs_staff(playground: None) -> None:
    assert Client().get(SECTION)["Location"] == f"/admin/login/?next={SECTION}"
    assert _user(staff=False).get(SECTION)["Location"] == f"/admin/login/?next={SECTION}"


def test_catalog_lists_servers_with_their_mounts_and_counts(playground: None) -> None:
    registry.local("weather", WeatherServer)
    _user, client = _staff()

    response = client.get(SECTION)

    assert response.status_code == 200
    assert [t.name for t in response.templates][:2] == [
        "django_mcp/admin/servers.html",
        "django_mcp/admin/_base.html",
    ]
    page = _text(response)
    assert "Playground fixture" in page
    assert f'href="{SECTION}server/{PLAYGROUND}/"' in page
    assert "HTTP <code>playground (below the include of django_mcp.urls)</code>" in page
    assert "STDIO <code>weather</code>" in page
    assert "2 servers, 7 tools, 2 resources, 2 resource templates, 2 prompts, 0 skills." in " ".join(
        page.split()
    )
    assert "needs the “django_mcp.use_playground” permission" in " ".join(page.split())


def _names(response: Any) -> list[str]:
    return re.findall(r'<tr class="mcp-component mcp-\w+" data-name="([^"]+)">', _text(response))


def test_server_page_lists_components_with_search_and_kind_filter(playground: None) -> None:
    _user, client = _staff()
    url = f"{SECTION}server/{PLAYGROUND}/"

    everything = client.get(url)
    tools = client.get(url, {"kind": "tool"})
    searched = client.get(url, {"q": "NOTES"})
    both = client.get(url, {"q": "notes", "kind": "template"})

    assert everything.status_code == 200
    assert _names(everything) == [
        *("echo", "greet", "wipe-notes", "secret", "media", "fail"),
        *("readme", "notes", "haiku"),
    ]
    assert _names(tools) == ["echo", "greet", "wipe-notes", "secret", "media", "fail"]
    assert _names(searched) == ["wipe-notes", "readme", "notes"]
    assert _names(both) == ["notes"]
    assert '<li class="selected"><a href="?q=notes&amp;kind=template">Resource templates (1)</a></li>' in (
        both.content.decode()
    )
    assert client.get(f"{SECTION}server/no.such.Server/").status_code == 404


def test_view_as_shows_what_another_user_can_see(playground: None) -> None:
    get_user_model().objects.create_user(username="bob", password="pw-123456")
    _user, client = _staff("alice", "auth.change_user")
    url = f"{SECTION}server/{quote('tests.test_admin.WeatherServer')}/"

    response = client.get(url, {"as": "bob"})

    page = _text(response)
    assert "Seen as <strong>bob</strong>" in page
    assert "3 of these 4 components are visible" in page
    rows = re.findall(r'data-name="([^"]+)">.*?<td class="mcp-visible"><img [^>]*alt="(\w+)">', page, re.S)
    assert rows == [
        ("forecast", "hidden"),
        ("stations", "visible"),
        ("station", "visible"),
        ("report", "visible"),
    ]
    assert "No user is named “nobody”." in _text(client.get(url, {"as": "nobody"}))


def test_view_as_needs_the_permission_to_change_users(playground: None) -> None:
    get_user_model().objects.create_user(username="bob", password="pw-123456")
    _user, client = _staff()

    page = _text(client.get(f"{SECTION}server/{PLAYGROUND}/", {"as": "bob"}))

    assert "Seen as" not in page
    assert 'name="as"' not in page


def test_component_page_shows_everything_the_declaration_publishes(playground: None) -> None:
    _user, client = _staff()

    response = client.get(_component("tool", "forecast", "tests.test_admin.WeatherServer"))

    assert response.status_code == 200
    page = _text(response)
    assert "<title>Tool: forecast | Django site admin</title>" in page
    assert "Forecast the weather <for> a city." in page
    assert "<code>auth.view_user</code>" in page
    assert "no: it is hidden from your lists" in page
    assert '<th scope="row"><code>readOnlyHint</code></th><td>true</td>' in page
    definition = WeatherServer.compiled().tools["forecast"].definition
    assert _pre(page, "mcp-definition") == [_listed(definition)]
    assert _pre(page, "mcp-input-schema") == [_listed(definition)["inputSchema"]]
    assert _pre(page, "mcp-output-schema") == [_listed(definition)["outputSchema"]]
    assert "needs the “django_mcp.use_playground” permission" in page
    assert 'id="mcp-playground-form"' not in page


def test_icons_are_shown_inline_only_from_data_uris(playground: None) -> None:
    _user, client = _staff()

    page = _text(client.get(_component("tool", "media")))

    assert '<img src="data:image/png;base64,' in page
    assert '<span class="mcp-meta">image/png</span> <span class="mcp-meta">1x1</span>' in page
    assert '<a href="https://icons.example/media.svg" rel="noopener noreferrer" target="_blank">' in page
    assert '<img src="https://' not in page


def test_resource_page_shows_its_cache_hint_and_a_template_its_variables(playground: None) -> None:
    _user, client = _staff()

    readme = _text(client.get(_component("resource", "notes://readme")))
    notes = _text(client.get(_component("template", "notes://{topic}")))

    assert "<code>ttlMs 60000</code>, <code>cacheScope public</code>" in readme
    assert "<code>notes://readme</code>" in readme
    assert '<code>topic</code> <span class="mcp-meta">(with completion)</span>' in notes
    assert client.get(_component("tool", "nope")).status_code == 404


def test_staff_without_the_permission_cannot_post(playground: None) -> None:
    _user, client = _staff()

    response = client.post(_component("tool", "echo"), {"step": "call", "arg.text": "hi"})

    assert response.status_code == 403
    assert _history() == []


def test_playground_form_shows_one_field_per_argument(playground: None) -> None:
    _user, client = _player()

    page = _text(client.get(_component("tool", "echo")))

    assert 'id="mcp-playground-form"' in page
    for field in (
        '<input type="text" name="arg.text" id="id_arg-text" value="" class="vTextField" placeholder="hello"',
        '<input type="number" step="1" name="arg.times" id="id_arg-times" value="1"',
        '<input type="number" step="any" name="arg.ratio" id="id_arg-ratio" value="0.5"',
        '<option value="false" selected>false</option>',
        '<option value="&quot;green&quot;" selected>green</option>',
        '<textarea name="arg.tags" id="id_arg-tags" rows="3" class="vLargeTextField"></textarea>',
        '<textarea name="arg.extra" id="id_arg-extra" rows="4" class="vLargeTextField mcp-json"></textarea>',
    ):
        assert html.unescape(field) in page, field


def test_playground_calls_a_tool_as_the_user_through_the_dispatcher(playground: None) -> None:
    user, client = _player()

    response = client.post(
        _component("tool", "echo"),
        {
            "step": "call",
            "arg.text": "hi",
            "arg.times": "2",
            "arg.loud": "true",
            "arg.colour": '"blue"',
            "arg.tags": "a\n\nb\n",
            "arg.extra": "",
        },
    )

    assert response.status_code == 200
    page = _text(response)
    assert _pre(page, "mcp-structured") == [{"echo": "HI HI", "colour": "blue", "tags": ["a", "b"]}]
    events = re.findall(r'<li class="mcp-event mcp-event-(\w+)">(.*?)</li>', page, re.S)
    assert [(kind, " ".join(re.sub("<[^>]+>", "", text).split())) for kind, text in events] == [
        ("progress", "Progress 1/2 Reading the arguments"),
        ("log", "info echoing 2 time(s)"),
        ("progress", "Progress 2/2 Echoing"),
    ]
    (sent,) = _pre(page, "mcp-request")
    assert sent["params"]["arguments"] == {
        "text": "hi",
        "times": 2,
        "loud": True,
        "colour": "blue",
        "tags": ["a", "b"],
    }
    # The form keeps what was sent.
    assert '<input type="number" step="1" name="arg.times" id="id_arg-times" value="2"' in page
    (entry,) = _history()
    assert (entry.user, entry.action_flag, entry.object_repr) == (user, CHANGE, "Tool echo")
    assert entry.content_type == ContentType.objects.get_for_model(McpCatalog, for_concrete_model=False)
    assert entry.object_id == f"{PLAYGROUND}~tool~echo"
    assert entry.get_change_message() == (
        f"Playground sent tools/call for tool “echo” ({PLAYGROUND}): succeeded."
    )
    assert entry.get_admin_url() == _component("tool", "echo")


def test_playground_sends_raw_json_arguments(playground: None) -> None:
    _user, client = _player()

    response = client.post(
        _component("tool", "echo"),
        {"step": "call", "send_json": "1", "raw_arguments": '{"text": "x", "extra": {"a": 1}}'},
    )
    broken = client.post(
        _component("tool", "echo"), {"step": "call", "send_json": "1", "raw_arguments": "[1"}
    )

    assert _pre(_text(response), "mcp-structured") == [{"echo": "x", "colour": "green", "tags": []}]
    assert "The arguments are not valid JSON" in _text(broken)
    assert len(_history()) == 1


def test_a_json_field_that_does_not_parse_is_refused_before_sending(playground: None) -> None:
    _user, client = _player()

    page = _text(client.post(_component("tool", "echo"), {"step": "call", "arg.text": "x", "arg.extra": "{"}))

    assert '<ul class="errorlist"><li>Not valid JSON' in page
    assert 'id="mcp-result"' not in page
    assert _history() == []


def test_invalid_arguments_come_back_as_the_servers_is_error(playground: None) -> None:
    _user, client = _player()

    page = _text(client.post(_component("tool", "echo"), {"step": "call", "arg.text": "x", "arg.times": "9"}))

    assert '<div class="errornote mcp-is-error">' in page
    assert "Invalid tool arguments: `$.times`" in page or "Invalid tool arguments:" in page
    assert _history()[0].get_change_message().endswith(": failed (isError).")


def test_a_hidden_tool_answers_like_an_unknown_one(playground: None) -> None:
    _user, client = _player()

    page = _text(client.post(_component("tool", "secret"), {"step": "call"}))

    assert (
        '<div class="errornote mcp-rpc-error">JSON-RPC error <code>-32602</code>: Unknown tool: secret</div>'
        in (page)
    )
    assert _history()[0].get_change_message().endswith(": refused with JSON-RPC error -32602.")


def test_a_user_who_may_see_the_tool_calls_it(playground: None) -> None:
    _user, client = _player("auth.view_user")

    page = _text(client.post(_component("tool", "secret"), {"step": "call"}))

    assert '<pre class="mcp-text">The secret is 42.</pre>' in page


def test_rate_limits_apply_to_playground_calls(playground: None, settings: Any) -> None:
    settings.MCP_RATE_LIMIT = "1/d"
    _user, client = _player()

    first = _text(client.post(_component("tool", "fail"), {"step": "call"}))
    second = _text(client.post(_component("tool", "fail"), {"step": "call"}))

    assert "It went wrong on purpose." in first
    assert "Rate limit exceeded" in second


def test_a_destructive_tool_asks_for_confirmation_first(playground: None) -> None:
    _user, client = _player()
    url = _component("tool", "wipe-notes")

    asked = _text(client.post(url, {"step": "call"}))

    assert "is annotated <strong>destructive</strong>" in asked
    assert 'id="mcp-result"' not in asked
    assert _history() == []

    done = _text(client.post(url, {"step": "confirm", "arguments": "{}"}))

    assert '<pre class="mcp-text">All notes wiped.</pre>' in done
    assert len(_history()) == 1


def test_an_elicitation_round_is_a_form_then_a_continued_request(playground: None) -> None:
    _user, client = _player()
    url = _component("tool", "greet")

    asked = client.post(url, {"step": "call"})

    page = _text(asked)
    assert "The server needs input before it can answer" in page
    assert '<p class="mcp-input-message">Who is there?</p>' in page
    assert 'name="input.who.name"' in page
    assert '<option value="&quot;warm&quot;" selected>warm</option>' in asked.content.decode()
    hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', asked.content.decode()))
    answers = {
        "step": "continue",
        "arguments": html.unescape(hidden["arguments"]),
        "pending": html.unescape(hidden["pending"]),
        **({"request_state": html.unescape(hidden["request_state"])} if "request_state" in hidden else {}),
        "action.who": "accept",
        "input.who.name": "Ada",
        "input.who.tone": '"dry"',
        "input.who.formal": "on",
    }

    done = _text(client.post(url, answers))
    declined = _text(client.post(url, {**answers, "action.who": "decline"}))

    assert '<pre class="mcp-text">Good day, Ada! (dry)</pre>' in done
    (sent,) = _pre(done, "mcp-request")
    assert sent["params"]["inputResponses"] == {
        "who": {"action": "accept", "content": {"name": "Ada", "tone": "dry", "formal": True}}
    }
    assert "No greeting: the user chose decline." in declined
    messages = [entry.get_change_message() for entry in _history()]
    assert messages == [
        f"Playground sent tools/call for tool “greet” ({PLAYGROUND}): asked for input (1 request(s)).",
        f"Playground answered input for tools/call for tool “greet” ({PLAYGROUND}): succeeded.",
        f"Playground answered input for tools/call for tool “greet” ({PLAYGROUND}): succeeded.",
    ]


def test_results_render_by_content_type(playground: None) -> None:
    _user, client = _player()

    page = _text(client.post(_component("tool", "media"), {"step": "call"}))

    assert '<pre class="mcp-text">Every content type:</pre>' in page
    assert '<img class="mcp-image" src="data:image/png;base64,' in page
    assert '<audio class="mcp-audio" controls src="data:audio/wav;base64,' in page
    assert "Resource link: <code>notes://autumn</code> — autumn" in page
    assert "Embedded resource: <code>notes://embedded</code>" in page
    assert '<pre class="mcp-text">{\n  "kept": true\n}</pre>' in page


def test_reading_a_template_expands_its_variables(playground: None) -> None:
    _user, client = _player()

    page = _text(
        client.post(_component("template", "notes://{topic}"), {"step": "call", "arg.topic": "rain"})
    )
    fixed = _text(client.post(_component("resource", "notes://readme"), {"step": "call"}))

    assert "Contents: <code>notes://rain</code>" in page
    assert '<pre class="mcp-text">Notes about rain.</pre>' in page
    assert '<pre class="mcp-text">{\n  "notes": 3\n}</pre>' in fixed
    assert "Cache hint: <code>ttlMs 60000</code>, <code>cacheScope public</code>" in fixed


def test_getting_a_prompt_shows_its_messages(playground: None) -> None:
    _user, client = _player()

    page = _text(client.post(_component("prompt", "haiku"), {"step": "call", "arg.subject": "rain"}))

    assert '<div class="mcp-message mcp-role-user"><h3>User</h3>' in page
    assert "Write a calm haiku about rain." in page


def test_completion_suggests_prompt_arguments_and_template_variables(playground: None) -> None:
    _user, client = _player()
    url = f"{SECTION}complete/"

    prompt = client.post(
        url, {"component": f"{PLAYGROUND}~prompt~haiku", "argument": "subject", "value": "r"}
    )
    template = client.post(
        url, {"component": f"{PLAYGROUND}~template~notes://{{topic}}", "argument": "topic", "value": "w"}
    )

    assert prompt.json() == {"values": ["rain", "river"]}
    assert template.json()["values"] == ["winter"]
    assert client.get(url).status_code == 405
    assert client.post(url, {"component": f"{PLAYGROUND}~tool~echo"}).status_code == 404


def test_completion_needs_the_permission(playground: None) -> None:
    _user, client = _staff()

    response = client.post(
        f"{SECTION}complete/", {"component": f"{PLAYGROUND}~prompt~haiku", "argument": "x"}
    )

    assert response.status_code == 403


def test_playground_posts_need_a_csrf_token(playground: None) -> None:
    user, _client = _player()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = client.post(_component("tool", "echo"), {"step": "call", "arg.text": "hi"})

    assert response.status_code == 403
    assert _history() == []


def test_history_lists_the_calls_of_one_component(playground: None) -> None:
    _user, client = _player()
    client.post(_component("tool", "fail"), {"step": "call"})
    client.post(_component("tool", "echo"), {"step": "call", "arg.text": "x"})

    page = _text(client.get(_component("tool", "fail", page="history")))

    assert "<title>History: tool fail | Django site admin</title>" in page
    assert f"Playground sent tools/call for tool “fail” ({PLAYGROUND}): failed (isError)." in page
    assert "“echo”" not in page
    assert "1 entry" in page


def test_a_custom_admin_site_serves_the_section_once_registered(playground: None) -> None:
    _user, client = _player()

    index = client.get("/other-admin/").content.decode()
    catalog = client.get("/other-admin/django_mcp/mcpcatalog/")
    component = _text(
        client.get(f"/other-admin/django_mcp/mcpcatalog/{quote(f'{PLAYGROUND}~tool~echo')}/change/")
    )

    assert 'href="/other-admin/django_mcp/mcpcatalog/"' in index
    assert catalog.status_code == 200
    assert f'href="/other-admin/django_mcp/mcpcatalog/server/{PLAYGROUND}/"' in catalog.content.decode()
    assert '<a href="/other-admin/">Home</a>' in component


def test_the_catalog_says_how_to_register_a_server_when_there_is_none() -> None:
    _user, client = _staff()

    page = _text(client.get(SECTION))

    assert "No MCP servers are registered." in page
    assert 'id="result_list"' not in page


# ------------------------------------------------------------------- tasks


class ReportTool(Tool):
    """Runs only as a task; asks before it starts."""

    name = "report"
    task = "required"

    def handle(self, request: McpRequest) -> Any:
        from django_mcp.inputs import elicit, input_required

        answer = request.input_responses.get("go")
        if answer is None:
            schema = {"type": "object", "properties": {"title": {"type": "string"}}}
            return input_required({"go": elicit("Title of the report?", schema)})
        request.task.status_message = "writing"
        return McpResponse.text(f"Report: {answer['content']['title']}")


class TaskPlaygroundServer(Server):
    name = "task-playground"
    tools = (ReportTool,)


TASK_SERVER = f"{__name__}.TaskPlaygroundServer"


@pytest.fixture
def task_playground() -> None:
    registry.web("task-playground", TaskPlaygroundServer)


def test_the_server_page_and_the_catalog_show_each_extensions_stage(
    task_playground: None, settings: Any
) -> None:
    _user, client = _staff()

    page = " ".join(_text(client.get(f"{SECTION}server/{TASK_SERVER}/")).split())
    settings.MCP_TASKS_EXTENSION = False
    catalog = " ".join(_text(client.get(URL)).split())

    assert (
        '<code>io.modelcontextprotocol/tasks</code> <span class="mcp-badge mcp-stage-beta">beta</span> '
        "revision <code>1</code></div>"
    ) in page
    assert (
        "<code>io.modelcontextprotocol/tasks</code> beta, revision <code>1</code> "
        '<span class="mcp-meta">(turned off by its setting)</span>'
    ) in catalog


class GuardedPingTool(Tool):
    name = "guarded-ping"
    permissions = ("auth.change_user",)

    def handle(self) -> McpResponse:
        return McpResponse.text("pong")


class SearchedServer(Server):
    name = "searched"
    tools = (PingTool, GuardedPingTool)
    tool_search = ToolSearch(threshold=0)


def test_view_as_counts_the_tools_behind_tool_search() -> None:
    bob = get_user_model().objects.create_user(username="bob", password="pw-123456")

    visible = async_to_sync(visible_keys)(SearchedServer, bob)

    # tools/list shows bob search_tools and call_tool; he may use ping only.
    assert visible["tool"] == frozenset({"ping"})


def _task_panel(page: str) -> dict[str, str]:
    match = re.search(r'<div class="module mcp-task[^"]*" id="mcp-task"([^>]*)>', page)
    assert match is not None, page
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', match.group(1)))


@pytest.mark.django_db(transaction=True)
def test_a_required_task_tool_runs_as_a_task_answered_through_tasks_update(task_playground: None) -> None:
    _user, client = _player()
    url = _component("tool", "report", TASK_SERVER)

    created = client.post(url, {"step": "call"}).content.decode()
    form = re.search(
        r'name="task_id" value="([^"]+)">\s*<input type="hidden" name="pending" value="([^"]*)"', created
    )
    assert form is not None, created
    done = _text(
        client.post(
            url,
            {
                "step": "task_update",
                "task_id": form.group(1),
                "pending": html.unescape(form.group(2)),
                "action.go": "accept",
                "input.go.title": "Q3",
            },
        )
    )

    created = html.unescape(created)
    assert '<span class="mcp-task-status">input_required</span>' in created
    assert '<p class="mcp-input-message">Title of the report?</p>' in created
    assert 'value="task_update"' in created and 'value="task_cancel"' in created
    assert "data-poll-url" not in created  # waiting for input: no polling
    assert '<span class="mcp-task-status">completed</span>' in done
    assert '<pre class="mcp-text">Report: Q3</pre>' in done
    assert '<p class="mcp-task-message">writing</p>' in done
    assert 'value="task_cancel"' not in done
    assert _history()[-1].get_change_message() == (
        "Playground sent tasks/update for a task of tool “report”."
    )


@pytest.mark.django_db(transaction=True)
def test_a_working_task_page_polls_at_its_interval_and_can_be_cancelled(
    task_playground: None, settings: Any
) -> None:
    settings.TASKS = {
        "default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"},
        "stored": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"},
    }
    settings.MCP_TASK_BACKEND = "stored"  # stored, never run: the task stays queued
    settings.MCP_TASK_POLL_INTERVAL = 2.5
    _user, client = _player()
    url = _component("tool", "report", TASK_SERVER)

    created = _text(client.post(url, {"step": "call"}))
    panel = _task_panel(created)
    task_id = re.search(r'name="task_id" value="([^"]+)"', created)
    assert task_id is not None
    polled = _text(client.get(panel["poll-url"]))
    cancelled = _text(client.post(url, {"step": "task_cancel", "task_id": task_id.group(1)}))

    assert panel["poll-ms"] == "2500"
    assert '<span class="mcp-task-status">working</span>' in created
    assert '<p class="mcp-task-message">queued</p>' in created
    assert polled.lstrip().startswith('<div class="module mcp-task')  # the panel alone
    assert _task_panel(polled)["poll-url"] == panel["poll-url"]
    assert '<span class="mcp-task-status">cancelled</span>' in cancelled
    assert "data-poll-url" not in cancelled


@pytest.mark.django_db(transaction=True)
def test_another_users_task_is_not_shown(task_playground: None, settings: Any) -> None:
    settings.TASKS = {
        "default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"},
        "stored": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"},
    }
    settings.MCP_TASK_BACKEND = "stored"
    _user, client = _player()
    url = _component("tool", "report", TASK_SERVER)
    panel = _task_panel(_text(client.post(url, {"step": "call"})))
    _other, other = _staff("bob", "django_mcp.use_playground")

    page = _text(other.get(panel["poll-url"]))
    refused = other.get(panel["poll-url"].replace("/task/", "/task/x"))

    assert "Failed to retrieve task: Task not found" in page
    assert refused.status_code == 200  # an unknown id is the same "not found" panel
    assert "Failed to retrieve task: Task not found" in _text(refused)


def _task_row(**fields: Any) -> Any:
    import datetime

    from django.utils import timezone

    from django_mcp.models import McpTask

    now = timezone.now()
    values: dict[str, Any] = {
        "id": fields.pop("id"),
        "server": TASK_SERVER,
        "tool": "report",
        "owner": "user:1",
        "created_at": now - datetime.timedelta(hours=1),
        "updated_at": now - datetime.timedelta(minutes=30),
        **fields,
    }
    return McpTask.objects.create(**values)


def test_the_task_list_shows_lease_state_and_filters_stuck_tasks() -> None:
    import datetime

    from django.utils import timezone

    past = timezone.now() - datetime.timedelta(minutes=5)
    _task_row(id="lapsed-task", running=True, lease_expires_at=past, lease_holder="web-1:42")
    _task_row(id="queued-task", status_message="queued")
    _task_row(id="done-task", status="completed", result={"content": []})
    _user, client = _staff("root", superuser=True)

    everything = _text(client.get("/admin/django_mcp/mcptask/"))
    lapsed = _text(client.get("/admin/django_mcp/mcptask/?stuck=lapsed"))
    queued = _text(client.get("/admin/django_mcp/mcptask/?stuck=queued"))

    assert all(name[:12] in everything for name in ("lapsed-task", "queued-task", "done-task"))
    assert "LAPSED 5" in lapsed and "by web-1:42" in lapsed
    assert "queued-task"[:12] not in lapsed and "done-task"[:9] not in lapsed
    assert "queued-task"[:12] in queued and "lapsed-task"[:12] not in queued
    assert client.get("/admin/django_mcp/mcptask/add/").status_code == 403


def test_the_task_list_shows_owners_by_user_name_in_one_query(django_assert_max_num_queries: Any) -> None:
    user, client = _staff("root", superuser=True)
    _task_row(id="mine-1", owner=f"user:{user.pk}")
    _task_row(id="mine-2", owner=f"user:{user.pk}")
    _task_row(id="gone-task", owner="user:999999")
    _task_row(id="anon-task", owner="anonymous:10.0.0.7")

    page = _text(client.get("/admin/django_mcp/mcptask/"))
    detail = _text(client.get("/admin/django_mcp/mcptask/mine-1/change/"))
    owners = re.findall(r'<td class="field-owner_name">(.*?)</td>', page)

    assert sorted(owners) == ["anonymous (10.0.0.7)", "root", "root", "user:999999 (deleted)"]
    assert f"user:{user.pk}<" not in page
    assert '<div class="readonly">root</div>' in detail
    # One query for every owner of the page, whatever their number.
    with django_assert_max_num_queries(12) as few:
        client.get("/admin/django_mcp/mcptask/")
    _task_row(id="more-1", owner="user:5")
    _task_row(id="more-2", owner="user:6")
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get("/admin/django_mcp/mcptask/")


# ------------------------------------------------------------------ skills


class GuardedReleaseNotesSkill(Skill):
    """The conformance app's release-notes skill, for users who may view users."""

    name = "release-notes"
    permissions = ("auth.view_user",)


class SkillsServer(Server):
    name = "skills"
    skills = ("restock-check", GuardedReleaseNotesSkill)


SKILLS = "tests.test_admin.SkillsServer"


@pytest.fixture
def skills() -> None:
    pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")
    registry.web("skills", SkillsServer)


def test_skills_are_counted_listed_and_filtered_by_kind(playground: None, skills: None) -> None:
    _user, client = _staff()
    url = f"{SECTION}server/{quote(SKILLS)}/"

    catalog = " ".join(_text(client.get(SECTION)).split())
    everything = client.get(url)
    only_skills = client.get(url, {"kind": "skill"})

    assert "3 servers, 7 tools, 2 resources, 2 resource templates, 2 prompts, 2 skills." in catalog
    assert _names(everything) == _names(only_skills) == ["restock-check", "release-notes"]
    assert '<li class="selected"><a href="?kind=skill">Skills (2)</a></li>' in only_skills.content.decode()


def test_a_skill_page_shows_its_files_and_its_skills_list_entry(playground: None, skills: None) -> None:
    _user, client = _staff()

    response = client.get(_component("skill", "skill://restock-check/SKILL.md", SKILLS))

    assert response.status_code == 200
    page = _text(response)
    skill = SkillsServer.compiled().skills.skills["skill://restock-check/SKILL.md"]
    assert "<title>Skill: restock-check | Django site admin</title>" in page
    assert "As listed by <code>skills/list</code>" in page
    assert _pre(page, "mcp-definition") == [_listed(skill.definition)]
    for file in skill.files.values():
        assert f"<tr><td><code>{file.uri}</code></td><td>{file.size} bytes</td>" in page
    assert "Read the skill's <code>skill://restock-check/SKILL.md</code>" not in page  # no permission


def test_the_playground_reads_a_skills_skill_md(playground: None, skills: None) -> None:
    user, client = _player()

    page = _text(client.post(_component("skill", "skill://restock-check/SKILL.md", SKILLS), {"step": "call"}))

    assert "Contents: <code>skill://restock-check/SKILL.md</code>" in page
    assert "name: restock-check" in page
    (entry,) = _history()
    assert entry.get_change_message() == (
        f"Playground sent resources/read for skill “restock-check” ({SKILLS}): succeeded."
    )
    assert entry.user == user


def test_view_as_shows_which_skills_another_user_can_see(playground: None, skills: None) -> None:
    get_user_model().objects.create_user(username="bob", password="pw-123456")
    _user, client = _staff("alice", "auth.change_user")

    page = _text(client.get(f"{SECTION}server/{quote(SKILLS)}/", {"as": "bob"}))

    rows = re.findall(r'data-name="([^"]+)">.*?<td class="mcp-visible"><img [^>]*alt="(\w+)">', page, re.S)
    assert rows == [("restock-check", "visible"), ("release-notes", "hidden")]


# ------------------------------------------------- why a tool failed (staff only)


class CrashTool(Tool):
    """Fail with an unexpected exception."""

    name = "crash"

    def handle(self) -> McpResponse:
        raise RuntimeError("the shelf database is locked")


class CrashServer(Server):
    tools = (CrashTool,)


CRASH = f"{__name__}.CrashServer"


@pytest.fixture
def crash() -> None:
    registry.web("crash", CrashServer)


def _quiet(user: Any) -> Client:
    """Return a client for ``user`` that does not re-raise what the server logged."""
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def test_a_superuser_sees_why_a_tool_failed(crash: None) -> None:
    client = _quiet(_staff("root", superuser=True)[0])

    page = _text(client.post(_component("tool", "crash", CRASH), {"step": "call"}))

    assert '<div class="errornote mcp-failure-reason">' in page
    assert "<code>RuntimeError: the shelf database is locked</code>" in page
    # What the client got is still the generic message only.
    response = page.split('<pre class="mcp-response">', 1)[1].split("</pre>", 1)[0]
    assert "Tool execution failed" in response
    assert "locked" not in response


def test_staff_sees_why_a_tool_failed_only_under_debug(crash: None, settings: Any) -> None:
    client = _quiet(_player()[0])

    hidden = _text(client.post(_component("tool", "crash", CRASH), {"step": "call"}))
    settings.DEBUG = True
    shown = _text(client.post(_component("tool", "crash", CRASH), {"step": "call"}))

    assert "Tool execution failed" in hidden
    assert "the shelf database is locked" not in hidden
    assert "RuntimeError: the shelf database is locked" in shown


async def test_mcp_clients_never_get_the_reason(crash: None, settings: Any) -> None:
    settings.DEBUG = True
    client = McpTestClient(CrashServer)

    result = await client.call_tool("crash", {})

    assert result.response["result"]["content"] == [{"type": "text", "text": "Tool execution failed"}]
    assert result.response["result"]["isError"] is True
