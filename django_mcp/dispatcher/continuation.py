"""Multi round-trip requests: signed ``requestState``, input checks, legacy rounds.

A handler returns ``InputRequiredResult`` with ``input_requests`` and any
JSON ``request_state``. Before it reaches the client the state is signed
with Django's signing, bound to the method, the component, a digest of the
arguments and the caller; on the retry it is verified (tampered, expired,
replayed on another request or by another user -> -32602) and handed back
to the handler decoded. Input requests may only use kinds the request's
client capabilities declare (MCP 2026-07-28 basic/patterns/mrtr), else
-32021 with ``requiredCapabilities``.

A 2025-11-25 client cannot read ``InputRequiredResult``: ``ask_legacy_client``
asks it with real server-to-client requests on the request's own stream and
runs the handler again with the answers (at most ``MAX_LEGACY_ROUNDS``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

import msgspec
from django.core import signing

from django_mcp.dispatcher.context import Call
from django_mcp.exceptions import InternalError, InvalidParams, MissingClientCapability
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.results import InputRequest, InputRequiredResult
from django_mcp.request import McpRequest

__all__ = [
    "MAX_LEGACY_ROUNDS",
    "ask_legacy_client",
    "attach_inputs",
    "check_input_requests",
    "finish_input_required",
    "is_continuation",
    "seal_state",
    "unseal_state",
]

MAX_LEGACY_ROUNDS: Final = 10
"""How many times one 2025-11-25 request may ask its client for input."""

_SALT = "django_mcp.request_state"
_encoder = msgspec.json.Encoder(order="sorted")


def _binding(method: str, target: str, arguments: Any, user: Any) -> str:
    digest = hashlib.sha256(_encoder.encode([method, target, arguments])).hexdigest()[:32]
    principal = getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
    return f"{digest}:{principal}"


def seal_state(state: Any, *, method: str, target: str, arguments: Any, user: Any) -> str:
    """Return ``state`` signed and bound to this request and caller."""
    return signing.dumps(
        {"s": state, "b": _binding(method, target, arguments, user)}, salt=_SALT, compress=True
    )


def unseal_state(
    token: object, *, method: str, target: str, arguments: Any, user: Any, max_age: int = 600
) -> Any:
    """Return the state sealed in ``token`` or raise ``InvalidParams``.

    ``max_age`` is ``MCP_REQUEST_STATE_MAX_AGE``, in seconds.
    """
    if not isinstance(token, str):
        raise InvalidParams("Invalid requestState: must be a string")
    try:
        value = signing.loads(token, salt=_SALT, max_age=max_age)
    except signing.SignatureExpired:
        raise InvalidParams("Expired requestState: start the request again") from None
    except signing.BadSignature:
        raise InvalidParams("Invalid requestState: failed verification") from None
    if not isinstance(value, dict) or value.get("b") != _binding(method, target, arguments, user):
        raise InvalidParams("Invalid requestState: it belongs to another request or caller")
    return value.get("s")


def is_continuation(params: Mapping[str, Any]) -> bool:
    """Return True for a retry carrying input responses or request state."""
    return "inputResponses" in params or "requestState" in params


def attach_inputs(call: Call, *, target: str, arguments: Any) -> None:
    """Verify a retry's ``inputResponses``/``requestState`` and hand them to the handler."""
    params = call.params
    responses = params.get("inputResponses")
    if responses is not None and not isinstance(responses, dict):
        raise InvalidParams("inputResponses must be an object")
    request = call.request
    request.input_responses = responses or {}
    if "requestState" in params:
        request.request_state = unseal_state(
            params["requestState"],
            method=call.envelope.method,
            target=target,
            arguments=arguments,
            user=request.user,
            max_age=call.settings.request_state_max_age,
        )


def finish_input_required(
    call: Call, result: InputRequiredResult, *, target: str, arguments: Any
) -> InputRequiredResult:
    """Check what the handler asks for and seal its ``requestState``."""
    check_input_requests(result, call.request)
    if result.request_state is UNSET:
        return result
    sealed = seal_state(
        result.request_state,
        method=call.envelope.method,
        target=target,
        arguments=arguments,
        user=call.request.user,
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
