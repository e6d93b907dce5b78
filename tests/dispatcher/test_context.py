"""The era rule and the contexts (django_mcp/dispatcher/context.py)."""

from __future__ import annotations

from typing import Any

import pytest

from django_mcp.dispatcher.codec import Envelope
from django_mcp.dispatcher.context import era_of
from django_mcp.protocol.meta import META_VERSION


def envelope(method: str = "tools/list", meta: Any = None) -> Envelope:
    params = {} if meta is None else {"_meta": meta}
    return Envelope(kind="request", id=1, method=method, params=params)


MODERN_META = {META_VERSION: "2026-07-28"}


@pytest.mark.parametrize(
    ("message", "in_session", "version_header", "era"),
    [
        (envelope(meta=MODERN_META), False, None, "modern"),
        (envelope(meta=MODERN_META), True, "2025-11-25", "modern"),  # a stale session id is ignored
        (envelope("initialize"), False, None, "initialize"),
        (envelope("initialize"), True, None, "legacy"),  # refused by the session
        (envelope(), True, "2025-11-25", "legacy"),
        (envelope(), False, "2026-07-28", "modern"),  # then refused for its missing _meta
        (envelope(meta={}), False, None, "modern"),
        (envelope(), False, "2025-11-25", None),
        (envelope(), False, None, None),
    ],
)
def test_one_rule_decides_the_era_of_a_message(
    message: Envelope, in_session: Any, version_header: str | None, era: str | None
) -> None:
    assert era_of(message, in_session=in_session, version_header=version_header) == era
