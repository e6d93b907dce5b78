"""Opaque pagination cursors, signed with Django's signing.

A cursor names the method it belongs to, a fingerprint of the catalog it
paged, and an offset. A forged cursor, or one reused on another method or
another server, is refused with -32602 (MCP 2026-07-28
server/utilities/pagination: invalid cursors SHOULD be an invalid-params
error). Order is the declaration order, so pages are deterministic across
workers.
"""

from __future__ import annotations

from django.core import signing

from django_mcp.exceptions import InvalidParams

__all__ = ["decode_cursor", "encode_cursor"]

_SALT = "django_mcp.cursor"


def _signer() -> signing.Signer:
    # No timestamp: the same page always gets the same cursor (stable
    # cursors, MCP 2026-07-28 pagination SHOULD), and cursors never expire.
    return signing.Signer(salt=_SALT)


def encode_cursor(method: str, catalog: str, offset: int) -> str:
    """Return a signed cursor for ``offset`` in ``method``'s listing."""
    return _signer().sign_object([method, catalog, offset])


def decode_cursor(cursor: object, method: str, catalog: str) -> int:
    """Return the offset a cursor points to, or raise ``InvalidParams``."""
    if not isinstance(cursor, str):
        raise InvalidParams("Invalid cursor: must be a string")
    try:
        value = _signer().unsign_object(cursor)
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
