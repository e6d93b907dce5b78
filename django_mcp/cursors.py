"""Opaque pagination cursors, signed with Django's signing.

A cursor names the listing it belongs to (``method``: a list method such as
``tools/list``, or a tool's own listing), the server it paged (``catalog``:
its key) and an offset. Cursors carry no timestamp: the same page always
gets the same cursor and cursors never expire. A forged cursor, or one
reused on another listing or another server, is refused with
``InvalidParams`` (MCP 2026-07-28 server/utilities/pagination: invalid
cursors SHOULD be an invalid-params error).

The list methods (``django_mcp.dispatcher.paging``) and the list tools of
``django_mcp.contrib`` share this one format.
"""

from __future__ import annotations

from django.core import signing

from django_mcp.exceptions import InvalidParams

__all__ = ["decode_cursor", "encode_cursor"]

_SALT = "django_mcp.cursor"


def encode_cursor(method: str, catalog: str, offset: int) -> str:
    """Return a signed cursor for ``offset`` in ``method``'s listing."""
    return signing.Signer(salt=_SALT).sign_object([method, catalog, offset])


def decode_cursor(cursor: object, method: str, catalog: str) -> int:
    """Return the offset a cursor points to, or raise ``InvalidParams``."""
    if not isinstance(cursor, str):
        raise InvalidParams("Invalid cursor: must be a string")
    try:
        # A new Signer each time: SECRET_KEY may change under tests.
        value = signing.Signer(salt=_SALT).unsign_object(cursor)
    except signing.BadSignature:
        raise InvalidParams("Invalid cursor") from None
    if (
        not isinstance(value, list)
        or len(value) != 3
        or value[0] != method
        or value[1] != catalog
        or type(value[2]) is not int
        or value[2] < 0
    ):
        raise InvalidParams(f"Invalid cursor for {method}")
    return value[2]
