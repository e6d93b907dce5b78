"""ModelAdminTools on the wire: the shelf's VolumeAdmin as four callers see it.

``VolumeAdmin`` is row-scoped (a non-superuser sees their own volumes),
searches three fields (one through a many-to-many, which duplicates rows),
selects the author with ``list_select_related``, and its form leaves
``notes`` and ``owner`` out. Calls are made from sync tests through
``async_to_sync``, so the sync handlers run on the test's own connection
and its queries can be counted.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.db import connection
from django.test.utils import CaptureQueriesContext

from django_mcp import Server
from django_mcp.contrib.admin import ModelAdminTools
from django_mcp.protocol.jsonrpc import INVALID_PARAMS
from testproject.shelf.admin import VolumeAdmin
from testproject.shelf.mcp import ShelfServer
from testproject.shelf.models import Volume
from tests.contrib.shelf import Shelf, call, listed

ADMIN_TOOLS = [
    "admin-volume-list",
    "admin-volume-get",
    "admin-volume-change",
    "admin-volume-add",
    "admin-volume-delete",
    "admin-volume-mark-worn",
]


def admin_tools(names: list[str]) -> list[str]:
    return [name for name in names if name.startswith("admin-")]


def shown(volume: Volume) -> dict[str, Any]:
    """Return a volume as the admin tools show it: id and the form's fields."""
    return {
        "id": volume.pk,
        "title": volume.title,
        "author": volume.author_id,
        "tags": sorted(tag.pk for tag in volume.tags.all()),
        "stock": volume.stock,
        "condition": volume.condition,
    }


def results(result: Any) -> list[dict[str, Any]]:
    rows = result.assert_ok().structured_content["results"]
    return [{**row, "tags": sorted(row["tags"])} for row in rows]


# ---------------------------------------------------------------- visibility


def test_each_caller_sees_the_admin_tools_the_admin_lets_them_use(shelf: Shelf) -> None:
    assert admin_tools(listed(shelf.client(shelf.boss))) == ADMIN_TOOLS
    assert admin_tools(listed(shelf.client(shelf.viewer))) == ["admin-volume-list", "admin-volume-get"]
    assert admin_tools(listed(shelf.client(shelf.outsider))) == []  # not staff
    assert admin_tools(listed(shelf.client(shelf.anonymous))) == []


@pytest.mark.parametrize("who", ["viewer", "outsider", "anonymous"])
def test_a_tool_the_caller_may_not_use_answers_like_an_unknown_one(shelf: Shelf, who: str) -> None:
    client = shelf.client(getattr(shelf, who))

    hidden = call(client, "admin-volume-delete", {"id": shelf.kindred.pk})
    unknown = call(client, "admin-volume-burn", {"id": shelf.kindred.pk})

    assert hidden.error == {"code": INVALID_PARAMS, "message": "Unknown tool: admin-volume-delete"}
    assert unknown.error == {"code": INVALID_PARAMS, "message": "Unknown tool: admin-volume-burn"}
    assert Volume.objects.filter(pk=shelf.kindred.pk).exists()


def test_annotations_mark_reads_and_destructive_writes() -> None:
    tools = ShelfServer.compiled().tools
    hints = {
        name: (tool.definition.annotations.read_only_hint, tool.definition.annotations.destructive_hint)
        for name, tool in tools.items()
        if name.startswith("admin-")
    }
    assert hints == {
        "admin-volume-list": (True, False),
        "admin-volume-get": (True, False),
        "admin-volume-change": (False, False),
        "admin-volume-add": (False, False),
        "admin-volume-delete": (False, True),
        "admin-volume-mark-worn": (False, True),
    }


# --------------------------------------------------------------- row scope


def test_get_shows_the_object_as_the_admin_does(shelf: Shelf) -> None:
    result = call(shelf.client(shelf.viewer), "admin-volume-get", {"id": shelf.theirs.pk})
    mine = call(shelf.client(shelf.boss), "admin-volume-get", {"id": shelf.kindred.pk})

    result.assert_is_error()  # the viewer owns nothing
    mine.assert_ok().assert_structured(shown(shelf.kindred)).assert_doesnt_see("Lent to Sam")


@pytest.mark.parametrize("tool", ["admin-volume-get", "admin-volume-change", "admin-volume-delete"])
def test_a_row_outside_the_queryset_answers_exactly_like_a_missing_one(shelf: Shelf, tool: str) -> None:
    client = shelf.client(shelf.boss)
    missing_id = Volume.objects.order_by("-pk").first().pk + 100  # type: ignore[union-attr]

    outside = call(client, tool, {"id": shelf.theirs.pk})
    missing = call(client, tool, {"id": missing_id})

    assert outside.is_error and missing.is_error
    assert outside.text == f'Volume with ID "{shelf.theirs.pk}" does not exist.'
    assert missing.text == outside.text.replace(str(shelf.theirs.pk), str(missing_id))
    assert Volume.objects.get(pk=shelf.theirs.pk).title == "Dawn"
    assert not LogEntry.objects.exists()


def test_list_pages_through_the_callers_rows_with_signed_cursors(shelf: Shelf) -> None:
    client = shelf.client(shelf.boss)
    seen: list[dict[str, Any]] = []
    arguments: dict[str, Any] = {"page_size": 4}
    pages = 0
    while True:
        result = call(client, "admin-volume-list", arguments)
        seen += results(result)
        pages += 1
        cursor = result.structured_content["nextCursor"]
        if cursor is None:
            break
        arguments = {"page_size": 4, "cursor": cursor}

    assert pages == 2
    assert seen == [shown(volume) for volume in sorted([*shelf.mine, shelf.kindred], key=lambda v: v.title)]


def test_search_uses_the_admins_search_fields_without_duplicate_rows(shelf: Shelf) -> None:
    client = shelf.client(shelf.boss)

    by_tag = results(call(client, "admin-volume-list", {"search": "fantasy"}))  # tags__name: one join per tag
    by_author = results(call(client, "admin-volume-list", {"search": "butler"}))
    others = results(call(client, "admin-volume-list", {"search": "dawn"}))

    assert [row["title"] for row in by_tag] == [f"Earthsea {n}" for n in range(1, 6)]
    assert [row["title"] for row in by_author] == ["Kindred"]
    assert others == []


def test_a_cursor_of_another_search_or_a_forged_one_is_a_tool_error(shelf: Shelf) -> None:
    client = shelf.client(shelf.boss)
    cursor = call(client, "admin-volume-list", {"page_size": 1}).structured_content["nextCursor"]

    other_search = call(client, "admin-volume-list", {"search": "earthsea", "cursor": cursor})
    forged = call(client, "admin-volume-list", {"cursor": cursor[:-2] + "xx"})

    for result in (other_search, forged):
        result.assert_is_error()
        assert result.text == "Invalid cursor: start again without one."


def test_page_size_defaults_to_and_is_capped_by_the_page_settings(shelf: Shelf, settings: Any) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 2
    settings.MCP_MAX_PAGE_SIZE = 3
    client = shelf.client(shelf.boss)

    default = results(call(client, "admin-volume-list"))
    capped = results(call(client, "admin-volume-list", {"page_size": 50}))

    assert (len(default), len(capped)) == (2, 3)


def test_list_queries_do_not_grow_with_the_page_size(shelf: Shelf) -> None:
    for n in range(20):
        shelf.volume(f"Extra {n:02}", shelf.butler, shelf.boss, tags=(shelf.classic,))
    client = shelf.client(shelf.boss)
    call(client, "admin-volume-list", {"page_size": 1})  # warm the caller's permission cache

    counts = []
    for size in (1, 5, 25):
        with CaptureQueriesContext(connection) as queries:
            assert len(results(call(client, "admin-volume-list", {"page_size": size}))) == size
        counts.append(len(queries))

    assert counts[0] == counts[1] == counts[2]
    listing = [query["sql"] for query in queries if 'FROM "shelf_volume"' in query["sql"]]
    assert any('INNER JOIN "demo_author"' in sql for sql in listing)  # list_select_related


# ------------------------------------------------------------------ writes


def test_change_sets_only_the_given_fields_and_logs_the_change(shelf: Shelf) -> None:
    result = call(shelf.client(shelf.boss), "admin-volume-change", {"id": shelf.kindred.pk, "stock": 9})

    shelf.kindred.refresh_from_db()
    result.assert_ok().assert_structured(shown(shelf.kindred))
    assert (shelf.kindred.stock, shelf.kindred.title, shelf.kindred.notes) == (9, "Kindred", "Lent to Sam")
    entry = LogEntry.objects.get()
    assert (entry.action_flag, entry.user, entry.object_id) == (CHANGE, shelf.boss, str(shelf.kindred.pk))
    assert entry.get_change_message() == "Changed Stock."


def test_add_goes_through_save_model_and_logs_the_addition(shelf: Shelf) -> None:
    result = call(
        shelf.client(shelf.boss),
        "admin-volume-add",
        {"title": "Parable of the Sower", "author": shelf.butler.pk, "tags": [shelf.classic.pk]},
    )

    volume = Volume.objects.get(title="Parable of the Sower")
    result.assert_ok().assert_structured(shown(volume))
    assert (volume.owner, volume.stock, volume.condition) == (shelf.boss, 1, "good")  # save_model, initial
    entry = LogEntry.objects.get()
    assert (entry.action_flag, entry.user, entry.object_id) == (ADDITION, shelf.boss, str(volume.pk))


def test_form_errors_are_tool_errors_naming_each_field(shelf: Shelf) -> None:
    result = call(
        shelf.client(shelf.boss), "admin-volume-add", {"title": "Nowhere", "author": 999, "tags": [998]}
    )

    result.assert_is_error()
    assert result.text.splitlines() == [
        "Invalid input:",
        "- author: Select a valid choice. That choice is not one of the available choices.",
        "- tags: Select a valid choice. 998 is not one of the available choices.",
    ]
    result.assert_structured(
        {
            "errors": {
                "author": ["Select a valid choice. That choice is not one of the available choices."],
                "tags": ["Select a valid choice. 998 is not one of the available choices."],
            }
        }
    )
    assert not Volume.objects.filter(title="Nowhere").exists()
    assert not LogEntry.objects.exists()


def test_arguments_that_break_the_schema_never_reach_the_form(shelf: Shelf) -> None:
    result = call(shelf.client(shelf.boss), "admin-volume-change", {"id": shelf.kindred.pk, "notes": "x"})

    result.assert_is_error()
    assert result.text == "Invalid tool arguments:\n- notes: unknown field"
    result.assert_structured({"errors": {"notes": ["unknown field"]}})


def test_delete_uses_the_admin_and_logs_the_deletion(shelf: Shelf) -> None:
    pk = shelf.kindred.pk
    result = call(shelf.client(shelf.boss), "admin-volume-delete", {"id": pk})

    result.assert_ok()
    assert result.text == 'The volume "Kindred" was deleted successfully.'
    assert not Volume.objects.filter(pk=pk).exists()
    entry = LogEntry.objects.get()
    assert (entry.action_flag, entry.user, entry.object_id, entry.object_repr) == (
        DELETION,
        shelf.boss,
        str(pk),
        "Kindred",
    )


def test_an_admin_action_runs_on_the_rows_of_the_queryset_only(shelf: Shelf) -> None:
    client = shelf.client(shelf.boss)
    ids = [volume.pk for volume in shelf.mine[:2]]

    refused = call(client, "admin-volume-mark-worn", {"ids": [*ids, shelf.theirs.pk]})
    done = call(client, "admin-volume-mark-worn", {"ids": ids})

    assert refused.is_error and refused.text == f'Volume with ID "{shelf.theirs.pk}" does not exist.'
    done.assert_ok()
    assert done.text == "2 volume(s) marked as worn."
    assert sorted(Volume.objects.filter(condition="worn").values_list("pk", flat=True)) == ids


def test_delete_selected_deletes_through_the_admin_and_logs_each_row(shelf: Shelf) -> None:
    bulk_tools = ModelAdminTools(VolumeAdmin, prefix="bulk", actions=("delete_selected",))

    class BulkServer(Server):
        name = "bulk"
        tools = bulk_tools

    from django_mcp.testing import McpTestClient

    ids = [volume.pk for volume in shelf.mine]
    result = call(McpTestClient(BulkServer, shelf.boss), "bulk-delete-selected", {"ids": ids})

    result.assert_ok()
    assert result.text == "Successfully deleted 5 volumes."
    assert not Volume.objects.filter(pk__in=ids).exists()
    assert (
        sorted(
            int(pk)
            for pk in LogEntry.objects.filter(action_flag=DELETION).values_list("object_id", flat=True)
        )
        == ids
    )
    definition = BulkServer.compiled().tools["bulk-delete-selected"].definition
    assert definition.title == "Delete selected volumes"
    assert definition.annotations.destructive_hint is True
