"""Asking a 2025-11-25 client: one server-to-client request and its answer, on every transport.

A 2025-11-25 handler that needs input (elicitation, sampling, roots) asks
its client with a real JSON-RPC request (``continuation.ask_legacy_client``)
through the ``ClientRequest`` this module makes. HTTP posts the request on
the POST's SSE stream, STDIO writes it to the output; either way the client
answers with a JSON-RPC response that completes the request's future in
``PendingRequests`` (over HTTP possibly through another worker, relayed:
``relay.py``). Both transports behave the same (2025-11-25
basic/utilities/cancellation, "either side may cancel"):

* an error answer is an ``InternalError`` "The client refused <method>";
* no answer within ``CLIENT_REQUEST_TIMEOUT`` is an ``InternalError``, and
  the request is withdrawn with ``notifications/cancelled``;
* a handler cancelled while it waits withdraws its request too, unless the
  connection is closing (nobody would read it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from django_mcp.dispatcher.codec import CLIENT_REQUEST_TIMEOUT, encode_notification, encode_request
from django_mcp.dispatcher.context import ClientRequest
from django_mcp.dispatcher.sessions import ClientRequestFailed, PendingRequests
from django_mcp.exceptions import InternalError

__all__ = ["client_requester"]


def client_requester(
    pending: PendingRequests,
    session_id: str,
    post: Callable[[bytes], None],
    *,
    withdraw: Callable[[bytes], None] | None = None,
    closing: Callable[[], bool] = lambda: False,
    timeout: float = CLIENT_REQUEST_TIMEOUT,
) -> ClientRequest:
    """Return the function a handler awaits to ask its client ``method`` with ``params``.

    ``post`` queues one encoded request for the client, ``withdraw`` (by
    default ``post``) its ``notifications/cancelled``; ``closing()`` is True
    once nothing more can reach the client.
    """
    cancel = post if withdraw is None else withdraw

    async def client_request(method: str, params: dict[str, Any]) -> Any:
        request_id = pending.new_id()
        future = pending.expect(session_id, request_id)
        post(encode_request(request_id, method, params))
        try:
            return await asyncio.wait_for(future, timeout)
        except ClientRequestFailed:
            raise InternalError(f"The client refused {method}") from None
        except TimeoutError:
            _withdraw(cancel, request_id, "Timed out")
            raise InternalError(f"The client did not answer {method} in time") from None
        except asyncio.CancelledError:
            if not closing():
                _withdraw(cancel, request_id, "The request that needed it was cancelled")
            raise

    return client_request


def _withdraw(post: Callable[[bytes], None], request_id: str, reason: str) -> None:
    post(encode_notification("notifications/cancelled", {"requestId": request_id, "reason": reason}))
