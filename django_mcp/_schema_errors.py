"""Validation errors as ``(path, message)`` pairs, translated from msgspec's.

Paths use the JSON names (``items[0].sku``; ``""`` is the whole value) and
messages never quote the value that failed: it may be a secret.
"""

from __future__ import annotations

import re
from typing import Any, Final

import msgspec

from django_mcp.exceptions import SchemaValidationError

__all__ = ["PathMessage", "clean_message", "from_msgspec", "join_path", "schema_error", "structure_errors"]

# msgspec appends the location as "- at `$.path`"; non-string keys read
# "- at `key` in `$.path`". Greedy on the message so a quoted user value
# that happens to contain " - at `" cannot move the split.
_LOCATED: Final = re.compile(r"(?P<msg>.*) - at `(?P<path>[^`]*)`(?: in `(?P<container>[^`]*)`)?", re.S)
_MISSING: Final = re.compile(r"Object missing required field `(?P<name>.*)`", re.S)
_UNKNOWN: Final = re.compile(r"Object contains unknown field `(?P<name>.*)`", re.S)
# The only msgspec validation messages that quote the value itself (an enum
# or Literal member, a tag); the value may be a secret, so it is cut off.
_QUOTES_VALUE: Final = re.compile(r"(?P<kind>Invalid (?:enum )?value) (?:'.*'|\".*\"|-?[0-9]+)", re.S)

#: One error: the JSON path of what failed and why.
PathMessage = tuple[str, str]


def clean_message(message: str) -> str:
    """Drop backticks and lowercase the first letter unless it is an acronym."""
    message = message.replace("`", "")
    if message[:1].isupper() and not message[1:2].isupper():
        message = message[0].lower() + message[1:]
    return message


def _json_path(path: str) -> str:
    """Turn msgspec's ``$.items[0].sku`` into ``items[0].sku``."""
    return path.removeprefix("$").removeprefix(".")


def join_path(prefix: str, suffix: str) -> str:
    """Append a field name or ``[index]`` to a path."""
    if not prefix or not suffix:
        return prefix or suffix
    if suffix.startswith("["):
        return prefix + suffix
    return f"{prefix}.{suffix}"


def from_msgspec(exc: msgspec.ValidationError) -> PathMessage:
    """Translate one msgspec validation message into ``(path, message)``."""
    message, path = str(exc), ""
    if located := _LOCATED.fullmatch(message):
        message = located["msg"]
    if quoted := _QUOTES_VALUE.fullmatch(message):
        message = quoted["kind"]
    if located:
        if located["container"] is not None:
            # A mapping key failed: report it on the mapping itself.
            path = _json_path(located["container"])
            message = f"invalid key: {clean_message(message)}"
        else:
            path = _json_path(located["path"])
    if missing := _MISSING.fullmatch(message):
        return join_path(path, missing["name"]), "required field is missing"
    if unknown := _UNKNOWN.fullmatch(message):
        return join_path(path, unknown["name"]), "unknown field"
    return path, clean_message(message)


def _under(name: str, exc: msgspec.ValidationError) -> PathMessage:
    """Translate an error found in the value of field ``name``."""
    path, message = from_msgspec(exc)
    return join_path(name, path), message


def _field_errors(tp: Any, value: Any) -> list[PathMessage]:
    """Check each field of JSON object ``value`` against Struct ``tp`` alone.

    Only the top level is searched: a field whose value fails reports the
    first error inside it. Returns ``[]`` when ``tp`` is not a Struct read
    from an object (or when every field passes on its own: the failure was
    the whole value's, such as ``__post_init__``).
    """
    cls = getattr(tp, "__origin__", tp)  # Page[Item] -> Page
    if not (isinstance(cls, type) and issubclass(cls, msgspec.Struct)) or not isinstance(value, dict):
        return []
    config = cls.__struct_config__
    if config.array_like or not all(type(key) is str for key in value):
        return []
    errors: list[PathMessage] = []
    known: set[str] = set()
    if config.tag_field is not None:
        known.add(config.tag_field)
        if config.tag_field in value:
            try:
                tag = msgspec.convert(value[config.tag_field], type(config.tag), strict=True)
            except msgspec.ValidationError as exc:
                errors.append(_under(config.tag_field, exc))
            else:
                if tag != config.tag:
                    errors.append((config.tag_field, "invalid value"))
    for field in msgspec.structs.fields(tp):
        name = field.encode_name
        known.add(name)
        if name not in value:
            if field.required:
                errors.append((name, "required field is missing"))
            continue
        try:
            msgspec.convert(value[name], field.type, strict=True)
        except msgspec.ValidationError as exc:
            errors.append(_under(name, exc))
    if config.forbid_unknown_fields:
        errors.extend((key, "unknown field") for key in sorted(value) if key not in known)
    return errors


def structure_errors(exc: msgspec.ValidationError, tp: Any, value: Any) -> list[PathMessage]:
    """Return every structural error of ``value`` as ``tp``; ``exc`` is msgspec's first."""
    return _field_errors(tp, value) or [from_msgspec(exc)]


def schema_error(exc: msgspec.ValidationError, *, tp: Any = None, value: Any = None) -> SchemaValidationError:
    """Return the ``SchemaValidationError`` for a failed ``msgspec.convert``.

    Without ``tp`` it holds ``exc``'s one error. With the ``tp`` and the
    decoded JSON ``value`` that were converted, it holds every failing
    top-level field of a Struct (see the module docstring); this checks
    the value again, field by field, so call it on the failure path only.
    """
    if tp is None:
        return SchemaValidationError([from_msgspec(exc)])
    return SchemaValidationError(structure_errors(exc, tp, value))
