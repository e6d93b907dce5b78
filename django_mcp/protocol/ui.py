"""Wire names of the MCP Apps extension ``io.modelcontextprotocol/ui`` (SEP-1865).

MCP Apps (specification 2026-01-26, Stable) lets a tool name a ``ui://``
resource, an HTML document a host renders in a sandboxed iframe beside the
tool's result. Both peers declare the extension in
``capabilities.extensions``; its settings object lists the MIME types
(``mimeTypes``) a peer serves or renders. A UI resource carries
``_meta.ui`` (``csp``, ``permissions``, ``domain``, ``prefersBorder``), a
tool ``_meta.ui`` (``resourceUri``, ``visibility``). This module imports
nothing from Django and holds no behaviour.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "EXTENSION",
    "META_KEY",
    "MIME_TYPE",
    "PERMISSIONS",
    "SETTINGS",
    "VISIBILITIES",
    "declares_apps",
]

EXTENSION: Final = "io.modelcontextprotocol/ui"
"""The extension's identifier in ``capabilities.extensions`` (SEP-1865)."""

MIME_TYPE: Final = "text/html;profile=mcp-app"
"""The MIME type of an App's HTML document (SEP-1865 "UI Resource Format")."""

META_KEY: Final = "ui"
"""The ``_meta`` key of a UI resource's and a linked tool's settings."""

SETTINGS: Final[Mapping[str, Any]] = {"mimeTypes": [MIME_TYPE]}
"""The settings object a server serving Apps declares for the extension."""

PERMISSIONS: Final[Mapping[str, str]] = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboard_write": "clipboardWrite",
}
"""Sandbox permissions an App may request: Python name -> wire name."""

VISIBILITIES: Final[tuple[str, ...]] = ("model", "app")
"""Who may see and call a linked tool (SEP-1865 "Visibility"); the default."""


def declares_apps(capabilities: Mapping[str, Any]) -> bool:
    """Return True when client ``capabilities`` declare Apps for HTML documents.

    The client's settings object must list ``text/html;profile=mcp-app`` in
    ``mimeTypes`` (SEP-1865 "Client<>Server Capability Negotiation").
    """
    extensions = capabilities.get("extensions")
    if not isinstance(extensions, Mapping):
        return False
    settings = extensions.get(EXTENSION)
    if not isinstance(settings, Mapping):
        return False
    mime_types = settings.get("mimeTypes")
    return isinstance(mime_types, list | tuple) and MIME_TYPE in mime_types
