"""A request's HTTP headers, and the value codec of the MCP headers.

``McpHeaders`` is a case-insensitive view of a request's headers that keeps
repeats (a header sent twice may be invalid) and reads what every request
needs once. ``decode_value``/``encode_value`` are the value forms of MCP
2026-07-28 basic/transports/streamable-http (SEP-2243): visible ASCII as it
is, anything else as ``=?base64?<b64>?=`` (strict Base64 of UTF-8).
``conforming_headers`` is what a conforming client sends with a request
(the test client uses it). The rules checking the headers against the body
are the endpoint's (``_endpoint.validate_headers``).
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from django_mcp.exceptions import HeaderMismatch

__all__ = [
    "NAME_KEYS",
    "McpHeaders",
    "conforming_headers",
    "declared_length",
    "decode_value",
    "encode_value",
    "mirrored_headers",
]

_VALID_VALUE = re.compile(r"^[\x20-\x7e\t]*$")
#: The body member ``Mcp-Name`` mirrors, per method (SEP-2243; tasks/*: SEP-2663
#: "Streamable HTTP: Routing Headers").
NAME_KEYS: Final[Mapping[str, str]] = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}
_BASE64 = re.compile(r"^=\?base64\?(.*)\?=$", re.DOTALL)


def declared_length(value: str | None) -> int | None:
    """Return a ``Content-Length`` value as a number (None when absent or malformed).

    Only ASCII digits make a length (RFC 9110 8.6): ``str.isdigit`` alone
    also takes superscripts such as ``²``, which ``int`` refuses.
    """
    return int(value) if value is not None and value.isascii() and value.isdigit() else None


class McpHeaders:
    """Case-insensitive view of a request's headers that keeps duplicates.

    What every request needs is read up front, once, into attributes: the
    era headers (``session_id``, ``protocol_version``; ``check_era_headers()``
    refuses either one sent twice), and ``host``, ``origin``,
    ``content_type`` (the media type, lowercase), ``accept`` and
    ``content_length`` (list headers joined, RFC 9110 5.3; a repeated
    ``Content-Length`` declares no length).
    """

    __slots__ = (
        "_values",
        "accept",
        "content_length",
        "content_type",
        "era_repeated",
        "host",
        "origin",
        "protocol_version",
        "session_id",
    )

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        values: dict[str, list[str]] = {}
        for name, value in pairs:
            # Surrounding whitespace is not part of a field value (RFC 9110
            # 5.5); ASGI servers usually strip it, test clients may not.
            values.setdefault(name.lower(), []).append(value.strip(" \t"))
        self._read(values)

    def _read(self, values: dict[str, list[str]]) -> None:
        """Keep ``values`` (lowercase name: its values) and read what every request needs."""
        self._values = values
        session = values.get("mcp-session-id")
        version = values.get("mcp-protocol-version")
        # Read on every request: plain lookups rather than method calls.
        self.session_id = session[0] if session else None
        self.protocol_version = version[0] if version else None
        self.era_repeated = (session is not None and len(session) > 1) or (
            version is not None and len(version) > 1
        )
        host = values.get("host")
        # Repeated, it is joined as Django joins it (and then never allowed).
        self.host = ",".join(host) if host else None
        origin = values.get("origin")
        self.origin = ", ".join(origin) if origin else None
        content_type = values.get("content-type")
        self.content_type = content_type[0].split(";", 1)[0].strip().lower() if content_type else ""
        accept = values.get("accept")
        self.accept = ", ".join(accept) if accept else None
        length = values.get("content-length")
        # Sent twice it declares nothing (the body is counted as it comes).
        self.content_length = declared_length(length[0]) if length and len(length) == 1 else None

    def check_era_headers(self) -> None:
        """Raise ``HeaderMismatch`` when ``Mcp-Session-Id`` or ``MCP-Protocol-Version`` is repeated."""
        self.get("Mcp-Session-Id")
        self.get("MCP-Protocol-Version")

    @classmethod
    def from_asgi(cls, raw: Iterable[tuple[bytes, bytes]]) -> McpHeaders:
        """Read an ASGI scope's header list (exact names, repeats kept)."""
        # As __init__ reads pairs, with each name decoded once per process.
        values: dict[str, list[str]] = {}
        for raw_name, raw_value in raw:
            name = _asgi_name(raw_name)
            value = raw_value.decode("latin-1").strip(" \t")
            known = values.get(name)
            if known is None:
                values[name] = [value]
            else:
                known.append(value)
        headers = cls.__new__(cls)
        headers._read(values)
        return headers

    @classmethod
    def from_environ(cls, environ: Mapping[str, Any]) -> McpHeaders:
        """Read a WSGI environ (or Django's ``request.META``).

        A WSGI server has already joined a repeated header into one value,
        so there a repeat cannot be told apart.
        """
        return _EnvironHeaders(environ)

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
        for name in self._table():
            if name.startswith(prefix):
                out[name[len(prefix) :]] = self.get(name) or ""
        return out

    def _table(self) -> dict[str, list[str]]:
        """Return every header: lowercase name, its values."""
        return self._values


class _EnvironHeaders(McpHeaders):
    """The headers of a WSGI environ, each read from it when asked.

    A request needs a handful of them: reading those few keys costs less
    than turning every ``HTTP_*`` key into a name first. The server joined
    any repeat already, so ``get`` never raises and ``era_repeated`` is
    False.
    """

    __slots__ = ("_environ",)

    def __init__(self, environ: Mapping[str, Any]) -> None:
        self._environ = environ
        self._values = None  # type: ignore[assignment]  # the whole table, made by _table() when asked
        # The keys spelt out (PEP 3333: native strings), no call per field.
        get = environ.get
        value = get("HTTP_MCP_SESSION_ID")
        self.session_id = None if value is None else value.strip(" \t")
        value = get("HTTP_MCP_PROTOCOL_VERSION")
        self.protocol_version = None if value is None else value.strip(" \t")
        self.era_repeated = False
        value = get("HTTP_HOST")
        self.host = None if value is None else value.strip(" \t")
        value = get("HTTP_ORIGIN")
        self.origin = None if value is None else value.strip(" \t")
        value = get("CONTENT_TYPE")
        self.content_type = value.split(";", 1)[0].strip().lower() if value else ""
        value = get("HTTP_ACCEPT")
        self.accept = None if value is None else value.strip(" \t")
        value = get("CONTENT_LENGTH")
        self.content_length = declared_length(value.strip(" \t")) if value else None

    def get(self, name: str) -> str | None:
        """Return the value of ``name`` (None when absent)."""
        key = _environ_key(name)
        value = self._environ.get(key)
        if not value and key[:5] != "HTTP_":
            return None  # an empty CONTENT_TYPE or CONTENT_LENGTH: no such header
        return _stripped(value)

    def joined(self, name: str, separator: str = ", ") -> str | None:
        """Return the value of ``name``: the server joined its repeats already."""
        return self.get(name)

    def _table(self) -> dict[str, list[str]]:
        values = self._values
        if values is None:
            values = self._values = {}
            for key, value in self._environ.items():
                if key[:5] == "HTTP_":
                    values[_environ_name(key)] = [str(value).strip(" \t")]
            for name in ("content-type", "content-length"):
                single = self.get(name)
                if single is not None:
                    values.setdefault(name, []).append(single)
        return values


@functools.lru_cache(maxsize=256)  # clients send the same few header names
def _asgi_name(raw: bytes) -> str:
    """Return an ASGI header name as ``McpHeaders`` keys it (ASGI servers send it lowercase already)."""
    return raw.decode("latin-1").lower()


@functools.lru_cache(maxsize=256)
def _environ_name(key: str) -> str:
    """Return the header name of a WSGI environ key (``HTTP_MCP_METHOD``: ``mcp-method``)."""
    return key[5:].replace("_", "-").lower()


def _stripped(value: Any) -> str | None:
    """Return an environ value without surrounding whitespace (RFC 9110 5.5), None when absent."""
    return None if value is None else str(value).strip(" \t")


@functools.lru_cache(maxsize=256)
def _environ_key(name: str) -> str:
    """Return the WSGI environ key of a header name (``Mcp-Method``: ``HTTP_MCP_METHOD``; PEP 3333)."""
    key = name.upper().replace("-", "_")
    return key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else "HTTP_" + key


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
    name_key = NAME_KEYS.get(method)
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
