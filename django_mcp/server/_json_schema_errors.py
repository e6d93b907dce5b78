"""Value-free messages for data that a raw JSON Schema dict refuses.

jsonschema's own messages quote the value that failed
(``'hunter2' is not of type 'integer'``), and a tool argument may be a
secret, so what a client is told is rebuilt from the error's keyword
(``error.validator``), the schema's side of it (``validator_value``) and
the JSON *type* of the value, never the value:

* ``type``: ``expected integer, got string``;
* ``required`` (and ``dependentRequired``): one ``required field is
  missing`` per missing property, on the property's own path;
* ``additionalProperties: false``: one ``unknown field`` per extra
  property, on its own path (property names are shown, values are not);
* bounds, lengths, ``pattern``, ``format``, ``multipleOf``: msgspec's
  wording (``expected number >= 1``, ``expected string of length <= 8``,
  ``expected string matching regex '^[A-Z]'``);
* ``enum`` / ``const``: ``invalid enum value`` / ``invalid value``;
* combinators, ``not``, ``contains``, a ``false`` schema: a short sentence
  (jsonschema 4 reports a ``false`` property schema on the object, not on
  the property); anything else names the keyword
  (``fails the 'x' keyword``).

Paths join the JSON pointer's parts with ``.`` (``items.0.sku``), the root
is ``""``; errors are sorted by path (array indexes numerically, before
keys), duplicates dropped, and at most ``MAX_REPORTED_ERRORS`` kept, as
``compile_validator`` does.

``compile_validator``'s validator keeps jsonschema's own messages, so the
dispatcher validates again here, on the failure path only
(``json_schema_error``); the validator is built the same way (the dialect
``$schema`` names, else 2020-12; an empty registry: no remote ``$ref``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from django_mcp.exceptions import SchemaValidationError
from django_mcp.server._json_schema import MAX_REPORTED_ERRORS

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = ["describe_errors", "json_schema_error"]

_Part = str | int

#: msgspec's comparison words for the numeric and length keywords.
_BOUNDS: Final[Mapping[str, tuple[str, str]]] = {
    "minimum": ("number", ">="),
    "maximum": ("number", "<="),
    "exclusiveMinimum": ("number", ">"),
    "exclusiveMaximum": ("number", "<"),
    "minLength": ("string of length", ">="),
    "maxLength": ("string of length", "<="),
    "minItems": ("array of length", ">="),
    "maxItems": ("array of length", "<="),
    "minProperties": ("object of length", ">="),
    "maxProperties": ("object of length", "<="),
}

#: Keywords whose failure is one fixed sentence.
_SENTENCES: Final[Mapping[str, str]] = {
    "enum": "invalid enum value",
    "const": "invalid value",
    "uniqueItems": "expected array of unique items",
    "anyOf": "does not match any of the allowed schemas",
    "oneOf": "does not match exactly one of the allowed schemas",
    "not": "matches a schema it must not match",
    "contains": "expected array containing a matching item",
    "minContains": "expected array containing more matching items",
    "maxContains": "expected array containing fewer matching items",
    "unevaluatedProperties": "unexpected properties",
    "unevaluatedItems": "unexpected items",
}


def _json_type(value: Any) -> str:
    """Name the JSON type of ``value`` (the value itself is never shown)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _missing(names: Any, instance: Any) -> list[str]:
    """Return the ``names`` (schema side) that object ``instance`` lacks."""
    if not isinstance(instance, dict) or not isinstance(names, list):
        return []
    return [name for name in names if isinstance(name, str) and name not in instance]


def _extra(schema: Any, instance: Any) -> list[str]:
    """Return the properties of ``instance`` that ``schema`` does not declare, sorted."""
    if not isinstance(instance, dict) or not isinstance(schema, dict):
        return []
    declared = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return sorted(
        key
        for key in instance
        if isinstance(key, str) and key not in declared and not any(re.search(p, key) for p in patterns)
    )


def _problems(error: ValidationError) -> Iterator[tuple[tuple[_Part, ...], str]]:
    """Yield ``(path parts, message)`` for one jsonschema error, value-free."""
    where = tuple(error.absolute_path)
    keyword, expected, instance = error.validator, error.validator_value, error.instance
    if keyword == "required":
        for name in _missing(expected, instance):
            yield (*where, name), "required field is missing"
    elif keyword in ("dependentRequired", "dependencies") and isinstance(expected, dict):
        for trigger, needed in expected.items():
            if isinstance(instance, dict) and trigger in instance:
                for name in _missing(needed, instance):
                    yield (*where, name), f"required field is missing (needed with {trigger})"
    elif keyword == "additionalProperties":
        extra = _extra(error.schema, instance)
        for name in extra:
            yield (*where, name), "unknown field"
        if not extra:
            yield where, "unknown field"
    elif keyword == "type":
        types = expected if isinstance(expected, list) else [expected]
        yield where, f"expected {' or '.join(map(str, types))}, got {_json_type(instance)}"
    elif isinstance(keyword, str) and keyword in _BOUNDS:
        what, sign = _BOUNDS[keyword]
        # Draft 4 spells an exclusive bound as a flag beside minimum/maximum.
        flag = {"minimum": "exclusiveMinimum", "maximum": "exclusiveMaximum"}.get(keyword)
        if flag is not None and isinstance(error.schema, dict) and error.schema.get(flag) is True:
            sign = sign.rstrip("=")
        yield where, f"expected {what} {sign} {expected}"
    elif keyword == "items" and expected is False:  # past prefixItems
        declared = error.schema.get("prefixItems", []) if isinstance(error.schema, dict) else []
        yield where, f"expected array of length <= {len(declared)}"
    elif keyword in ("multipleOf", "divisibleBy"):
        yield where, f"expected number that's a multiple of {expected}"
    elif keyword == "pattern":
        yield where, f"expected string matching regex {expected!r}"
    elif keyword == "format":
        yield where, f"expected string in {expected!r} format"
    elif isinstance(keyword, str) and keyword in _SENTENCES:
        yield where, _SENTENCES[keyword]
    elif keyword is None:  # a ``false`` schema (jsonschema drops its path)
        yield where, "no value is allowed here"
    else:
        yield where, f"fails the {keyword!r} keyword"


def _sort_key(parts: tuple[_Part, ...]) -> list[tuple[int, int, str]]:
    # Array indexes sort numerically and before object keys at the same depth,
    # so mixed paths never compare an int with a str.
    return [(0, part, "") if isinstance(part, int) else (1, 0, str(part)) for part in parts]


def describe_errors(errors: Iterable[ValidationError]) -> list[tuple[str, str]]:
    """Return value-free ``(path, message)`` pairs for jsonschema ``errors``.

    Sorted by path, without duplicates, at most ``MAX_REPORTED_ERRORS``.
    """
    found = [problem for error in errors for problem in _problems(error)]
    found.sort(key=lambda problem: _sort_key(problem[0]))
    # A dict keeps the first of equal pairs, in order.
    pairs = dict.fromkeys((".".join(str(part) for part in parts), message) for parts, message in found)
    return list(pairs)[:MAX_REPORTED_ERRORS]


def json_schema_error(schema: Mapping[str, Any], value: Any) -> SchemaValidationError:
    """Return the value-free ``SchemaValidationError`` for ``value`` against ``schema``.

    Call it once the compiled validator has refused ``value``: it validates
    again to read jsonschema's errors rather than their text.
    """
    # An optional extra, imported here: present once the schema compiled.
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for
    from referencing import Registry

    validator_cls = validator_for(schema, default=Draft202012Validator)
    validator = validator_cls(schema, registry=Registry())
    pairs = describe_errors(validator.iter_errors(value))
    # Refused once, so refused again; the fallback only guards that promise.
    return SchemaValidationError(pairs or [("", "does not match the input schema")])
