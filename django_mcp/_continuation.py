"""Multi round-trip requests: signed ``requestState`` and input checks.

A handler returns ``InputRequiredResult`` with ``input_requests`` and any
JSON ``request_state``. Before it reaches the client the state is signed
with Django's signing, bound to the method, the component, a digest of the
arguments and the caller; on the retry it is verified (tampered, expired,
replayed on another request or by another user -> -32602) and handed back
to the handler decoded. Input requests may only use kinds the request's
client capabilities declare (MCP 2026-07-28 basic/patterns/mrtr), else
-32021 with ``requiredCapabilities``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import msgspec
from django.core import signing

from django_mcp.conf import get_setting
from django_mcp.context import McpRequest
from django_mcp.exceptions import InvalidParams, MissingClientCapability
from django_mcp.protocol.results import InputRequest, InputRequiredResult

__all__ = ["check_input_requests", "seal_state", "unseal_state"]

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


def unseal_state(token: object, *, method: str, target: str, arguments: Any, user: Any) -> Any:
    """Return the state sealed in ``token`` or raise ``InvalidParams``."""
    if not isinstance(token, str):
        raise InvalidParams("Invalid requestState: must be a string")
    try:
        value = signing.loads(token, salt=_SALT, max_age=get_setting("MCP_REQUEST_STATE_MAX_AGE"))
    except signing.SignatureExpired:
        raise InvalidParams("Expired requestState: start the request again") from None
    except signing.BadSignature:
        raise InvalidParams("Invalid requestState: failed verification") from None
    if not isinstance(value, dict) or value.get("b") != _binding(method, target, arguments, user):
        raise InvalidParams("Invalid requestState: it belongs to another request or caller")
    return value.get("s")


_NEEDS: Mapping[str, str] = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


def check_input_requests(result: InputRequiredResult, request: McpRequest) -> None:
    """Raise unless every input request is a kind the client declared."""
    requests = result.input_requests
    if requests is msgspec.UNSET:
        if result.request_state is msgspec.UNSET:
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
            mode = (item.params or {}).get("mode", "form") if item.params is not msgspec.UNSET else "form"
            sub = "url" if mode == "url" else "form"
        if not request.has_capability(capability, sub):
            needed: dict[str, Any] = {capability: {sub: {}} if sub else {}}
            raise MissingClientCapability(
                f"This request needs the client capability {capability}",
                data={"requiredCapabilities": needed},
            )
