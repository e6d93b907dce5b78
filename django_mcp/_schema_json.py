"""JSON Schema 2020-12 of msgspec types, with the root Struct inlined."""

from __future__ import annotations

import functools
from typing import Any, Final

import msgspec

__all__ = ["DECIMAL_PATTERN", "json_schema_for"]

#: Where ``$ref`` points for named types (Structs, enums, ...).
_REF_TEMPLATE: Final = "#/$defs/{name}"


def _build_schema(tp: Any) -> dict[str, Any]:
    schema = msgspec.json.schema(tp, ref_template=_REF_TEMPLATE)
    defs: dict[str, Any] = schema.pop("$defs", {})
    ref = schema.get("$ref")
    prefix = _REF_TEMPLATE.format(name="")
    if isinstance(ref, str) and ref.startswith(prefix):
        name = ref.removeprefix(prefix)
        del schema["$ref"]
        # Outer annotations (Annotated[..., Meta(title=...)]) win.
        schema = {**defs[name], **schema}
        if not _refers_to(defs, ref):
            del defs[name]
    schema.pop("$schema", None)  # none means 2020-12 (MCP 2025-11-25+)
    if defs:
        schema["$defs"] = defs
    _spell_decimals(schema)
    return schema


#: What a ``Decimal`` looks like on the wire: msgspec writes it as a string.
DECIMAL_PATTERN: Final = r"^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$"


def _spell_decimals(node: Any) -> None:
    """Replace msgspec's ``"format": "decimal"`` with a pattern, in place.

    ``decimal`` is not a JSON Schema format: clients such as the MCP
    Inspector warn about it. A pattern says the same in standard terms.
    """
    if isinstance(node, dict):
        if node.get("type") == "string" and node.get("format") == "decimal":
            del node["format"]
            node.setdefault("pattern", DECIMAL_PATTERN)
        for value in node.values():
            _spell_decimals(value)
    elif isinstance(node, list):
        for value in node:
            _spell_decimals(value)


def _refers_to(node: Any, ref: str) -> bool:
    if isinstance(node, dict):
        return node.get("$ref") == ref or any(_refers_to(v, ref) for v in node.values())
    if isinstance(node, list):
        return any(_refers_to(v, ref) for v in node)
    return False


@functools.lru_cache(maxsize=256)
def _cached_schema(tp: Any) -> bytes:
    # Kept encoded: decoding gives every caller a fresh copy, faster than
    # copy.deepcopy, and proves the schema is JSON.
    return msgspec.json.encode(_build_schema(tp))


def json_schema_for(tp: Any) -> dict[str, Any]:
    """Return the JSON Schema 2020-12 of any msgspec-compatible type.

    A Struct (or ``Schema``) root is inlined as an object schema; other types
    (``list[int]``, ``dict[str, Item]``) give their plain schema, with named
    types in ``"$defs"``. The result is a fresh dict the caller may mutate.
    """
    try:
        hash(tp)
    except TypeError:
        encoded = msgspec.json.encode(_build_schema(tp))
    else:
        encoded = _cached_schema(tp)
    result: dict[str, Any] = msgspec.json.decode(encoded)
    return result
