"""2025-11-25 answers and cancellations that reach another worker.

A 2025-11-25 server-to-client request (elicitation, sampling, roots) waits
for the client's answer in the worker that sent it (``PendingRequests``),
and a request in flight can be cancelled only where it runs
(``LegacyCalls``). Without sticky sessions, the POST carrying the answer or
the ``notifications/cancelled`` may reach any worker. That worker:

1. resolves it itself when the request is its own;
2. else, when the event backend spans processes (``EventBackend.forwards``:
   the Redis backend), forwards it on the deployment's control channel:
   the worker holding the request resolves it, every other subscribed
   worker declines, and each replies. So the POST is accepted (202) once
   the answer was delivered, or once every worker said it waits for no such
   request (it timed out, was answered already, or was never sent: dropped,
   as within one process);
3. when neither can be known (the backend is unreachable, a worker did not
   reply within ``FORWARD_TIMEOUT``), the POST is refused with
   ``AnswerNotDelivered`` (-32603, HTTP 503 with ``Retry-After``) and a
   warning names the cause, so the client can send it again instead of its
   request waiting in vain.

A worker subscribes to forwarded messages (``ready()``) before it serves a
2025-11-25 request, so it hears about the answers its requests will need.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django_mcp.dispatcher.sessions import LegacyCalls, PendingRequests
from django_mcp.events import ForwardFailed, get_backend, on_forwarded
from django_mcp.exceptions import AnswerNotDelivered

__all__ = ["Relay"]

logger = logging.getLogger(__name__)


class Relay:
    """Resolve one server's answers and cancellations here or in the worker concerned."""

    def __init__(self, server: str, pending: PendingRequests, calls: LegacyCalls) -> None:
        self.server = server
        self.pending = pending
        self.calls = calls
        # Held weakly: the relay goes away with its dispatcher.
        on_forwarded(self.take)

    def __repr__(self) -> str:
        return f"Relay(server={self.server!r})"

    async def ready(self) -> None:
        """Receive the answers other workers forward from now on."""
        await get_backend().receive_forwarded()

    async def answer(self, session_id: str, request_id: Any, *, result: Any, error: Any) -> None:
        """Complete the server-to-client request ``request_id`` with the client's answer.

        Raises:
            AnswerNotDelivered: it is not known to have reached its request.
        """
        if self.pending.resolve(session_id, request_id, result=result, error=error):
            return
        message = {"kind": "answer", "id": request_id, "result": result, "error": error}
        await self._forward(session_id, message, f"the answer to {request_id!r}")

    async def cancel(self, session_id: str, request_id: Any) -> None:
        """Cancel the session's request ``request_id`` wherever it runs.

        Raises:
            AnswerNotDelivered: it is not known to have reached its request.
        """
        if self.calls.cancel(session_id, request_id):
            return
        message = {"kind": "cancel", "id": request_id}
        await self._forward(session_id, message, f"the cancellation of {request_id!r}")

    def take(self, message: Mapping[str, Any]) -> bool:
        """Act on a message another worker forwarded; True when it was for this one."""
        if message.get("server") != self.server or not isinstance(message.get("session"), str):
            return False
        session_id, request_id = message["session"], message.get("id")
        if message.get("kind") == "answer":
            return self.pending.resolve(
                session_id, request_id, result=message.get("result"), error=message.get("error")
            )
        if message.get("kind") == "cancel":
            return self.calls.cancel(session_id, request_id)
        return False

    async def _forward(self, session_id: str, message: dict[str, Any], what: str) -> None:
        backend = get_backend()
        if not backend.forwards:
            logger.debug("No request of this process waits for %s; dropped", what)
            return
        try:
            taken = await backend.forward({**message, "server": self.server, "session": session_id})
        except ForwardFailed as exc:
            logger.warning("Could not hand %s to the worker serving its request: %s", what, exc.reason)
            raise AnswerNotDelivered() from None
        if not taken:
            logger.debug("No worker waits for %s; dropped", what)
