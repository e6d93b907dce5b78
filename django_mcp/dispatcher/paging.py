"""Paginated lists: opaque signed cursors and one page of visible entries.

A cursor names the method it belongs to, the server it paged and an offset,
signed with Django's signing. A forged cursor, or one reused on another
method or another server, is refused with -32602 (MCP 2026-07-28
server/utilities/pagination: invalid cursors SHOULD be an invalid-params
error). Cursors carry no timestamp: the same page always gets the same
cursor, and cursors never expire. Order is the declaration order, so pages
are the same on every worker. Entries the caller may not use are left out
before paging, so a page never reveals a hidden component.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

import msgspec
from django.conf import settings

from django_mcp.auth import can_use
from django_mcp.cursors import decode_cursor, encode_cursor
from django_mcp.dispatcher.context import Call
from django_mcp.protocol._base import UNSET

__all__ = ["decode_cursor", "encode_cursor", "encoded_items", "page"]

_encoder = msgspec.json.Encoder()


async def page(call: Call, entries: Sequence[Any]) -> tuple[list[Any], str | Any]:
    """Return the caller's page of ``entries`` and the next cursor (or UNSET).

    Cursors are signed and checked once per key (``SECRET_KEY`` is part of
    it) and then served from the compiled server's ``served_once``.
    """
    limits = call.settings.limits
    size = max(1, min(limits.default_page_size, limits.max_page_size))
    method = call.envelope.method
    compiled = call.compiled
    catalog = compiled.key
    secret = settings.SECRET_KEY
    cursor = call.params.get("cursor")
    # An empty string is a valid cursor value (MCP 2026-07-28 pagination).
    if cursor is None:
        offset = 0
    elif isinstance(cursor, str):
        offset = compiled.served_once.get(
            ("offset", cursor, method, secret, tuple(settings.SECRET_KEY_FALLBACKS)),
            lambda: decode_cursor(cursor, method, catalog),
        )
    else:
        offset = decode_cursor(cursor, method, catalog)  # raises
    if compiled.caller_dependent:
        entries = [entry for entry in entries if await can_use(entry, call.request)]
    chunk = list(entries[offset : offset + size])
    if offset + size >= len(entries):
        return chunk, UNSET
    following = offset + size
    return chunk, compiled.served_once.get(
        ("cursor", method, following, secret), lambda: encode_cursor(method, catalog, following)
    )


def encoded_items(
    call: Call, entries: Sequence[Any], definition: Callable[[Any], Any] = attrgetter("definition")
) -> msgspec.Raw:
    """Return the page's item definitions as JSON, encoded once per era and entries.

    ``definition`` gives an entry's published definition (its compiled one
    unless said). The same entries (the same page of the same visible set)
    always encode the same, whoever asks: the bytes are kept on the
    compiled server.
    """
    key = ("items", call.envelope.method, call.ctx.era, tuple(map(id, entries)))
    return msgspec.Raw(
        call.compiled.served_once.get(key, lambda: _encoder.encode(tuple(map(definition, entries))))
    )
