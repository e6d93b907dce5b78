"""``Schema``, the base class of tool arguments and results, and ``validate()``."""

from __future__ import annotations

import functools
from typing import Any, ClassVar, Self, TypeVar, dataclass_transform

import msgspec

from django_mcp.exceptions import SchemaValidationError
from django_mcp.schemas._errors import clean_message, from_msgspec, structure_errors
from django_mcp.schemas._json_schema import json_schema_for
from django_mcp.schemas._rule_runs import calls_for, has_rules, run_calls
from django_mcp.schemas._rules import Rule, SchemaMeta, collect_rules

__all__ = ["Schema", "validate"]

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
