"""django_mcp._admin.catalog: the registered servers and their components as the admin pages show them.

Each test builds the catalog of a fresh ``Registry`` of its own, so the
project's registrations never enter it.
"""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import async_to_sync
from django.contrib.auth.models import AnonymousUser

from django_mcp import CacheHint, McpResponse, Prompt, Resource, Server, Tool, ToolAnnotations
from django_mcp._admin.catalog import build_catalog, find_entry, find_server, visible_keys
from django_mcp.registry import Registry


class BurnTool(Tool):
    """Burn the notes."""

    name = "burn"
    title = "Burn notes"
    annotations = ToolAnnotations(destructive=True)

    def handle(self) -> McpResponse:
        return McpResponse.text("burnt")


class VaultTool(Tool):
    """Open the vault."""

    name = "vault"
    permissions = ("auth.view_user",)

    def handle(self) -> McpResponse:
        return McpResponse.text("opened")


class NotesResource(Resource):
    """The notes."""

    name = "notes"
    uri = "notes://all"
    mime_type = "text/plain"
    cache = CacheHint(ttl_ms=5_000, scope="public")

    def handle(self) -> str:
        return "a, b"


class NoteResource(Resource):
    """One note."""

    name = "note"
    uri_template = "notes://{folder}/{id}"

    def handle(self, folder: str, id: str) -> str:  # noqa: A002 - the template variable's name
        return id


class SummaryPrompt(Prompt):
    """Summarize."""

    name = "summary"

    def handle(self) -> str:
        return "Summarize."


class NotesServer(Server):
    name = "notes"
    version = "1.2.0"
    tools = (BurnTool, VaultTool)
    resources = (NotesResource, NoteResource)
    prompts = (SummaryPrompt,)


class GuardedServer(Server):
    login_required = True
    resources = (NotesResource,)


KEY = f"{__name__}.NotesServer"


def registered() -> Registry:
    source = Registry()
    source.web("notes", NotesServer)
    source.local("notes-stdio", NotesServer)
    source.local("guarded", GuardedServer)
    return source


def test_a_server_registered_twice_is_listed_once_with_both_mounts() -> None:
    notes, guarded = build_catalog(registered())

    assert (notes.label, notes.key, notes.name, notes.version) == (KEY, KEY, "notes", "1.2.0")
    assert notes.mounts == (
        ("HTTP", "notes (below the include of django_mcp.urls)"),
        ("STDIO", "notes-stdio"),
    )
    assert guarded.mounts == (("STDIO", "guarded"),)
    assert notes.anchor == "server-" + KEY.replace(".", "-").lower()


def test_each_kind_lists_its_components_with_their_wire_definition() -> None:
    notes = find_server(KEY, registered())
    assert notes is not None

    assert [entry.key for entry in notes.entries] == [
        "burn",
        "vault",
        "notes://all",
        "notes://{folder}/{id}",
        "summary",
    ]
    assert [entry.key for entry in notes.of_kind("template")] == ["notes://{folder}/{id}"]
    assert notes.of_kind("nonsense") == notes.entries
    burn, vault = notes.tools
    assert (burn.label, burn.kind_label, burn.destructive, vault.destructive) == (
        "Burn notes",
        "Tool",
        True,
        False,
    )
    assert json.loads(burn.definition) == dict(burn.wire)
    assert vault.permissions == ("auth.view_user",)
    assert notes.templates[0].variables == ("folder", "id")


def test_a_reads_cache_hint_is_private_when_the_server_needs_a_login() -> None:
    notes, guarded = build_catalog(registered())

    assert notes.resources[0].cache == (5_000, "public")
    assert guarded.resources[0].cache == (5_000, "private")
    assert notes.tools[0].cache is None


def test_a_component_id_finds_its_server_and_entry_and_nothing_else() -> None:
    source = registered()
    notes = find_server(KEY, source)
    assert notes is not None
    template = notes.templates[0]

    assert template.component_id == f"{KEY}~template~notes://{{folder}}/{{id}}"
    assert find_entry(template.component_id, source) == (notes, template)
    assert find_entry(f"{KEY}~tool~missing", source) is None
    assert find_entry(f"{KEY}~gadget~burn", source) is None
    assert find_entry("no.such.Server~tool~burn", source) is None
    assert find_server("no.such.Server", source) is None


def test_entries_match_a_query_in_their_name_title_uri_or_description() -> None:
    notes = find_server(KEY, registered())
    assert notes is not None

    assert [entry.key for entry in notes.entries if entry.matches("NOTES")] == [
        "burn",
        "notes://all",
        "notes://{folder}/{id}",
    ]
    assert [entry.key for entry in notes.entries if entry.matches("vault")] == ["vault"]


def test_visible_keys_are_what_the_list_methods_show_the_user() -> None:
    visible: dict[str, Any] = async_to_sync(visible_keys)(NotesServer, AnonymousUser())

    assert visible == {
        "tool": frozenset({"burn"}),
        "resource": frozenset({"notes://all"}),
        "template": frozenset({"notes://{folder}/{id}"}),
        "prompt": frozenset({"summary"}),
        "skill": frozenset(),
    }
