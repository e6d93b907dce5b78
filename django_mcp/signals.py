"""Signals a project connects to for metrics or an audit of its own.

Both are sent only while they have receivers: an unconnected signal costs a
request nothing (``django_mcp.observability`` decides whether anything
observes when a receiver connects or disconnects). Receivers may be sync or
async functions; an exception a receiver raises is logged
(``django_mcp.observability``) and never changes the answer.

``mcp_request_finished``
    Sent once per MCP request served by a dispatcher (every transport: HTTP,
    the fast paths, STDIO, the admin playground, ``McpTestClient``), after
    the answer is computed and before it is sent. ``sender`` is the
    ``Server`` class. Keyword arguments:

    * ``server``: the server's key (its dotted path), a ``str``;
    * ``method``: the JSON-RPC method, e.g. ``"tools/call"``;
    * ``component``: the tool or prompt name, the resource or skill URI
      (without its query string, fragment or user information), else ``""``;
    * ``user``: the caller (a user, ``AnonymousUser``, or None over STDIO);
    * ``outcome``: one of ``OUTCOMES`` (``"ok"``, ``"tool_error"``,
      ``"error"``, ``"input_required"``, ``"task"``, ``"cancelled"``);
    * ``error_code``: the JSON-RPC error code of an ``"error"``, else None;
    * ``duration``: seconds from the dispatcher receiving the request to the
      answer being ready, a ``float``;
    * ``protocol_version``: the MCP revision of the request, e.g.
      ``"2026-07-28"``;
    * ``request_id``: the JSON-RPC id.

``mcp_task_status_changed``
    Sent when a task of the tasks extension is created (``"working"``) and
    whenever its status changes. ``sender`` is ``django_mcp.models.McpTask``.
    Keyword arguments: ``task_id`` (the task's id: a capability its owner
    polls with, so keep it out of shared logs), ``status`` (``"working"``,
    ``"input_required"``, ``"completed"``, ``"failed"`` or
    ``"cancelled"``), ``error_code`` (the JSON-RPC code of a failed task,
    else None) and ``tool_error`` (True for a task completed with a tool
    error, ``isError``).

The names do not clash with Django's ``request_finished``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from django.dispatch import Signal

__all__ = ["OUTCOMES", "ObservedSignal", "mcp_request_finished", "mcp_task_status_changed"]

OUTCOMES: Final = ("ok", "tool_error", "error", "input_required", "task", "cancelled")
"""How a request ended, as signals, the call log and the audit trail name it.

``ok``: a result; ``tool_error``: a tool's result with ``isError``;
``error``: a JSON-RPC error; ``input_required``: the server asked the
client for input (2026-07-28 multi round-trip); ``task``: a tool call
answered with a task; ``cancelled``: the request was cancelled before its
answer (the client went away).
"""


class ObservedSignal(Signal):
    """A ``Signal`` that calls its ``watchers`` when receivers come and go.

    ``django_mcp.observability`` watches both signals: a receiver
    connecting or disconnecting has the next request decide again whether
    anything observes it. This module imports nothing of the package.
    """

    def __init__(self, use_caching: bool = False) -> None:  # noqa: FBT001, FBT002 - Django's signature
        super().__init__(use_caching=use_caching)
        #: Called without arguments after a receiver connects or disconnects.
        self.watchers: list[Callable[[], None]] = []

    def connect(
        self,
        receiver: Callable[..., Any],
        sender: Any = None,
        weak: bool = True,  # noqa: FBT001, FBT002 - Django's signature
        dispatch_uid: Any = None,
    ) -> None:
        """Connect ``receiver`` as Django does; the next request looks again."""
        super().connect(receiver, sender, weak, dispatch_uid)
        self._changed()

    def disconnect(self, receiver: Any = None, sender: Any = None, dispatch_uid: Any = None) -> bool:
        """Disconnect ``receiver`` as Django does; the next request looks again."""
        disconnected = super().disconnect(receiver, sender, dispatch_uid)
        self._changed()
        return disconnected

    def _changed(self) -> None:
        for watcher in self.watchers:
            watcher()


mcp_request_finished: Final = ObservedSignal()
"""Sent when a dispatcher has answered an MCP request (see the module docstring)."""

mcp_task_status_changed: Final = ObservedSignal()
"""Sent when a task is created or its status changes (see the module docstring)."""
