"""Idempotency keys of ``tools/call``: django_mcp/dispatcher/idempotency.py.

On the wire through ``McpTestClient``: a retry with the same key, caller and
tool gets the stored result without a second run; another key, another
caller, a failed first call or an expired key runs again; other arguments
and a call still running are ``isError`` results; a tool that did not opt
in ignores the key. Calls are made from sync tests through
``async_to_sync``, so the ORM work (in ``sync_to_async`` threads) runs on
the test's own connection and its queries can be counted.
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from django_mcp import McpRequest, McpResponse, Server, Tool
from django_mcp.dispatcher.idempotency import (
    IDEMPOTENCY_KEY,
    MAX_KEY_LENGTH,
    OTHER_ARGUMENTS,
    STILL_RUNNING,
    arguments_hash,
    key_of,
    prune,
    reserve,
)
from django_mcp.exceptions import InvalidParams
from django_mcp.inputs import elicit, input_required
from django_mcp.models import McpIdempotencyKey
from django_mcp.protocol import jsonrpc
from django_mcp.protocol.tasks import EXTENSION
from django_mcp.schemas import Schema
from django_mcp.server.compiler import compile_server
from django_mcp.testing import McpTestClient

pytestmark = pytest.mark.django_db

#: How many times each tool's handler ran in the current test.
RUNS: Counter[str] = Counter()


class OrderInput(Schema):
    sku: str
    quantity: int = 1


class PlaceOrderTool(Tool[OrderInput]):
    """Opts in; fails as a tool error for a quantity of 0, raises for -1."""

    idempotency_keys = True

    def handle(self, payload: OrderInput) -> McpResponse:
        RUNS["place-order"] += 1
        if payload.quantity == 0:
            return McpResponse.error("A quantity of 0 orders nothing.")
        if payload.quantity < 0:
            raise InvalidParams("quantity must be positive")
        order = {"order": RUNS["place-order"], "sku": payload.sku, "quantity": payload.quantity}
        return McpResponse.structured(order).withMeta({"example.com/run": RUNS["place-order"]})


class NoteTool(Tool[OrderInput]):
    """Does not opt in: keys are ignored."""

    def handle(self, payload: OrderInput) -> McpResponse:
        RUNS["note"] += 1
        return McpResponse.text(f"noted {payload.sku}")


class ConfirmTool(Tool):
    """Opts in and asks the client first."""

    idempotency_keys = True

    def handle(self, request: McpRequest) -> Any:
        RUNS["confirm"] += 1
        if "ok" not in request.input_responses:
            schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
            return input_required({"ok": elicit("Sure?", schema)})
        return McpResponse.text("confirmed")


class ExportTool(Tool):
    """Opts in and runs as a task for a client that declares the extension."""

    idempotency_keys = True
    task = "optional"

    def handle(self) -> McpResponse:
        RUNS["export"] += 1
        return McpResponse.text("exported")


class ShopServer(Server):
    name = "shop"
    tools = (PlaceOrderTool, NoteTool, ConfirmTool, ExportTool)


@pytest.fixture(autouse=True)
def _fresh_runs() -> Iterator[None]:
    RUNS.clear()
    yield
    RUNS.clear()


def _request(client: McpTestClient, name: str, arguments: dict[str, Any], key: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if key is not None:
        params["_meta"] = {IDEMPOTENCY_KEY: key}
    return async_to_sync(client.request)("tools/call", params)


def _place(client: McpTestClient, key: Any = "key-1", **arguments: Any) -> dict[str, Any]:
    return _request(client, "place-order", {"sku": "tea", **arguments}, key)


def _text(response: dict[str, Any]) -> str:
    return str(response["result"]["content"][0]["text"])


# ---------------------------------------------------------------- the wire


def test_a_retry_with_the_same_key_returns_the_stored_result_without_running_again() -> None:
    client = McpTestClient(ShopServer)

    first = _place(client, quantity=2)
    retried = _place(client, quantity=2)

    assert first["result"]["isError"] is False
    assert first["result"]["structuredContent"] == {"order": 1, "sku": "tea", "quantity": 2}
    assert first["result"]["_meta"]["example.com/run"] == 1
    assert retried["result"] == first["result"]
    assert RUNS["place-order"] == 1
    assert McpIdempotencyKey.objects.get().result is not None


def test_another_key_runs_the_tool_again() -> None:
    client = McpTestClient(ShopServer)

    first = _place(client, "key-1")
    second = _place(client, "key-2")

    assert RUNS["place-order"] == 2
    assert (
        second["result"]["structuredContent"]["order"] == 2 != first["result"]["structuredContent"]["order"]
    )


def test_the_same_key_from_another_user_runs_the_tool_again() -> None:
    ada = User.objects.create_user(username="ada")
    bob = User.objects.create_user(username="bob")

    _place(McpTestClient(ShopServer, ada))
    _place(McpTestClient(ShopServer, bob))
    _place(McpTestClient(ShopServer, ada))

    assert RUNS["place-order"] == 2
    assert sorted(McpIdempotencyKey.objects.values_list("caller", flat=True)) == [
        f"user:{ada.pk}",
        f"user:{bob.pk}",
    ]


def test_the_same_key_with_other_arguments_is_a_tool_error_and_runs_nothing() -> None:
    client = McpTestClient(ShopServer)
    _place(client, quantity=2)

    reused = _place(client, quantity=3)

    assert reused["result"]["isError"] is True
    assert _text(reused) == OTHER_ARGUMENTS
    assert RUNS["place-order"] == 1


def test_a_tool_error_frees_the_key_so_a_retry_runs_again() -> None:
    client = McpTestClient(ShopServer)

    failed = _place(client, quantity=0)
    assert not McpIdempotencyKey.objects.exists()
    retried = _place(client, quantity=0)

    assert failed["result"]["isError"] is True and retried["result"]["isError"] is True
    assert RUNS["place-order"] == 2


def test_a_protocol_error_frees_the_key_so_a_retry_runs_again() -> None:
    client = McpTestClient(ShopServer)

    failed = _place(client, quantity=-1)
    retried = _place(client, quantity=-1)

    assert failed["error"]["code"] == retried["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert RUNS["place-order"] == 2
    assert not McpIdempotencyKey.objects.exists()


def test_a_retry_while_the_first_call_runs_is_a_tool_error() -> None:
    client = McpTestClient(ShopServer)
    reserve(
        server=compile_server(ShopServer).key,
        caller="anonymous:",
        tool="place-order",
        key="key-1",
        arguments_hash=arguments_hash({"sku": "tea"}),
        ttl=60,
    )

    retried = _place(client)

    assert retried["result"]["isError"] is True
    assert _text(retried) == STILL_RUNNING
    assert RUNS["place-order"] == 0


@override_settings(MCP_IDEMPOTENCY_KEY_TTL=60)
def test_an_expired_key_runs_the_tool_again_and_replaces_its_row() -> None:
    client = McpTestClient(ShopServer)
    _place(client)
    McpIdempotencyKey.objects.update(created_at=timezone.now() - datetime.timedelta(seconds=61))

    retried = _place(client)

    assert retried["result"]["structuredContent"]["order"] == 2
    assert RUNS["place-order"] == 2
    row = McpIdempotencyKey.objects.get()
    assert row.created_at > timezone.now() - datetime.timedelta(seconds=60)


@pytest.mark.parametrize("key", [12, "", "k" * (MAX_KEY_LENGTH + 1), None])
def test_a_tool_that_does_not_opt_in_ignores_the_key_whatever_it_is(key: Any) -> None:
    client = McpTestClient(ShopServer)
    params = {"name": "note", "arguments": {"sku": "tea"}, "_meta": {IDEMPOTENCY_KEY: key}}

    first = async_to_sync(client.request)("tools/call", params)
    second = async_to_sync(client.request)("tools/call", params)

    assert _text(first) == _text(second) == "noted tea"
    assert RUNS["note"] == 2
    assert not McpIdempotencyKey.objects.exists()


@pytest.mark.parametrize("key", [12, ["key"], "", "k" * (MAX_KEY_LENGTH + 1), None])
def test_a_key_that_is_not_a_string_of_1_to_255_characters_is_invalid_params(key: Any) -> None:
    client = McpTestClient(ShopServer)
    params = {"name": "place-order", "arguments": {"sku": "tea"}, "_meta": {IDEMPOTENCY_KEY: key}}

    response = async_to_sync(client.request)("tools/call", params)

    assert response["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert RUNS["place-order"] == 0


def test_a_key_of_255_characters_is_accepted() -> None:
    client = McpTestClient(ShopServer)

    _place(client, "k" * MAX_KEY_LENGTH)
    _place(client, "k" * MAX_KEY_LENGTH)

    assert RUNS["place-order"] == 1


def test_an_unknown_tool_and_invalid_arguments_are_answered_as_without_a_key() -> None:
    client = McpTestClient(ShopServer)

    unknown = _request(client, "refund", {}, "key-1")
    invalid = _request(client, "place-order", {"sku": 7}, "key-1")

    assert unknown["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert invalid["result"]["isError"] is True
    assert not McpIdempotencyKey.objects.exists()


def test_an_input_required_answer_frees_the_key_for_the_retry_with_the_answers() -> None:
    client = McpTestClient(ShopServer)

    asked = _request(client, "confirm", {}, "key-1")
    assert not McpIdempotencyKey.objects.exists()
    params = {
        "name": "confirm",
        "arguments": {},
        "inputResponses": {"ok": {"action": "accept", "content": {"ok": True}}},
        "_meta": {IDEMPOTENCY_KEY: "key-1"},
    }
    answered = async_to_sync(client.request)("tools/call", params)
    again = async_to_sync(client.request)("tools/call", params)

    assert asked["result"]["resultType"] == "input_required"
    assert _text(answered) == _text(again) == "confirmed"
    assert RUNS["confirm"] == 2  # asked once, answered once; the retry was stored


@pytest.mark.django_db(transaction=True)
def test_a_call_answered_with_a_task_stores_nothing_and_frees_the_key() -> None:
    client = McpTestClient(ShopServer, client_capabilities={"extensions": {EXTENSION: {}}})

    first = _request(client, "export", {}, "key-1")
    second = _request(client, "export", {}, "key-1")

    assert first["result"]["resultType"] == second["result"]["resultType"] == "task"
    assert first["result"]["taskId"] != second["result"]["taskId"]
    assert not McpIdempotencyKey.objects.exists()


def test_a_call_without_a_key_costs_an_opted_in_tool_no_query_more() -> None:
    client = McpTestClient(ShopServer)
    _place(client, None)  # warm up: compile, first-use caches
    _request(client, "note", {"sku": "tea"})

    with CaptureQueriesContext(connection) as opted_in:
        _place(client, None)
    with CaptureQueriesContext(connection) as plain:
        _request(client, "note", {"sku": "tea"})
    with CaptureQueriesContext(connection) as keyed:
        _place(client, "key-1")

    assert len(opted_in) == len(plain)
    assert len(keyed) > len(opted_in)  # the capture does see the reservation's queries


# ------------------------------------------------------------ the functions


def _reserve(key: str = "key-1", **changes: Any) -> Any:
    values: dict[str, Any] = {
        "server": "shop.ShopServer",
        "caller": "user:1",
        "tool": "place-order",
        "key": key,
        "arguments_hash": arguments_hash({"sku": "tea"}),
        "ttl": 60,
        **changes,
    }
    return reserve(**values)


def test_a_second_reservation_of_a_key_finds_the_first_and_adds_no_row() -> None:
    first = _reserve()

    with CaptureQueriesContext(connection) as queries:
        second = _reserve()

    assert (first.status, second.status) == ("reserved", "exists")
    assert second.row_id == first.row_id
    assert McpIdempotencyKey.objects.count() == 1
    # Insert first, never check-then-insert: the constraint decides.
    statements = [query["sql"].split()[0].upper() for query in queries]
    assert [word for word in statements if word not in ("SAVEPOINT", "RELEASE", "ROLLBACK")][0] == "INSERT"


def test_a_reservation_replaces_an_expired_row() -> None:
    now = timezone.now()
    old = _reserve(now=now - datetime.timedelta(seconds=61))

    fresh = _reserve(now=now)

    assert fresh.status == "reserved" and fresh.row_id != old.row_id
    assert list(McpIdempotencyKey.objects.values_list("pk", flat=True)) == [fresh.row_id]


def test_the_arguments_hash_ignores_key_order_but_not_values() -> None:
    assert arguments_hash({"a": 1, "b": [1, 2]}) == arguments_hash({"b": [1, 2], "a": 1})
    assert arguments_hash({"a": 1}) != arguments_hash({"a": 2})


def test_key_of_reads_only_the_vendor_meta_key() -> None:
    assert key_of({"name": "x"}) is None
    assert key_of({"_meta": {"other": "k"}}) is None
    assert key_of({"_meta": {IDEMPOTENCY_KEY: "k"}}) == "k"


def test_prune_deletes_only_the_expired_keys() -> None:
    now = timezone.now()
    _reserve("old", now=now - datetime.timedelta(seconds=120))
    _reserve("new", now=now)

    assert prune(ttl=60, now=now, dry_run=True) == 1
    assert prune(ttl=60, now=now) == 1
    assert list(McpIdempotencyKey.objects.values_list("key", flat=True)) == ["new"]


@override_settings(MCP_IDEMPOTENCY_KEY_TTL=30)
def test_prune_defaults_to_the_ttl_setting() -> None:
    now = timezone.now()
    _reserve("old", now=now - datetime.timedelta(seconds=31))

    assert prune(now=now) == 1
