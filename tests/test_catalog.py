"""Tests of ``manage.py mcp_catalog`` and ``django_mcp._catalog``."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

import pytest
from django.core.management import CommandError, call_command

from django_mcp import (
    McpResponse,
    Prompt,
    PromptArgument,
    Resource,
    Server,
    Tool,
    ToolAnnotations,
)
from django_mcp._catalog import catalog_text
from django_mcp.registry import registry
from django_mcp.schemas import Schema
from tests.wire import call


class SearchTool(Tool):
    """Find books by title."""

    name = "search"
    title = "Search books"
    input: ClassVar[Any] = {
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["query"],
    }
    annotations = ToolAnnotations(read_only=True, open_world=False)

    async def handle(self, payload: dict[str, Any]) -> McpResponse:
        return McpResponse.text(payload["query"])


class ShelveTool(Tool):
    """Put a book back."""

    name = "shelve"
    permissions = ("auth.change_user",)

    async def handle(self) -> McpResponse:
        return McpResponse.text("shelved")


class CatalogResource(Resource):
    """Every book."""

    name = "catalog"
    uri = "books://catalog"
    mime_type = "application/json"

    async def handle(self) -> McpResponse:
        return McpResponse.structured({"books": []})


class BookResource(Resource):
    """One book."""

    name = "book"
    uri_template = "books://isbn/{isbn}"

    async def handle(self, isbn: str) -> McpResponse:
        return McpResponse.text(isbn)


class RecommendPrompt(Prompt):
    """Recommend a book."""

    name = "recommend"
    arguments = (PromptArgument("genre", required=True), PromptArgument("tone"))

    async def handle(self, genre: str, tone: str | None = None) -> McpResponse:
        return McpResponse.text(f"Recommend {genre}")


class BooksServer(Server):
    name = "books"
    version = "2.0.0"
    title = "Books"
    instructions = "Search first."
    tools = (SearchTool, ShelveTool)
    resources = (CatalogResource, BookResource)
    prompts = (RecommendPrompt,)


class EmptyServer(Server):
    name = "empty"
    version = "0.1.0"


@pytest.fixture
def registered() -> Iterator[None]:
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    registry.web("books/", BooksServer)
    registry.local("books-local", BooksServer)
    registry.local("empty", EmptyServer)
    yield
    registry.restore(saved)


SHELVE = {
    "name": "shelve",
    "description": "Put a book back.",
    "inputSchema": {"type": "object", "additionalProperties": False},
}


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("mcp_catalog", *args, stdout=out)
    return out.getvalue()


async def result_of(server: type[Server], method: str) -> dict[str, Any]:
    """Return what the dispatcher answers to a modern ``method`` request."""
    result: dict[str, Any] = (await call(server, method))["result"]
    return result


async def test_json_catalog_is_what_discover_and_the_list_methods_return(registered: None) -> None:
    discover = await result_of(BooksServer, "server/discover")
    tools = await result_of(BooksServer, "tools/list")
    resources = await result_of(BooksServer, "resources/list")
    templates = await result_of(BooksServer, "resources/templates/list")
    prompts = await result_of(BooksServer, "prompts/list")

    printed = json.loads(run("books", "--format", "json"))

    assert printed == {
        "serverInfo": discover["_meta"]["io.modelcontextprotocol/serverInfo"],
        "capabilities": discover["capabilities"],
        "instructions": "Search first.",
        "tools": [*tools["tools"], SHELVE],
        "resources": resources["resources"],
        "resourceTemplates": templates["resourceTemplates"],
        "prompts": prompts["prompts"],
    }
    # tools/list hides the permission-guarded tool from this caller; the
    # catalog lists every declared component.
    assert [tool["name"] for tool in tools["tools"]] == ["search"]


def test_json_catalog_of_every_server_is_keyed_by_kind(registered: None) -> None:
    printed = json.loads(run("--format", "json"))

    assert list(printed) == ["web", "local"]
    assert list(printed["web"]) == ["books"]
    assert list(printed["local"]) == ["books-local", "empty"]
    assert (
        printed["web"]["books"]
        == printed["local"]["books-local"]
        == json.loads(run("books", "--format", "json"))
    )


@pytest.mark.parametrize("name", ["books", "/books/", "web:books", "books-local", "local:books-local"])
def test_server_may_be_named_by_web_path_or_local_name(registered: None, name: str) -> None:
    assert json.loads(run(name, "--format", "json"))["serverInfo"]["name"] == "books"


@pytest.mark.parametrize("name", ["nope", "web:empty", "local:books"])
def test_unknown_server_is_a_command_error_naming_the_registered_ones(registered: None, name: str) -> None:
    with pytest.raises(CommandError) as raised:
        run(name)

    assert "'books'" in str(raised.value) and "'books-local'" in str(raised.value)


def test_name_used_by_two_different_servers_must_be_qualified(registered: None) -> None:
    registry.web("empty", BooksServer)

    with pytest.raises(CommandError):
        run("empty")
    assert json.loads(run("local:empty", "--format", "json"))["serverInfo"]["name"] == "empty"


def test_text_catalog_lists_every_component(registered: None) -> None:
    printed = run("web:books")

    assert printed == (
        'web "books": Books (books 2.0.0)\n'
        "  Instructions: Search first.\n"
        "  Tools (2):\n"
        "    search — Search books\n"
        "      Find books by title.\n"
        "      arguments (* = required): query*: string, limit: integer\n"
        "      annotations: readOnlyHint\n"
        "    shelve\n"
        "      Put a book back.\n"
        "  Resources (1):\n"
        "    books://catalog (catalog) [application/json]\n"
        "      Every book.\n"
        "  Resource templates (1):\n"
        "    books://isbn/{isbn} (book)\n"
        "      One book.\n"
        "  Prompts (1):\n"
        "    recommend\n"
        "      Recommend a book.\n"
        "      arguments (* = required): genre*, tone\n"
    )


def test_text_catalog_of_every_server_labels_each_one(registered: None) -> None:
    printed = run()

    assert printed.split("\n\n")[-1] == (
        'local "empty": empty 0.1.0\n'
        "  Tools: none\n"
        "  Resources: none\n"
        "  Resource templates: none\n"
        "  Prompts: none\n"
    )
    assert printed.count('"books') == 2


def test_no_registered_server_is_reported(registered: None) -> None:
    registry.restore({"web": {}, "local": {}})

    assert (run(), json.loads(run("--format", "json"))) == (
        "No MCP servers are registered.\n",
        {"web": {}, "local": {}},
    )


class SkillsServer(Server):
    name = "skills"
    skills = ("restock-check",)


async def test_a_server_with_skills_lists_them_as_skills_list_and_resources_list_do() -> None:
    pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    registry.web("skills", SkillsServer)
    try:
        skills = await result_of(SkillsServer, "skills/list")
        resources = await result_of(SkillsServer, "resources/list")
        printed = json.loads(run("skills", "--format", "json"))
        text = run("skills")
    finally:
        registry.restore(saved)

    assert (printed["skills"], printed["resources"]) == (skills["skills"], resources["resources"])
    [entry] = skills["skills"]
    size = sum(item["size"] for item in entry["resources"])
    assert text.endswith(
        "  Skills (1):\n"
        "    restock-check (skill://restock-check/SKILL.md)\n"
        f"      {entry['frontmatter']['description']}\n"
        f"      files: 2, {size} bytes\n"
    )


class Shelf(Schema):
    """Where a book goes."""

    room: str


class FilingInput(Schema):
    title: str
    note: str | None = None
    copies: int = 1
    tags: list[str] = []
    size: Literal["small", "large"] = "small"
    shelf: Shelf | None = None
    weight: int | float | None = None


class FileTool(Tool[FilingInput]):
    """File a book."""

    name = "file"

    def handle(self, payload: FilingInput) -> McpResponse:
        return McpResponse.text("filed")


class FilingServer(Server):
    name = "filing"
    tools = (FileTool,)


def test_optional_and_nullable_arguments_show_their_types() -> None:
    text = catalog_text(FilingServer)

    assert (
        "      arguments (* = required): title*: string, note: string | null, copies: integer, "
        'tags: string[], size: "large" | "small", shelf: Shelf | null, weight: integer | number | null'
    ) in text
