"""Build the input requests of a multi round-trip request.

A ``tools/call``, ``prompts/get`` or ``resources/read`` handler that needs
something from the client returns ``input_required({...}, state=...)``.
The client fulfils each request and retries; the handler then finds the
answers in ``request.input_responses[key]`` (plain JSON objects:
``{"action": "accept", "content": {...}}`` for elicitation, a
``CreateMessageResult`` for sampling, ``{"roots": [...]}`` for roots) and
its own state, verified, in ``request.request_state``.

Only request kinds the client declared are allowed (else -32021). Never ask
for passwords, API keys or payment data with a form: use ``elicit_url``.
For 2025-11-25 clients the same handler works: the requests are sent as
real server-to-client requests and the handler is called again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django_mcp.protocol._base import UNSET
from django_mcp.protocol.results import InputRequest, InputRequiredResult

__all__ = ["elicit", "elicit_url", "input_required", "list_roots", "sample"]


def elicit(message: str, schema: Mapping[str, Any] | type[Any]) -> InputRequest:
    """Ask the user to fill a flat form described by ``schema``.

    ``schema`` is a JSON Schema object with primitive properties, or a
    ``Schema`` subclass whose JSON Schema is used.
    """
    if not isinstance(message, str) or not message:
        raise ValueError(f"elicit() needs a non-empty message, got {message!r}")
    if isinstance(schema, type) and hasattr(schema, "json_schema"):
        requested = schema.json_schema()
        requested.pop("additionalProperties", None)
        requested.pop("title", None)
        requested.pop("description", None)
        properties = requested.get("properties")
        if isinstance(properties, Mapping):
            requested["properties"] = {name: _with_enum_type(value) for name, value in properties.items()}
    elif isinstance(schema, Mapping):
        requested = dict(schema)
    else:
        raise TypeError(f"elicit() schema must be a dict or a Schema subclass, got {schema!r}")
    if requested.get("type") != "object" or not isinstance(requested.get("properties"), Mapping):
        raise ValueError("elicit() schema must be an object schema with properties")
    return InputRequest(
        method="elicitation/create", params={"message": message, "requestedSchema": requested}
    )


def _with_enum_type(prop: Any) -> Any:
    """Return ``prop`` with ``"type": "string"`` when it is a bare enum of strings.

    msgspec writes a ``Literal`` of strings as ``{"enum": [...]}``; an
    elicitation form's enum property also needs its type (2026-07-28,
    ``UntitledSingleSelectEnumSchema``), or the request is invalid.
    """
    if not isinstance(prop, Mapping) or "type" in prop or not isinstance(prop.get("enum"), list):
        return prop
    if not prop["enum"] or not all(isinstance(value, str) for value in prop["enum"]):
        return prop
    return {"type": "string", **prop}


def elicit_url(message: str, url: str) -> InputRequest:
    """Ask the user to open ``url`` (for secrets, payments, third-party auth)."""
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        raise ValueError(f"elicit_url() needs an http(s) URL, got {url!r}")
    return InputRequest(method="elicitation/create", params={"mode": "url", "message": message, "url": url})


def sample(
    messages: str | Sequence[Mapping[str, Any]],
    *,
    max_tokens: int,
    system_prompt: str | None = None,
    temperature: float | None = None,
    model_preferences: Mapping[str, Any] | None = None,
) -> InputRequest:
    """Ask the client's model for a completion (sampling is deprecated in MCP)."""
    if isinstance(messages, str):
        messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
    if type(max_tokens) is not int or max_tokens <= 0:
        raise ValueError(f"sample() max_tokens must be a positive int, got {max_tokens!r}")
    params: dict[str, Any] = {"messages": list(messages), "maxTokens": max_tokens}
    if system_prompt is not None:
        params["systemPrompt"] = system_prompt
    if temperature is not None:
        params["temperature"] = temperature
    if model_preferences is not None:
        params["modelPreferences"] = dict(model_preferences)
    return InputRequest(method="sampling/createMessage", params=params)


def list_roots() -> InputRequest:
    """Ask the client for its roots (deprecated in MCP, still specified)."""
    return InputRequest(method="roots/list")


def input_required(
    requests: Mapping[str, InputRequest] | None = None, *, state: Any = UNSET
) -> InputRequiredResult:
    """Return the result that asks the client for input, then a retry."""
    if not requests and state is UNSET:
        raise ValueError("input_required() needs input requests or a state")
    return InputRequiredResult(
        input_requests=dict(requests) if requests else UNSET,
        request_state=state,
    )
