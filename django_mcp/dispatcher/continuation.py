"""Multi round-trip requests: signed ``requestState``, input checks, legacy rounds.

A handler returns ``InputRequiredResult`` with ``input_requests`` and any
JSON ``request_state``. Before it reaches the client the state is signed
with Django's signing, bound to the server, the method, the component, a
digest of the arguments and the caller: an authenticated user by primary
key, an anonymous one by client address when the transport knows it
(``django_mcp._callers``: best effort, callers behind one proxy or NAT
share an address, and STDIO has none). On the retry it is verified (tampered,
expired, replayed on another server, request or by another caller ->
-32602) and handed back to the handler decoded. Each sealed state is
single-use: its digest is recorded in Django's ``default`` cache until it
expires, and a second retry with it is -32602 "requestState already used"
(across workers only with a shared cache). Input requests may only use
kinds the request's client capabilities declare (MCP 2026-07-28
basic/patterns/mrtr), else -32021 with ``requiredCapabilities``.

A 2025-11-25 client cannot read ``InputRequiredResult``: ``ask_legacy_client``
asks it with real server-to-client requests on the request's own stream and
runs the handler again with the answers (at most ``MAX_LEGACY_ROUNDS``).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

import msgspec
from django.core import signing
from django.core.cache import caches

from django_mcp._callers import caller_principal
from django_mcp.dispatcher.context import Call
from django_mcp.exceptions import InternalError, InvalidParams, MissingClientCapability
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.results import InputRequest, InputRequiredResult
from django_mcp.request import McpRequest

__all__ = [
    "MAX_LEGACY_ROUNDS",
    "USED_KEY_PREFIX",
    "ask_legacy_client",
    "attach_inputs",
    "check_input_requests",
    "finish_input_required",
    "is_continuation",
    "seal_state",
    "spend_state",
    "unseal_state",
]

MAX_LEGACY_ROUNDS: Final = 10
"""How many times one 2025-11-25 request may ask its client for input."""

USED_KEY_PREFIX: Final = "django_mcp:request_state:"
"""Cache key prefix marking a sealed ``requestState`` as used."""

_SALT = "django_mcp.request_state"
_encoder = msgspec.json.Encoder(order="sorted")


def _binding(server: str, method: str, target: str, arguments: Any, user: Any, client: str | None) -> str:
    digest = hashlib.sha256(_encoder.encode([server, method, target, arguments])).hexdigest()[:32]
    return f"{digest}:{caller_principal(user, client)}"


def seal_state(
    state: Any,
    *,
    server: str,
    method: str,
    target: str,
    arguments: Any,
    user: Any,
    client: str | None = None,
) -> str:
    """Return ``state`` signed and bound to this server, request and caller.

    ``client`` is the caller's address, which binds an anonymous caller.
    """
    # The nonce makes every sealed state unique, so single use never
    # refuses a state a handler returned again unchanged.
    binding = _binding(server, method, target, arguments, user, client)
    return signing.dumps({"s": state, "b": binding, "n": secrets.token_hex(8)}, salt=_SALT, compress=True)


def unseal_state(
    token: object,
    *,
    server: str,
    method: str,
    target: str,
    arguments: Any,
    user: Any,
    client: str | None = None,
    max_age: int = 600,
) -> Any:
    """Return the state sealed in ``token`` or raise ``InvalidParams``.

    ``max_age`` is ``MCP_REQUEST_STATE_MAX_AGE``, in seconds. Single use is
    ``spend_state``'s, not this function's.
    """
    if not isinstance(token, str):
        raise InvalidParams("Invalid requestState: must be a string")
    try:
        value = signing.loads(token, salt=_SALT, max_age=max_age)
    except signing.SignatureExpired:
        raise InvalidParams("Expired requestState: start the request again") from None
    except signing.BadSignature:
        raise InvalidParams("Invalid requestState: failed verification") from None
    if not isinstance(value, dict) or value.get("b") != _binding(
        server, method, target, arguments, user, client
    ):
        raise InvalidParams("Invalid requestState: it belongs to another request or caller")
    return value.get("s")


async def spend_state(token: str, *, max_age: int) -> None:
    """Mark a verified ``token`` used, or raise ``InvalidParams`` if it was.

    The mark lives in the ``default`` cache for ``max_age`` seconds, after
    which the token has expired anyway.
    """
    key = USED_KEY_PREFIX + hashlib.sha256(token.encode()).hexdigest()
    if not await caches["default"].aadd(key, value=1, timeout=max_age):
        raise InvalidParams("requestState already used: start the request again")


def is_continuation(params: Mapping[str, Any]) -> bool:
    """Return True for a retry carrying input responses or request state."""
    return "inputResponses" in params or "requestState" in params


async def attach_inputs(call: Call, *, target: str, arguments: Any) -> None:
    """Verify a retry's ``inputResponses``/``requestState`` and hand them to the handler.

    A verified ``requestState`` is spent: it cannot be presented again.
    """
    params = call.params
    responses = params.get("inputResponses")
    if responses is not None and not isinstance(responses, dict):
        raise InvalidParams("inputResponses must be an object")
    request = call.request
    request.input_responses = responses or {}
    if "requestState" in params:
        token = params["requestState"]
        max_age = call.settings.request_state_max_age
        state = unseal_state(
            token,
            server=call.compiled.key,
            method=call.envelope.method,
            target=target,
            arguments=arguments,
            user=request.user,
            client=request.client_address,
            max_age=max_age,
        )
        await spend_state(token, max_age=max_age)
        request.request_state = state


def finish_input_required(
    call: Call, result: InputRequiredResult, *, target: str, arguments: Any
) -> InputRequiredResult:
    """Check what the handler asks for and seal its ``requestState``."""
    check_input_requests(result, call.request)
    if result.request_state is UNSET:
        return result
    sealed = seal_state(
        result.request_state,
        server=call.compiled.key,
        method=call.envelope.method,
        target=target,
        arguments=arguments,
        user=call.request.user,
        client=call.request.client_address,
    )
    return msgspec.structs.replace(result, request_state=sealed)


_NEEDS: Mapping[str, str] = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


def check_input_requests(result: InputRequiredResult, request: McpRequest) -> None:
    """Raise unless every input request is a kind the client declared."""
    requests = result.input_requests
    if requests is UNSET:
        if result.request_state is UNSET:
            raise ValueError("InputRequiredResult needs input_requests or request_state")
        return
    for key, item in requests.items():
        if not isinstance(item, InputRequest):
            raise TypeError(f"input request {key!r} must be an InputRequest, got {type(item).__name__}")
        capability = _NEEDS.get(item.method)
        if capability is None:
            raise ValueError(f"input request {key!r} has unsupported method {item.method!r}")
        sub = None
        if capability == "elicitation":
            mode = (item.params or {}).get("mode", "form") if item.params is not UNSET else "form"
            sub = "url" if mode == "url" else "form"
        if not request.has_capability(capability, sub):
            needed: dict[str, Any] = {capability: {sub: {}} if sub else {}}
            raise MissingClientCapability(
                f"This request needs the client capability {capability}",
                data={"requiredCapabilities": needed},
            )


async def ask_legacy_client(
    call: Call, result: InputRequiredResult, run: Callable[[Call], Awaitable[Any]], renew: Any
) -> Any:
    """Answer ``result``'s input requests with 2025-11-25 server-to-client requests.

    Each round sends every input request on the request's stream, then runs
    the handler again (``run``) with ``inputResponses`` and the sealed
    ``requestState``; ``renew(call, params)`` returns the retried call.
    """
    for _round in range(MAX_LEGACY_ROUNDS):
        client_request = call.ctx.client_request
        if client_request is None:
            raise MissingClientCapability("This request needs input the client cannot provide here")
        responses: dict[str, Any] = {}
        for key, item in (result.input_requests or {}).items():
            responses[key] = await client_request(item.method, item.params or {})
        params = dict(call.params)
        params["inputResponses"] = responses
        if result.request_state is not UNSET:
            params["requestState"] = result.request_state
        else:
            params.pop("requestState", None)
        call = renew(call, params)
        result = await run(call)
        if not isinstance(result, InputRequiredResult):
            return result
    raise InternalError("Too many input rounds")
