"""The call log: django_mcp/observability/calls.py.

One ``INFO`` record per request on ``django_mcp.calls`` with the documented
``extra`` fields, never the arguments; nothing at all while the logger is
off.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User

from django_mcp import observability
from django_mcp.observability.calls import LOGGER_NAME
from django_mcp.protocol import jsonrpc
from django_mcp.testing import McpTestClient
from testproject.conformance.mcp import ConformanceServer

FIELDS = (
    "server",
    "method",
    "component",
    "user_id",
    "outcome",
    "error_code",
    "duration",
    "request_id",
    "protocol_version",
    "transport",
)


@pytest.fixture
def calls(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level("INFO", logger=LOGGER_NAME):
        observability.refresh()  # a level changed at run time is seen after refresh()
        yield caplog
    observability.refresh()


async def test_each_call_logs_one_record_with_its_fields(calls: pytest.LogCaptureFixture) -> None:
    user = User(pk=3, username="grace")
    client = McpTestClient(ConformanceServer, user)
    (await client.call_tool("test_simple_text")).assert_ok()

    [record] = [record for record in calls.records if record.name == LOGGER_NAME]
    fields = {name: getattr(record, name) for name in FIELDS}
    duration = fields.pop("duration")
    assert isinstance(duration, float) and duration >= 0
    assert fields == {
        "server": ConformanceServer.compiled().key,
        "method": "tools/call",
        "component": "test_simple_text",
        "user_id": 3,
        "outcome": "ok",
        "error_code": None,
        "request_id": 1,
        "protocol_version": "2026-07-28",
        "transport": "in-process",
    }
    assert record.levelname == "INFO"
    assert record.getMessage().startswith("tools/call test_simple_text ok in ")
    assert not hasattr(record, "arguments")


async def test_arguments_are_never_logged(calls: pytest.LogCaptureFixture) -> None:
    await McpTestClient(ConformanceServer).call_tool("test_simple_text", {"password": "s3cr3t-value"})

    [record] = [record for record in calls.records if record.name == LOGGER_NAME]
    assert "s3cr3t-value" not in repr(record.__dict__)


async def test_an_error_is_logged_with_its_code(calls: pytest.LogCaptureFixture) -> None:
    await McpTestClient(ConformanceServer).call_tool("no_such_tool")

    [record] = [record for record in calls.records if record.name == LOGGER_NAME]
    assert (record.outcome, record.error_code, record.user_id) == ("error", jsonrpc.INVALID_PARAMS, None)


async def test_a_resource_uri_is_logged_without_its_query(calls: pytest.LogCaptureFixture) -> None:
    await McpTestClient(ConformanceServer).read_resource("test://static-text?token=abc123")

    [record] = [record for record in calls.records if record.name == LOGGER_NAME]
    assert record.component == "test://static-text?[redacted]"  # type: ignore[attr-defined]
    assert record.getMessage().startswith("resources/read test://static-text?[redacted] ")
    assert "abc123" not in repr(record.__dict__)


async def test_nothing_is_logged_while_the_logger_is_off(caplog: pytest.LogCaptureFixture) -> None:
    observability.refresh()
    with caplog.at_level("INFO", logger="django_mcp"):
        caplog.set_level("WARNING", logger=LOGGER_NAME)
        (await McpTestClient(ConformanceServer).call_tool("test_simple_text")).assert_ok()

    assert [record for record in caplog.records if record.name == LOGGER_NAME] == []
