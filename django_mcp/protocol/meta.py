"""The reserved ``_meta`` keys of MCP 2026-07-28 (basic/index, "Request metadata" and "_meta").

A 2026-07-28 request carries its protocol version, the client's
capabilities and info, and optionally a log level in ``params._meta``
under these keys; a result may carry the server's info and a change
notification the subscription it belongs to.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "META_CAPABILITIES",
    "META_CLIENT_INFO",
    "META_LOG_LEVEL",
    "META_SERVER_INFO",
    "META_SUBSCRIPTION_ID",
    "META_VERSION",
]

META_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
"""The protocol revision a 2026-07-28 request is made in."""

META_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
"""The capabilities the client declares for this request."""

META_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
"""The client's name and version."""

META_LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"
"""The lowest log level the client wants ``notifications/message`` for."""

META_SERVER_INFO: Final = "io.modelcontextprotocol/serverInfo"
"""The server's name and version, in a result's ``_meta``."""

META_SUBSCRIPTION_ID: Final = "io.modelcontextprotocol/subscriptionId"
"""The ``subscriptions/listen`` request a change notification belongs to."""
