"""Server Cards (SEP-2127, a draft): a server described for registries and hosts.

``server_card(ServerClass, url=...)`` returns the card of a server as
JSON-ready builtins, in the shape of the newest draft (the experimental
``server-card`` extension's ``v1`` schema, July 2026): ``$schema``,
``name`` (``namespace/name``), ``version``, ``description``, ``title``,
``websiteUrl``, ``icons`` and ``remotes`` (one ``streamable-http`` remote
with the endpoint URL and the protocol revisions served), all from the
compiled catalog. The draft leaves primitives out of the card; this
package adds a summary of what the server offers under its own ``_meta``
key, ``io.github.django-mcp/catalog``: the capabilities, each extension
with its lifecycle stage, and the name, title and description of each
tool, resource, resource template and prompt that any caller may use (a
component guarded by ``permissions`` or ``authorize()``, and every
component of a ``login_required`` server, stays out: a card is public).

The card is static: the same declarations always give the same bytes
(``encode_card``), so its ``etag`` changes only when the catalog does.
Refused, with ``CardError`` (a ``ValueError``): a name that is not
``namespace/name`` and a missing or over-long description (the draft
bounds it to 1-100 characters), each with what to pass instead.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any, Final

import msgspec
from django.utils.translation import gettext

from django_mcp.protocol.extensions import STAGES
from django_mcp.protocol.versions import SUPPORTED_VERSIONS
from django_mcp.server.server import Server

__all__ = [
    "CATALOG_META",
    "MEDIA_TYPE",
    "SCHEMA_URL",
    "CardError",
    "encode_card",
    "etag",
    "server_card",
]

SCHEMA_URL: Final = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
"""The ``$schema`` every card names (the draft's ``v1`` family)."""

MEDIA_TYPE: Final = "application/mcp-server-card+json"
"""The media type of a Server Card over HTTP."""

CATALOG_META: Final = "io.github.django-mcp/catalog"
"""The ``_meta`` key of the catalog summary this package adds to a card."""

# The draft's rules for name and description.
_NAME_RE: Final = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
_MAX_DESCRIPTION: Final = 100
_encoder = msgspec.json.Encoder(order="deterministic")


class CardError(ValueError):
    """A server card cannot be built as asked (the message says what to pass)."""


def server_card(
    server: type[Server], *, url: str | None = None, name: str | None = None, description: str | None = None
) -> dict[str, Any]:
    """Return the Server Card of ``server`` as JSON-ready builtins.

    ``url`` is the absolute URL of its Streamable HTTP endpoint (no
    ``remotes`` without it); ``name`` and ``description`` replace the
    server's own.

    Raises:
        CardError: the name is not ``namespace/name``, or the description is
            missing or longer than 100 characters.
    """
    compiled = server.compiled()
    info = msgspec.to_builtins(compiled.info)
    card_name = name if name is not None else info["name"]
    if not (3 <= len(card_name) <= 200 and _NAME_RE.match(card_name)):
        raise CardError(
            gettext(
                "A server card's name is 'namespace/name' (reverse DNS, e.g. 'com.example/weather'), "
                "got {card_name!r}: pass --name."
            ).format(card_name=card_name)
        )
    text = description if description is not None else info.get("description")
    if not text or len(text) > _MAX_DESCRIPTION:
        problem = (
            gettext("has no description")
            if not text
            else gettext("description is {length} characters").format(length=len(text))
        )
        raise CardError(
            gettext(
                "A server card needs a description of 1 to {maximum} characters; this server "
                "{problem}: pass --description."
            ).format(maximum=_MAX_DESCRIPTION, problem=problem)
        )
    card: dict[str, Any] = {"$schema": SCHEMA_URL, "name": card_name, "version": info["version"]}
    card["description"] = text
    for key in ("title", "websiteUrl", "icons"):
        if key in info:
            card[key] = info[key]
    if url is not None:
        card["remotes"] = [
            {"type": "streamable-http", "url": url, "supportedProtocolVersions": list(SUPPORTED_VERSIONS)}
        ]
    card["_meta"] = {CATALOG_META: _catalog(compiled)}
    return card


def encode_card(card: dict[str, Any]) -> bytes:
    """Return ``card`` as indented JSON with sorted keys: the same card, the same bytes."""
    return msgspec.json.format(_encoder.encode(card), indent=2) + b"\n"


def etag(body: bytes) -> str:
    """Return the strong ETag of an encoded card."""
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _catalog(compiled: Any) -> dict[str, Any]:
    capabilities = msgspec.to_builtins(compiled.capabilities)
    extensions = capabilities.pop("extensions", {})
    public = not compiled.login_required
    return {
        "capabilities": capabilities,
        "extensions": {
            identifier: {"stage": STAGES.get(identifier, "experimental"), **settings}
            for identifier, settings in extensions.items()
        },
        "tools": _summaries(compiled.tools.values(), ("name", "title", "description"), public=public),
        "resources": _summaries(
            compiled.resources.values(), ("uri", "name", "title", "description", "mimeType"), public=public
        ),
        "resourceTemplates": _summaries(
            compiled.templates.values(),
            ("uriTemplate", "name", "title", "description", "mimeType"),
            public=public,
        ),
        "prompts": _summaries(compiled.prompts.values(), ("name", "title", "description"), public=public),
    }


def _summaries(entries: Iterable[Any], keys: tuple[str, ...], *, public: bool) -> list[dict[str, Any]]:
    if not public:
        return []
    found = []
    for entry in entries:
        if entry.permissions or entry.has_authorize:
            continue
        definition = msgspec.to_builtins(entry.definition)
        found.append({key: definition[key] for key in keys if key in definition})
    return found
