"""Typed tool input/output: msgspec Structs with custom rules and JSON Schema.

A ``Schema`` is a msgspec Struct that users subclass to declare the arguments
or the structured result of a tool. Validation happens in two stages:

1. **Structure**, by msgspec: types, required fields, ``msgspec.Meta``
   constraints, tags, aliases (``msgspec.field(name=...)``, ``rename=``).
   Unknown fields are rejected (``forbid_unknown_fields``). Input is treated
   as JSON: ``"42"`` is not an ``int`` and ``true`` is not an ``int``, while
   ``datetime``, ``date``, ``time``, ``UUID``, ``Decimal`` and ``bytes``
   (base64) fields accept their JSON string forms. Values are checked as the
   JSON they stand for, so Struct instances passed in are re-validated, not
   trusted. msgspec stops at the first structural error; only then, for a
   Struct (or ``Schema``) given a JSON object, each field is checked again
   on its own so that *every* failing field is reported: a missing
   required field, a present value that does not fit its own annotated
   type (same strictness), a wrong tag, each unknown field (when the class
   forbids them). Nested values are not searched further: a failing field
   reports the first error inside it (``items[2].sku: ...``), as msgspec
   finds it. Other types (``list[Item]``, unions, ``array_like`` Structs)
   report msgspec's one error. Valid input costs the one msgspec pass.
2. **Rules**, methods marked with ``@rule``, run only if the structure is
   valid. Every rule runs and *all* failures are reported together. A rule
   fails by raising ``ValueError`` (or ``SchemaValidationError`` for several
   errors or deeper paths). Any other exception is a bug and propagates.
   Sync rules run through ``_sync.run_sync`` (thread-sensitive) so they
   may use the Django ORM; async rules are awaited. Rules run one after the
   other, never concurrently, in a fixed order: rules of nested Struct values
   first (field order, then item order), then the object's own rules in
   definition order, base classes first. Nested values are found through the
   declared field types: Structs, lists, tuples, sets, dict values and unions
   of those, plus type-parameter fields of generic Schemas. Dataclasses,
   TypedDicts and ``Any`` fields are not searched.

Errors are ``SchemaValidationError`` with ``(path, message)`` pairs, in
field declaration order (a wrong tag first, unknown fields last, sorted).
Paths use the JSON (encoded) names in dotted/bracket notation without
msgspec's ``$.`` prefix: ``items[0].sku``; ``""`` is the whole value. Dict
entries found while running rules use JSON-quoted keys: ``prices["eur"]``.
Messages are msgspec's with backticks removed and a lowercase first letter
(``order_id: expected int, got str``), plus ``required field is missing``,
``unknown field`` and ``invalid JSON: ...``. They never quote the value
that failed (it may be a secret): msgspec's ``Invalid enum value 'x'`` and
``Invalid value 'x'`` (a tag) become ``invalid enum value`` and
``invalid value``.

JSON Schema output is msgspec's generator (JSON Schema 2020-12) with the root
Struct inlined: ``{"type": "object", "properties": ..., "required": ...,
"additionalProperties": false, "title": ..., "description": <docstring>}``;
other named types live in ``"$defs"`` and are referenced as
``"#/$defs/Name"`` (a recursive root also stays there, under its own name).
``"$schema"`` is never emitted: a Tool schema without it "defaults to JSON
Schema 2020-12" (MCP 2025-11-25 and 2026-07-28, ``Tool.inputSchema``). Every
call returns a fresh dict.

Generic Schemas (``Page[Item]``) work through ``validate`` and
``json_schema_for``; the classmethods only see the unparametrized class.

Subclasses of ``Schema`` are keyword-only (``kw_only=True``) unless they say
otherwise: msgspec does not inherit ``kw_only``, so a metaclass supplies it.

Nothing here reads Django settings.

The code lives in private modules by job: ``_schema`` (``Schema``,
``validate``), ``_errors`` (msgspec's errors as paths and messages),
``_rules`` (declaring rules), ``_rule_runs`` (running them) and
``_json_schema``.
"""

from django_mcp.schemas._errors import schema_error
from django_mcp.schemas._json_schema import DECIMAL_PATTERN, json_schema_for
from django_mcp.schemas._rule_runs import has_rules
from django_mcp.schemas._rules import rule
from django_mcp.schemas._schema import Schema, validate

__all__ = ["DECIMAL_PATTERN", "Schema", "has_rules", "json_schema_for", "rule", "schema_error", "validate"]
