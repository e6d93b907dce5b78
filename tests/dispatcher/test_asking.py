"""Asking a 2025-11-25 client (django_mcp/dispatcher/asking.py): the same on HTTP and STDIO."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from django_mcp.dispatcher.asking import client_requester
from django_mcp.dispatcher.sessions import PendingRequests
from django_mcp.exceptions import InternalError


@pytest.fixture(autouse=True)
def _legacy_era() -> Any:
    """Check what is sent against the 2025-11-25 schema: only that era asks its client."""
    from tests.wire_schema import _WIRE_CALL

    token = _WIRE_CALL.set(("legacy", None))
    yield
    _WIRE_CALL.reset(token)


def sent(posted: list[bytes]) -> list[dict[str, Any]]:
    return [json.loads(message) for message in posted]


async def test_the_answer_is_returned() -> None:
    pending, posted = PendingRequests(), []
    ask = client_requester(pending, "s", posted.append)

    asking = asyncio.ensure_future(ask("roots/list", {}))
    await asyncio.sleep(0)
    request = sent(posted)[0]
    pending.resolve("s", request["id"], result={"roots": []})

    assert await asking == {"roots": []}
    assert request["method"] == "roots/list"


async def test_an_error_answer_is_a_refusal() -> None:
    pending, posted = PendingRequests(), []
    ask = client_requester(pending, "s", posted.append)

    asking = asyncio.ensure_future(ask("roots/list", {}))
    await asyncio.sleep(0)
    pending.resolve("s", sent(posted)[0]["id"], error={"code": -1, "message": "no"})

    with pytest.raises(InternalError):
        await asking


async def test_no_answer_in_time_withdraws_the_request() -> None:
    posted: list[bytes] = []
    withdrawn: list[bytes] = []
    ask = client_requester(PendingRequests(), "s", posted.append, withdraw=withdrawn.append, timeout=0.01)

    with pytest.raises(InternalError):
        await ask("roots/list", {})

    (cancel,) = sent(withdrawn)
    assert cancel["method"] == "notifications/cancelled"
    assert cancel["params"]["requestId"] == sent(posted)[0]["id"]


@pytest.mark.parametrize(("closing", "withdrawals"), [(False, 1), (True, 0)])
async def test_a_cancelled_asker_withdraws_unless_the_connection_closes(
    closing: Any, withdrawals: int
) -> None:
    posted: list[bytes] = []
    ask = client_requester(PendingRequests(), "s", posted.append, closing=lambda: closing)

    asking = asyncio.ensure_future(ask("roots/list", {}))
    await asyncio.sleep(0)
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking

    assert [m.get("method") for m in sent(posted)[1:]] == ["notifications/cancelled"] * withdrawals
