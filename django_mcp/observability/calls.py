"""The call log: one structured record per MCP request on the ``django_mcp.calls`` logger.

Each request the dispatcher answers logs one ``INFO`` record, message
``"<method> <component> <outcome> in <seconds>s"``, whose ``extra`` fields
a structured formatter (JSON, logfmt) can read from the record:
``server``, ``method``, ``component`` (a URI without its query string,
fragment or user information: ``_record.redact_uri``), ``user_id`` (the
primary key of an authenticated caller, else None), ``outcome`` (one of
``django_mcp.signals.OUTCOMES``), ``error_code`` (JSON-RPC code, else
None), ``duration`` (seconds, a float), ``request_id``,
``protocol_version`` and ``transport`` (``http``, ``in-process``,
``stdio``). Arguments and results are never logged.

The logger is off unless the project enables it (``LOGGING``, level
``INFO`` or lower, with a handler); while it is off a request builds no
record at all (``django_mcp.observability``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from django_mcp.observability._record import CallRecord

__all__ = ["LOGGER_NAME", "log_call", "logger"]

LOGGER_NAME: Final = "django_mcp.calls"
"""The name of the call log's logger."""

logger: Final = logging.getLogger(LOGGER_NAME)
"""The call log's logger."""


def log_call(record: CallRecord) -> None:
    """Log one finished request (if the logger is enabled for ``INFO``)."""
    if not logger.isEnabledFor(logging.INFO):
        return
    logger.info(
        "%s %s %s in %.6fs",
        record.method,
        record.component or "-",
        record.outcome,
        record.duration,
        extra={
            "server": record.server_key,
            "method": record.method,
            "component": record.component,
            "user_id": record.user_id,
            "outcome": record.outcome,
            "error_code": record.error_code,
            "duration": record.duration,
            "request_id": record.request_id,
            "protocol_version": record.protocol_version,
            "transport": record.transport,
        },
    )
