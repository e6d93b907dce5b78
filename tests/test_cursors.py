"""Signed cursors: one format for list methods and list tools."""

from __future__ import annotations

from typing import Any

import pytest

from django_mcp.cursors import decode_cursor, encode_cursor
from django_mcp.dispatcher import paging
from django_mcp.exceptions import InvalidParams
from django_mcp.protocol.jsonrpc import INVALID_PARAMS


def test_a_cursor_decodes_to_its_offset_for_its_listing_only() -> None:
    cursor = encode_cursor("tools/list", "app.mcp.Server", 50)

    assert decode_cursor(cursor, "tools/list", "app.mcp.Server") == 50
    for method, catalog in (("prompts/list", "app.mcp.Server"), ("tools/list", "app.mcp.Other")):
        with pytest.raises(InvalidParams) as info:
            decode_cursor(cursor, method, catalog)
        assert info.value.code == INVALID_PARAMS


@pytest.mark.parametrize("cursor", [None, 3, "", "forged", "WzFd:bad"])
def test_a_forged_or_malformed_cursor_is_invalid_params(cursor: Any) -> None:
    with pytest.raises(InvalidParams) as info:
        decode_cursor(cursor, "tools/list", "app.mcp.Server")
    assert info.value.code == INVALID_PARAMS


def test_a_cursor_signed_with_another_secret_key_is_refused(settings: Any) -> None:
    cursor = encode_cursor("tools/list", "app.mcp.Server", 1)
    settings.SECRET_KEY = "another secret key, long enough for Django's checks"
    with pytest.raises(InvalidParams):
        decode_cursor(cursor, "tools/list", "app.mcp.Server")


def test_the_list_methods_page_with_the_same_functions() -> None:
    assert (paging.encode_cursor, paging.decode_cursor) == (encode_cursor, decode_cursor)
