"""Tests of ``manage.py mcp_card`` and ``django_mcp.server_card``."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from django_mcp import McpResponse, Prompt, Resource, Server, Tool
from django_mcp.protocol.versions import SUPPORTED_VERSIONS
from django_mcp.registry import registry
from django_mcp.server_card import CATALOG_META, SCHEMA_URL, encode_card, etag, server_card


class LookupTool(Tool):
    """Look a word up."""

    name = "lookup"
    title = "Look up"

    def handle(self) -> McpResponse:
        return McpResponse.text("found")


class LaterTool(Tool):
    """Runs as a task."""

    name = "later"
    task = "optional"

    def handle(self) -> McpResponse:
        return McpResponse.text("done")


class VaultTool(Tool):
    """Opens the vault."""

    name = "vault"
    permissions = ("auth.view_user",)

    def handle(self) -> McpResponse:
        return McpResponse.text("opened")


class IndexResource(Resource):
    """The index."""

    uri = "words://index"
    mime_type = "text/plain"

    def handle(self) -> str:
        return "a b c"


class DefinePrompt(Prompt):
    """Define a word."""

    name = "define"

    def handle(self) -> str:
        return "Define it."


class WordsServer(Server):
    name = "com.example/words"
    version = "2.1.0"
    title = "Words"
    description = "Looks words up."
    website_url = "https://example.com/words"
    tools = (LookupTool, LaterTool, VaultTool)
    resources = (IndexResource,)
    prompts = (DefinePrompt,)


class PlainServer(Server):
    tools = (LookupTool,)


class PrivateServer(Server):
    name = "com.example/private"
    description = "Members only."
    login_required = True
    tools = (LookupTool,)


def _endpoint(request: HttpRequest) -> HttpResponse:
    return HttpResponse()


# Where --base-url finds the endpoint: the path of the django_mcp:words route.
urlpatterns = [path("mcp/", include(([path("words", _endpoint, name="words")], "django_mcp")))]


@pytest.fixture
def registered() -> Iterator[None]:
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    registry.web("words", WordsServer)
    registry.local("words-local", WordsServer)
    registry.local("plain", PlainServer)
    yield
    registry.restore(saved)


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("mcp_card", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_card_holds_identity_remote_and_a_public_catalog_summary(registered: None) -> None:
    out, err = run("words", "--url", "https://example.com/mcp/words")

    assert json.loads(out) == {
        "$schema": SCHEMA_URL,
        "name": "com.example/words",
        "version": "2.1.0",
        "title": "Words",
        "description": "Looks words up.",
        "websiteUrl": "https://example.com/words",
        "remotes": [
            {
                "type": "streamable-http",
                "url": "https://example.com/mcp/words",
                "supportedProtocolVersions": list(SUPPORTED_VERSIONS),
            }
        ],
        "_meta": {
            CATALOG_META: {
                "capabilities": {
                    "tools": {"listChanged": True},
                    "resources": {"listChanged": True, "subscribe": True},
                    "prompts": {"listChanged": True},
                    "completions": {},
                    "logging": {},
                },
                "extensions": {"io.modelcontextprotocol/tasks": {"stage": "beta", "revision": "1"}},
                "tools": [
                    {"name": "lookup", "title": "Look up", "description": "Look a word up."},
                    {"name": "later", "description": "Runs as a task."},
                ],
                "resources": [
                    {
                        "uri": "words://index",
                        "name": "index",
                        "description": "The index.",
                        "mimeType": "text/plain",
                    }
                ],
                "resourceTemplates": [],
                "prompts": [{"name": "define", "description": "Define a word."}],
            }
        },
    }
    assert err == ""


def test_the_same_catalog_gives_the_same_bytes_and_etag(registered: None) -> None:
    first, _ = run("words")
    again, _ = run("words")

    assert first == again
    assert etag(first.encode()) == etag(encode_card(server_card(WordsServer)))


@pytest.mark.urls(__name__)
def test_base_url_adds_the_endpoint_the_urlconf_serves(registered: None) -> None:
    out, _ = run("words", "--base-url", "https://books.example/")

    assert json.loads(out)["remotes"][0]["url"] == "https://books.example/mcp/words"


def test_without_a_url_the_card_lists_no_remote_and_says_so(registered: None) -> None:
    out, err = run("local:words-local")

    assert "remotes" not in json.loads(out)
    assert "no remote endpoint" in err


def test_a_login_required_server_lists_no_components() -> None:
    summary = server_card(PrivateServer)["_meta"][CATALOG_META]

    assert (summary["tools"], summary["resources"], summary["prompts"]) == ([], [], [])


def test_output_writes_the_file(registered: None, tmp_path: Path) -> None:
    target = tmp_path / "card.json"

    out, _ = run("words", "--output", str(target))

    assert out == ""
    assert json.loads(target.read_text())["name"] == "com.example/words"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nowhere",), "No MCP server is registered as 'nowhere'"),
        (("plain",), "A server card's name is 'namespace/name'"),
        (("plain", "--name", "com.example/plain"), "this server has no description: pass --description"),
        (("words", "--description", "x" * 101), "description is 101 characters"),
        (("local:plain", "--name", "a.b/c", "--description", "d", "--base-url", "https://x"), "STDIO only"),
        (("words", "--url", "example.com/mcp"), "must be absolute"),
    ],
)
def test_bad_requests_are_command_errors(registered: None, args: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run(*args)


@pytest.mark.urls("tests.echo_server")  # no django_mcp.urls routes
def test_base_url_without_the_django_mcp_routes_is_a_command_error(registered: None) -> None:
    with pytest.raises(CommandError, match="pass the endpoint's whole --url"):
        run("words", "--base-url", "https://example.com")


def test_name_and_description_options_replace_the_servers_own(registered: None) -> None:
    out, _ = run("plain", "--name", "com.example/plain", "--description", "Plain words.")

    card: dict[str, Any] = json.loads(out)
    assert (card["name"], card["description"], card["version"]) == (
        "com.example/plain",
        "Plain words.",
        "0.1.0",
    )
