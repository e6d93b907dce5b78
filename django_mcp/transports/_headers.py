"""Validate the MCP HTTP headers of a 2026-07-28 request against its body.

Rules (MCP 2026-07-28 basic/transports/streamable-http, SEP-2243):

* ``MCP-Protocol-Version`` must equal ``_meta`` protocolVersion;
* ``Mcp-Method`` must equal the body ``method`` (values are case-sensitive);
* ``Mcp-Name`` must equal ``params.name`` (tools/call, prompts/get),
  ``params.uri`` (resources/read) or ``params.taskId`` (tasks/get,
  tasks/update, tasks/cancel of the tasks extension), surrounding
  whitespace ignored;
* ``Mcp-Param-<Name>`` must mirror each argument whose input-schema property
  carries ``"x-mcp-header": "<Name>"`` and whose value is present and not
  null; a header for an absent argument is a mismatch too. The map of those
  headers is computed per tool when the server is compiled.

Values of the exact form ``=?base64?<b64>?=`` are strict Base64 of UTF-8 and
are decoded before comparing. Values must be visible ASCII, space or tab. A
header sent twice is invalid. Every failure raises ``HeaderMismatch``
(-32020, HTTP 400).
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

from django_mcp.exceptions import HeaderMismatch

__all__ = [
    "McpHeaders",
    "conforming_headers",
    "decode_value",
    "encode_value",
    "mirrored_headers",
    "validate_headers",
    "validate_param_headers",
]

_VALID_VALUE = re.compile(r"^[\x20-\x7e\t]*$")
# The body member ``Mcp-Name`` mirrors, per method (SEP-2243; tasks/*: SEP-2663
# "Streamable HTTP: Routing Headers").
_NAME_KEYS = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}
_BASE64 = re.compile(r"^=\?base64\?(.*)\?=$", re.DOTALL)


class McpHeaders:
    """Case-insensitive view of a request's headers that keeps duplicates.

    ``session_id`` and ``protocol_version`` are read up front: they decide
    which protocol era serves the request. ``check_era_headers()`` refuses
    either one sent more than once.
    """

    __slots__ = ("_values", "protocol_version", "session_id")

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        self._values: dict[str, list[str]] = {}
        for name, value in pairs:
            # Surrounding whitespace is not part of a field value (RFC 9110
            # 5.5); ASGI servers usually strip it, test clients may not.
            self._values.setdefault(name.lower(), []).append(value.strip(" \t"))
        session = self._values.get("mcp-session-id")
        version = self._values.get("mcp-protocol-version")
        # Read on every request: plain lookups rather than get() calls.
        self.session_id = session[0] if session else None
        self.protocol_version = version[0] if version else None

    def check_era_headers(self) -> None:
        """Raise ``HeaderMismatch`` when ``Mcp-Session-Id`` or ``MCP-Protocol-Version`` is repeated."""
        self.get("Mcp-Session-Id")
        self.get("MCP-Protocol-Version")

    @classmethod
    def from_asgi(cls, raw: Iterable[tuple[bytes, bytes]]) -> McpHeaders:
        """Read an ASGI scope's header list (exact names, repeats kept)."""
        return cls([(name.decode("latin-1"), value.decode("latin-1")) for name, value in raw])

    @classmethod
    def from_environ(cls, environ: Mapping[str, Any]) -> McpHeaders:
        """Read a WSGI environ (or Django's ``request.META``).

        A WSGI server has already joined a repeated header into one value,
        so there a repeat cannot be told apart.
        """
        pairs = [
            (name[5:].replace("_", "-"), value) for name, value in environ.items() if name[:5] == "HTTP_"
        ]
        for name in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            value = environ.get(name)
            if value:
                pairs.append((name.replace("_", "-"), value))
        return cls(pairs)

    def joined(self, name: str, separator: str = ", ") -> str | None:
        """Return every value of ``name`` joined as one (a list header, RFC 9110 5.3), None if absent."""
        values = self._values.get(name.lower())
        return separator.join(values) if values else None

    def get(self, name: str) -> str | None:
        """Return the single value of ``name``; raise when it is repeated."""
        values = self._values.get(name.lower())
        if not values:
            return None
        if len(values) > 1:
            raise HeaderMismatch(f"Header mismatch: {name} header sent more than once")
        return values[0]

    def with_prefix(self, prefix: str) -> dict[str, str]:
        """Return ``{lowercase suffix: value}`` for headers starting with ``prefix``."""
        prefix = prefix.lower()
        out: dict[str, str] = {}
        for name in self._values:
            if name.startswith(prefix):
                out[name[len(prefix) :]] = self.get(name) or ""
        return out


@functools.lru_cache(maxsize=256)  # the same method and tool names come again and again
def decode_value(name: str, raw: str) -> str:
    """Return a header value, Base64-decoded when it uses the sentinel form."""
    if not _VALID_VALUE.match(raw):
        raise HeaderMismatch(f"Header mismatch: {name} header has invalid characters")
    match = _BASE64.match(raw)
    if match is None:
        return raw
    encoded = match.group(1)
    try:
        decoded = base64.b64decode(encoded, validate=True)
        if base64.b64encode(decoded).decode() != encoded:
            raise ValueError("non-canonical padding")
        return decoded.decode("utf-8")
    except (binascii.Error, ValueError):
        raise HeaderMismatch(f"Header mismatch: {name} header is not valid Base64") from None


def encode_value(value: str) -> str:
    """Return ``value`` as a header value a server decodes back with ``decode_value``.

    Visible ASCII (and inner spaces) goes as it is; anything else, and a
    value that would read as the sentinel form, as ``=?base64?<b64>?=``.
    """
    if _VALID_VALUE.match(value) and value == value.strip(" \t") and not _BASE64.match(value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def conforming_headers(
    method: str,
    params: Mapping[str, Any],
    *,
    version: str,
    param_headers: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, str]:
    """Return the MCP headers a conforming 2026-07-28 client sends with a request.

    ``param_headers`` is the called tool's compiled ``Mcp-Param-*`` map.
    """
    headers = {"MCP-Protocol-Version": version, "Mcp-Method": encode_value(method)}
    name_key = _NAME_KEYS.get(method)
    if name_key is not None and isinstance(params.get(name_key), str):
        headers["Mcp-Name"] = encode_value(params[name_key])
    if param_headers:
        arguments = params.get("arguments")
        headers.update(mirrored_headers(arguments if isinstance(arguments, Mapping) else {}, param_headers))
    return headers


def mirrored_headers(
    arguments: Mapping[str, Any], param_headers: Mapping[str, tuple[str, str]]
) -> dict[str, str]:
    """Return the ``Mcp-Param-*`` headers a conforming client sends for a tool's ``arguments``."""
    headers: dict[str, str] = {}
    for header, (prop, _kind) in param_headers.items():
        value = arguments.get(prop)
        if value is None:
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        headers[f"Mcp-Param-{header}"] = encode_value(text)
    return headers


def _same(expected: Any, header: str, kind: str) -> bool:
    if kind == "boolean":
        return isinstance(expected, bool) and header == ("true" if expected else "false")
    if kind == "integer":
        try:
            return not isinstance(expected, bool) and float(header) == float(expected)
        except (TypeError, ValueError):
            return False
    return isinstance(expected, str) and header == expected


def validate_headers(headers: McpHeaders, *, method: str, params: Mapping[str, Any]) -> None:
    """Raise ``HeaderMismatch`` unless ``Mcp-Method`` and ``Mcp-Name`` agree with the body."""
    # Plain lookups first (every modern request comes here); get() phrases
    # the error for a header sent twice.
    values = headers._values
    given = values.get("mcp-method")
    sent_method = given[0] if given and len(given) == 1 else headers.get("Mcp-Method")
    if sent_method is None:
        raise HeaderMismatch("Header mismatch: Mcp-Method header is required")
    sent_method = decode_value("Mcp-Method", sent_method)
    if sent_method != method:
        raise HeaderMismatch(
            f"Header mismatch: Mcp-Method header value {sent_method!r} does not match body value {method!r}"
        )
    name_key = _NAME_KEYS.get(method)
    if name_key is not None and isinstance(params.get(name_key), str):
        given = values.get("mcp-name")
        sent_name = given[0] if given and len(given) == 1 else headers.get("Mcp-Name")
        if sent_name is None:
            raise HeaderMismatch("Header mismatch: Mcp-Name header is required")
        sent_name = decode_value("Mcp-Name", sent_name)
        if sent_name != params[name_key]:
            raise HeaderMismatch(
                f"Header mismatch: Mcp-Name header value {sent_name!r} does not match body value "
                f"{params[name_key]!r}"
            )


def validate_param_headers(
    headers: McpHeaders, arguments: Mapping[str, Any], param_headers: Mapping[str, tuple[str, str]]
) -> None:
    """Raise ``HeaderMismatch`` unless the ``Mcp-Param-*`` headers mirror a tool's ``arguments``.

    ``param_headers`` is the tool's compiled map ``{header: (property, kind)}``.
    """
    sent = headers.with_prefix("Mcp-Param-")
    for header, (prop, kind) in param_headers.items():
        value = arguments.get(prop)
        raw = sent.get(header)
        if value is None:
            if raw is not None:
                raise HeaderMismatch(f"Header mismatch: Mcp-Param-{header} sent for an absent argument")
            continue
        if raw is None:
            raise HeaderMismatch(f"Header mismatch: Mcp-Param-{header} header is required")
        decoded = decode_value(f"Mcp-Param-{header}", raw)
        if not _same(value, decoded, kind):
            raise HeaderMismatch(
                f"Header mismatch: Mcp-Param-{header} header does not match argument {prop!r}"
            )
