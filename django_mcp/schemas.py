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

``Schema`` and ``validate()`` live here; the rest is in private modules
by job: ``_schema_errors`` (msgspec's errors as paths and messages),
``_schema_rules`` (declaring rules), ``_schema_rule_runs`` (running them)
and ``_schema_json`` (JSON Schema output).
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar, Self, TypeVar, dataclass_transform

import msgspec

from django_mcp._schema_errors import clean_message, from_msgspec, schema_error, structure_errors
from django_mcp._schema_json import DECIMAL_PATTERN, json_schema_for
from django_mcp._schema_rule_runs import calls_for, has_rules, run_calls
from django_mcp._schema_rules import Rule, SchemaMeta, collect_rules, rule
from django_mcp.exceptions import SchemaValidationError

__all__ = ["DECIMAL_PATTERN", "Schema", "has_rules", "json_schema_for", "rule", "schema_error", "validate"]

_T = TypeVar("_T")


@dataclass_transform(field_specifiers=(msgspec.field,), kw_only_default=True)
class Schema(
    msgspec.Struct,
    metaclass=SchemaMeta,
    forbid_unknown_fields=True,
    kw_only=True,
):
    """Base class for tool arguments and structured results.

    Subclass it with msgspec-typed fields, constraints via
    ``Annotated[int, msgspec.Meta(ge=1)]`` and ``@rule`` methods. Fields are
    keyword-only and unknown fields are rejected. The class docstring becomes
    the JSON Schema ``description``.
    """

    _schema_rules: ClassVar[tuple[Rule, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Collect the class's rules, inherited ones first."""
        super().__init_subclass__(**kwargs)
        # Collected once per class so run_rules does no attribute scanning.
        cls._schema_rules = collect_rules(cls)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """Return this class's JSON Schema 2020-12 (a fresh dict each call)."""
        return json_schema_for(cls)

    @classmethod
    def decode_json(cls, raw: bytes | str) -> Self:
        """Parse and structurally validate a JSON document; rules do not run.

        Raises:
            SchemaValidationError: the JSON is malformed or does not fit.
        """
        try:
            result: Self = _decoder(cls).decode(raw)
        except msgspec.ValidationError as exc:  # before DecodeError: a subclass
            try:
                # Typed decoding stopped at the first error; every field's
                # is found in the plain document (if the rest is JSON).
                value = msgspec.json.decode(raw)
            except msgspec.DecodeError:
                raise SchemaValidationError([from_msgspec(exc)]) from exc
            raise SchemaValidationError(structure_errors(exc, cls, value)) from exc
        except msgspec.DecodeError as exc:
            error = ("", f"invalid JSON: {clean_message(str(exc))}")
            raise SchemaValidationError([error]) from exc
        return result

    @classmethod
    def convert(cls, value: Any) -> Self:
        """Structurally validate a decoded JSON value; rules do not run.

        Raises:
            SchemaValidationError: the value does not fit.
        """
        result: Self = _convert(value, cls)
        return result

    async def run_rules(self) -> None:
        """Run every rule of this value and of nested Struct values.

        Raises:
            SchemaValidationError: with every rule failure, in run order.
        """
        errors = await run_calls(calls_for(self, ""))
        if errors:
            raise SchemaValidationError(errors)


@functools.lru_cache(maxsize=256)
def _decoder(tp: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(tp, strict=True)


def _convert(value: Any, tp: Any) -> Any:
    """Validate ``value`` as the JSON it stands for, as type ``tp``."""
    try:
        # msgspec.convert trusts Struct instances (and datetimes, ...) as
        # they are; going through builtins checks what a client would see.
        plain = msgspec.to_builtins(value)
    except TypeError as exc:
        raise SchemaValidationError([("", clean_message(str(exc)))]) from exc
    try:
        # strict=True: no "42" -> 42 coercion, but str -> datetime/UUID/
        # Decimal/bytes still works because JSON has no such types.
        return msgspec.convert(plain, tp, strict=True)
    except msgspec.ValidationError as exc:
        raise SchemaValidationError(structure_errors(exc, tp, plain)) from exc


async def validate(tp: type[_T], value: Any) -> _T:
    """Validate a decoded JSON value as ``tp``, then run all its rules.

    ``tp`` is a ``Schema`` subclass or any msgspec-compatible type
    (``list[Item]``, ``dict[str, int]``, ...); rules of every nested
    ``Schema`` run.

    Raises:
        SchemaValidationError: the structure is invalid (every failing
            top-level field of a Struct, else msgspec's one error), or
            rules failed (every failure).
    """
    result: _T = _convert(value, tp)
    if has_rules(tp):
        errors = await run_calls(calls_for(result, ""))
        if errors:
            raise SchemaValidationError(errors)
    return result
