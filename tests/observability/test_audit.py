"""The audit trail: django_mcp/observability/audit.py.

With ``MCP_AUDIT`` on, a call leaves one ``McpAuditEntry`` naming its
caller, with arguments whose secret values (keys matching
``MCP_AUDIT_REDACT``, properties the input schema marks ``writeOnly``) are
replaced and whose size is capped (``MCP_AUDIT_MAX_ARGUMENTS_SIZE``);
``"writes"`` skips read-only tools, resources, prompts and tools the caller
may not use, which ``"all"`` records as ``[unknown]`` without arguments; a
URI is kept without its query; a failing insert is logged and the call
still answers.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
from typing import Annotated, Any

import msgspec
import pytest
from django.contrib.auth.models import User
from django.db import DatabaseError
from django.utils import timezone

from django_mcp import McpResponse, Server, Tool, ToolAnnotations
from django_mcp.conf import DEFAULTS
from django_mcp.models import McpAuditEntry
from django_mcp.observability import audit
from django_mcp.observability.audit import REDACTED, TRUNCATED, UNKNOWN_TOOL
from django_mcp.observability.calls import LOGGER_NAME
from django_mcp.protocol import jsonrpc
from django_mcp.schemas import Schema
from django_mcp.testing import McpTestClient
from testproject.conformance.mcp import ConformanceServer
from tests.observability.conftest import Otel

pytestmark = pytest.mark.django_db(transaction=True)

Secret = Annotated[str, msgspec.Meta(extra_json_schema={"writeOnly": True})]


class Card(Schema):
    holder: str
    number: Secret


class TransferInput(Schema):
    amount: int
    pin: Secret
    card: Card
    options: dict[str, Any] = {}


class TransferTool(Tool[TransferInput]):
    name = "transfer"

    def handle(self, payload: TransferInput) -> McpResponse:
        return McpResponse.text(f"sent {payload.amount}")


class BalanceTool(Tool):
    name = "balance"
    annotations = ToolAnnotations(read_only=True)

    def handle(self) -> McpResponse:
        return McpResponse.text("42")


class VaultTool(Tool):
    """A write only bankers may see."""

    name = "vault"
    permissions = ("auth.view_user",)

    def handle(self) -> McpResponse:
        return McpResponse.text("opened")


class BankServer(Server):
    tools = (TransferTool, BalanceTool, VaultTool)


ARGUMENTS = {
    "amount": 10,
    "pin": "1234",
    "card": {"holder": "Ada", "number": "4111111111111111"},
    "options": {"API_Key": "k-123", "notes": [{"authorization": "Bearer x"}, {"memo": "rent"}]},
}


async def test_a_signed_in_users_call_is_audited_with_redacted_arguments(settings: Any) -> None:
    settings.MCP_AUDIT = "writes"
    user = await User.objects.acreate(username="ada")

    (await McpTestClient(BankServer, user).call_tool("transfer", ARGUMENTS)).assert_ok()

    entry = await McpAuditEntry.objects.aget()
    assert (entry.server, entry.method, entry.component) == (
        BankServer.compiled().key,
        "tools/call",
        "transfer",
    )
    assert (entry.user_pk, entry.username, entry.client) == (str(user.pk), "ada", f"user:{user.pk}")
    assert (entry.outcome, entry.error_code, entry.transport) == ("ok", None, "in-process")
    assert (entry.protocol_version, entry.request_id) == ("2026-07-28", "1")
    assert entry.duration >= 0
    assert entry.arguments == {
        "amount": 10,
        "pin": REDACTED,
        "card": {"holder": "Ada", "number": REDACTED},
        "options": {"API_Key": REDACTED, "notes": [{"authorization": REDACTED}, {"memo": "rent"}]},
    }


async def test_writes_only_skips_read_only_tools_resources_and_prompts(settings: Any) -> None:
    settings.MCP_AUDIT = "writes"
    client = McpTestClient(BankServer)

    (await client.call_tool("balance")).assert_ok()
    (await client.call_tool("no_such_tool")).assert_error(jsonrpc.INVALID_PARAMS)
    (await McpTestClient(ConformanceServer).get_prompt("test_simple_prompt")).assert_ok()
    assert await McpAuditEntry.objects.acount() == 0

    await client.call_tool("transfer", {"amount": "not a number"})
    entry = await McpAuditEntry.objects.aget()
    assert (entry.component, entry.outcome, entry.client) == ("transfer", "tool_error", "anonymous")


async def test_all_records_every_request(settings: Any) -> None:
    settings.MCP_AUDIT = "all"
    client = McpTestClient(ConformanceServer)

    await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
    await client.read_resource("test://static-text")
    await client.list_tools()

    entries = [entry async for entry in McpAuditEntry.objects.order_by("id")]
    assert [(entry.method, entry.component) for entry in entries] == [
        ("prompts/get", "test_prompt_with_arguments"),
        ("resources/read", "test://static-text"),
        ("tools/list", ""),
    ]
    assert entries[0].arguments == {"arg1": "a", "arg2": "b"}
    assert entries[1].arguments is None


async def test_audit_off_records_nothing(settings: Any) -> None:
    settings.MCP_AUDIT = "off"

    (await McpTestClient(BankServer).call_tool("transfer", ARGUMENTS)).assert_ok()

    assert await McpAuditEntry.objects.acount() == 0


async def test_a_failing_insert_is_logged_and_the_call_still_answers(
    settings: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    settings.MCP_AUDIT = "all"

    def broken(self: McpAuditEntry, *args: Any, **kwargs: Any) -> None:
        raise DatabaseError("the audit table is gone")

    monkeypatch.setattr(McpAuditEntry, "save", broken)
    with caplog.at_level("ERROR", logger="django_mcp.observability.audit"):
        result = await McpTestClient(BankServer).call_tool("transfer", ARGUMENTS)

    result.assert_ok().assert_sees("sent 10")
    [record] = [record for record in caplog.records if record.name == "django_mcp.observability.audit"]
    assert record.getMessage() == "Could not write the MCP audit entry of tools/call transfer"
    assert "gone" not in result.text


# ------------------------------------------------------------ volume


def _compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


async def test_fifty_calls_with_a_megabyte_of_arguments_store_capped_rows(settings: Any) -> None:
    settings.MCP_AUDIT = "writes"
    client = McpTestClient(BankServer)
    arguments = {"amount": 10, "memo": "x" * 1_000_000, "pin": "1234"}
    whole = len(_compact({**arguments, "pin": REDACTED}))

    for _ in range(50):
        await client.call_tool("transfer", arguments)

    rows = [entry.arguments async for entry in McpAuditEntry.objects.all()]
    assert len(rows) == 50
    assert all(len(_compact(row)) <= DEFAULTS["MCP_AUDIT_MAX_ARGUMENTS_SIZE"] == 4096 for row in rows)
    assert rows[0] == {"amount": 10, "pin": REDACTED, TRUNCATED: whole}


async def test_the_cap_is_the_setting_and_arguments_within_it_are_stored_whole(settings: Any) -> None:
    settings.MCP_AUDIT = "writes"
    settings.MCP_AUDIT_MAX_ARGUMENTS_SIZE = 64
    client = McpTestClient(BankServer)

    await client.call_tool("transfer", {"amount": 10, "pin": "1"})
    await client.call_tool("transfer", {"amount": 10, "memo": "y" * 100})

    whole, cut = [entry.arguments async for entry in McpAuditEntry.objects.order_by("id")]
    assert whole == {"amount": 10, "pin": REDACTED}
    assert cut == {"amount": 10, TRUNCATED: len(_compact({"amount": 10, "memo": "y" * 100}))}
    assert len(_compact(cut)) <= 64


def test_cap_keeps_the_members_that_fit_and_marks_the_whole_size() -> None:
    arguments = {"big": "b" * 500, "a": 1, "text": "é" * 10, "list": [1, 2, 3]}
    size = len(_compact(arguments))

    assert audit.cap(arguments, size) is arguments
    capped = audit.cap(arguments, 100)
    assert capped == {"a": 1, "text": "é" * 10, "list": [1, 2, 3], TRUNCATED: size}
    assert len(_compact(capped)) <= 100
    assert audit.cap(["x" * 200], 50) == {TRUNCATED: len(_compact(["x" * 200]))}
    assert audit.cap({"a": "x" * 50}, 5) == {TRUNCATED: 58}  # never more than the marker


async def test_long_text_columns_are_cut_with_a_mark(settings: Any) -> None:
    settings.MCP_AUDIT = "all"

    await McpTestClient(ConformanceServer).get_prompt("p" * 2000)

    entry = await McpAuditEntry.objects.aget()
    assert (len(entry.component), entry.component[-2:]) == (512, "p…")


# ------------------------------------------------- tools the caller cannot see


@pytest.mark.parametrize("tool", ["vault", "no_such_tool"])
async def test_a_call_of_a_tool_the_caller_cannot_see_is_audited_as_unknown_without_arguments(
    settings: Any, tool: str
) -> None:
    settings.MCP_AUDIT = "all"

    reply = await McpTestClient(BankServer).call_tool(tool, {"password": "p", "memo": "x" * 10_000})

    reply.assert_error(jsonrpc.INVALID_PARAMS)
    entry = await McpAuditEntry.objects.aget()
    assert (entry.method, entry.component, entry.arguments) == ("tools/call", UNKNOWN_TOOL, None)
    assert (entry.outcome, entry.error_code) == ("error", jsonrpc.INVALID_PARAMS)


async def test_writes_records_no_call_of_a_tool_the_caller_cannot_see(settings: Any) -> None:
    settings.MCP_AUDIT = "writes"
    anonymous = McpTestClient(BankServer)

    (await anonymous.call_tool("vault")).assert_error(jsonrpc.INVALID_PARAMS)
    (await anonymous.call_tool("no_such_tool")).assert_error(jsonrpc.INVALID_PARAMS)
    assert await McpAuditEntry.objects.acount() == 0

    banker = await User.objects.acreate(username="banker", is_superuser=True)
    (await McpTestClient(BankServer, banker).call_tool("vault")).assert_ok()
    entry = await McpAuditEntry.objects.aget()
    assert (entry.component, entry.username) == ("vault", "banker")


# ---------------------------------------------------------------- redaction


@pytest.mark.parametrize(
    "key",
    [
        "password",
        "passwd",
        "pwd",
        "db_pwd",
        "passphrase",
        "private_key",
        "private-key",
        "privateKey",
        "access_key",
        "aws_access_key_id",
        "accessKey",
        "otp",
        "OTP",
        "otp_code",
        "otpCode",
        "userOtp",
        "totp",
        "signature",
        "x-signature",
        "secret",
        "token",
        "api_key",
        "authorization",
        "cookie",
        "credentials",
    ],
)
def test_the_default_redaction_covers_the_key(key: str) -> None:
    rules = audit.patterns(tuple(DEFAULTS["MCP_AUDIT_REDACT"]))

    assert audit.redact({key: "s3cret", "amount": 1}, rules) == {key: REDACTED, "amount": 1}


@pytest.mark.parametrize("key", ["footprint", "hotpot", "FOOTPRINT", "notes", "compass", "keyboard"])
def test_the_default_redaction_leaves_words_that_merely_contain_the_letters(key: str) -> None:
    rules = audit.patterns(tuple(DEFAULTS["MCP_AUDIT_REDACT"]))

    assert audit.redact({key: "kept"}, rules) == {key: "kept"}


async def test_a_token_in_a_resource_uri_query_reaches_no_row_log_line_or_span(
    settings: Any, otel: Otel, caplog: pytest.LogCaptureFixture
) -> None:
    from django_mcp import observability

    settings.MCP_AUDIT = "all"
    uri = "test://static-text?token=abc123&page=2"
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME):
        observability.refresh()
        await McpTestClient(ConformanceServer).read_resource(uri)
    observability.refresh()

    entry = await McpAuditEntry.objects.aget()
    [record] = [record for record in caplog.records if record.name == LOGGER_NAME]
    [span] = otel.spans()
    assert entry.component == "test://static-text?[redacted]"
    assert record.component == "test://static-text?[redacted]"  # type: ignore[attr-defined]
    assert (
        span.attributes is not None and span.attributes["mcp.resource.uri"] == "test://static-text?[redacted]"
    )
    recorded = [
        *vars(entry).values(),
        record.getMessage(),
        *vars(record).values(),
        span.name,
        span.attributes,
    ]
    assert "abc123" not in repr(recorded)


def test_redaction_follows_refs_alternatives_and_array_items() -> None:
    schema = {
        "type": "object",
        "properties": {
            "token_count": {"type": "integer"},
            "login": {"anyOf": [{"$ref": "#/$defs/Login"}, {"type": "null"}]},
            "keys": {"type": "array", "items": {"$ref": "#/$defs/Login"}},
        },
        "$defs": {
            "Login": {
                "type": "object",
                "properties": {"user": {}, "secret_word": {"writeOnly": True}, "otp": {"writeOnly": True}},
            }
        },
    }
    value = {
        "token_count": 3,
        "login": {"user": "ada", "otp": "123456"},
        "keys": [{"user": "a", "otp": "1"}, "not an object"],
    }

    redacted = audit.redact(value, audit.patterns((r"secret", r"^token$")), schema)

    assert redacted == {
        "token_count": 3,
        "login": {"user": "ada", "otp": REDACTED},
        "keys": [{"user": "a", "otp": REDACTED}, "not an object"],
    }
    assert value["login"]["otp"] == "123456"  # the arguments themselves are untouched


def test_patterns_match_case_insensitively_and_skip_invalid_ones() -> None:
    rules = audit.patterns(("passw(or)?d", "[unclosed"))
    assert [rule.pattern for rule in rules] == ["passw(or)?d"]
    assert rules[0].flags & re.IGNORECASE
    assert audit.redact({"DB_PASSWORD": "x"}, rules) == {"DB_PASSWORD": REDACTED}


def test_redaction_stops_at_max_depth() -> None:
    value: Any = "leaf"
    for _ in range(audit.MAX_DEPTH + 5):
        value = [value]

    redacted = audit.redact(value, ())

    depth = 0
    while isinstance(redacted, list):
        redacted, depth = redacted[0], depth + 1
    assert (redacted, depth) == (REDACTED, audit.MAX_DEPTH + 1)


async def test_prune_deletes_entries_older_than_the_retention() -> None:
    now = timezone.now()
    for age in (1, 29, 31, 400):
        await McpAuditEntry.objects.acreate(
            created_at=now - datetime.timedelta(days=age),
            server="s",
            method="tools/call",
            client="anonymous",
            transport="http",
            outcome="ok",
            duration=0.1,
        )

    assert await _prune(30, now=now, dry_run=True) == 2
    assert await _prune(30, now=now) == 2
    ages = sorted([(now - entry.created_at).days async for entry in McpAuditEntry.objects.all()])
    assert ages == [1, 29]


async def _prune(days: float, **kwargs: Any) -> int:
    from asgiref.sync import sync_to_async

    return await sync_to_async(audit.prune)(days, **kwargs)
