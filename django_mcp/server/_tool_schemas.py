"""Build and check the JSON Schemas a tool publishes.

Input schemas come from a ``Schema`` subclass (generated, root inlined) or a
raw JSON Schema dict passed through untouched; either way the root must be
an object. Output schemas may be any msgspec-compatible type or raw dict.
``x-mcp-header`` annotations are checked here, at startup, because clients
silently drop a tool whose annotations are invalid.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec
from django.core.exceptions import ImproperlyConfigured

from django_mcp.protocol._base import UNSET
from django_mcp.protocol.definitions import ToolDefinition
from django_mcp.schemas import Schema, json_schema_for

__all__ = ["header_params", "input_schema", "legacy_definition", "output_schema"]


def input_schema(input_type: Any, label: str) -> dict[str, Any]:
    """Return the ``inputSchema`` a tool publishes, or raise ``ImproperlyConfigured``."""
    if input_type is None:
        return {"type": "object", "additionalProperties": False}
    if isinstance(input_type, dict):
        if input_type.get("type") != "object":
            raise ImproperlyConfigured(f'{label}.input: a raw input schema must have "type": "object"')
        _check_header_annotations(input_type, label)
        return input_type
    if not (isinstance(input_type, type) and issubclass(input_type, Schema)):
        raise ImproperlyConfigured(
            f"{label}.input must be a Schema subclass or a JSON Schema dict, got {input_type!r}"
        )
    try:
        schema = input_type.json_schema()
    except Exception as exc:  # msgspec raises TypeError/ValueError for bad types
        raise ImproperlyConfigured(f"{label}.input: cannot build a JSON Schema: {exc}") from None
    if schema.get("type") != "object":
        raise ImproperlyConfigured(f"{label}.input: the input schema root must be an object")
    _check_header_annotations(schema, label)
    return schema


# RFC 9110 token characters: what an HTTP header name may contain.
_TOKEN_RE = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_HEADER_TYPES = frozenset({"string", "integer", "boolean"})


def _check_header_annotations(schema: Mapping[str, Any], label: str) -> None:
    """Refuse ``x-mcp-header`` annotations clients would reject.

    MCP 2026-07-28 server/tools (SEP-2243): a client drops the whole tool when
    an annotation is invalid, so catch it at startup instead. Names must be
    RFC 9110 tokens, unique case-insensitively, on string/integer/boolean
    properties reachable from the root through ``properties`` only.
    """
    seen: set[str] = set()
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for prop, sub in properties.items():
            if not isinstance(sub, Mapping) or "x-mcp-header" not in sub:
                continue
            name = sub["x-mcp-header"]
            where = f"{label}.input property {prop!r}"
            if not isinstance(name, str) or not _TOKEN_RE.match(name):
                raise ImproperlyConfigured(f"{where}: x-mcp-header {name!r} is not a valid header name token")
            if name.lower() in seen:
                raise ImproperlyConfigured(
                    f"{where}: x-mcp-header {name!r} is used twice (case-insensitively)"
                )
            seen.add(name.lower())
            if sub.get("type") not in _HEADER_TYPES:
                raise ImproperlyConfigured(
                    f"{where}: x-mcp-header is allowed only on string, integer or boolean properties"
                )
    for key, value in schema.items():
        if key != "properties" and _contains_header(value):
            raise ImproperlyConfigured(
                f"{label}.input: x-mcp-header is allowed only on top-level properties, not under {key!r}"
            )
    if isinstance(properties, Mapping):
        for prop, sub in properties.items():
            if isinstance(sub, Mapping) and any(
                _contains_header(v) for k, v in sub.items() if k != "x-mcp-header"
            ):
                raise ImproperlyConfigured(
                    f"{label}.input property {prop!r}: x-mcp-header is allowed only on top-level properties"
                )


def _contains_header(value: Any) -> bool:
    if isinstance(value, Mapping):
        return "x-mcp-header" in value or any(_contains_header(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_header(v) for v in value)
    return False


def header_params(schema: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Return ``{lowercase header name: (property, JSON type)}`` for ``x-mcp-header`` properties.

    A 2026-07-28 client mirrors each such argument in an ``Mcp-Param-<Name>``
    header (MCP 2026-07-28 basic/transports/streamable-http, SEP-2243).
    """
    properties = schema.get("properties")
    out: dict[str, tuple[str, str]] = {}
    if not isinstance(properties, Mapping):
        return out
    for prop, sub in properties.items():
        if isinstance(sub, Mapping) and isinstance(sub.get("x-mcp-header"), str):
            out[sub["x-mcp-header"].lower()] = (prop, str(sub.get("type", "string")))
    return out


def legacy_definition(definition: ToolDefinition) -> ToolDefinition:
    """Return ``definition`` as a 2025-11-25 client may see it.

    That revision requires an object ``outputSchema``; a tool with another
    output type is published without one (its JSON text block still carries
    the value).
    """
    schema = definition.output_schema
    if schema is UNSET or (isinstance(schema, dict) and schema.get("type") == "object"):
        return definition
    return msgspec.structs.replace(definition, output_schema=UNSET)


def output_schema(output_type: Any, label: str) -> dict[str, Any]:
    """Return the ``outputSchema`` a tool publishes, or raise ``ImproperlyConfigured``."""
    if isinstance(output_type, dict):
        return output_type
    try:
        return json_schema_for(output_type)
    except Exception as exc:  # msgspec raises TypeError/ValueError for bad types
        raise ImproperlyConfigured(f"{label}.output: cannot build a JSON Schema: {exc}") from None
