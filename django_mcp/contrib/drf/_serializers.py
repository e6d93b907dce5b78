"""A DRF serializer's fields as tool arguments and results.

Arguments are the serializer's writable fields (not ``read_only``, not
hidden), typed after the field: choices as an enum, lengths, minimum and
maximum, ``allow_null``, ``required``; label and help text become title
and description. File fields are left out (there is no upload over MCP),
nested serializers accept any JSON value and validate as the serializer
does.

Results are the readable fields of ``serializer.data``, each nullable and
none required; a result may carry more fields than the published schema
when the ViewSet's code adds some for one caller.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from typing import Annotated, Any

import msgspec
from rest_framework import fields as f
from rest_framework import relations, serializers

from django_mcp.contrib._calls import list_of, literal, pk_type

__all__ = ["input_type", "is_secret", "output_type", "readable", "writable"]


def writable(serializer: serializers.BaseSerializer[Any]) -> list[tuple[str, Any]]:
    """Return ``(name, field)`` for the fields a caller may send."""
    fields = getattr(serializer, "fields", {})
    return [
        (name, field)
        for name, field in fields.items()
        if not field.read_only and not isinstance(field, f.HiddenField)
    ]


def readable(serializer: serializers.BaseSerializer[Any]) -> list[tuple[str, Any]]:
    """Return ``(name, field)`` for the fields ``serializer.data`` holds."""
    fields = getattr(serializer, "fields", {})
    return [(name, field) for name, field in fields.items() if not field.write_only]


def is_secret(field: Any, model_secrets: frozenset[str]) -> bool:
    """Return whether a serializer field holds a secret: a password input or a secret model field."""
    if getattr(field, "style", {}).get("input_type") == "password":
        return True
    source = str(getattr(field, "source", "") or getattr(field, "field_name", ""))
    return source.split(".")[0] in model_secrets


def input_type(field: f.Field[Any, Any, Any, Any], *, secret: bool = False) -> Any:
    """Return the argument type of a writable field, or None when it cannot be sent.

    A ``write_only`` or ``secret`` field is ``"writeOnly": true``: its value
    is never shown back, and the audit trail redacts it.
    """
    if isinstance(field, f.FileField):
        return None
    kind = _input_base(field)
    if getattr(field, "allow_null", False) and kind is not Any:
        kind = kind | None
    meta: dict[str, Any] = {}
    if field.label:
        meta["title"] = str(field.label)
    if field.help_text:
        meta["description"] = " ".join(str(field.help_text).split())
    if secret or field.write_only:
        meta["extra_json_schema"] = {"writeOnly": True}
    return Annotated[kind, msgspec.Meta(**meta)] if meta else kind


def _constrained(base: Any, **constraints: Any) -> Any:
    constraints = {key: value for key, value in constraints.items() if value is not None}
    return Annotated[base, msgspec.Meta(**constraints)] if constraints else base


def _input_base(field: Any) -> Any:
    if isinstance(field, relations.ManyRelatedField):
        return list_of(_related(field.child_relation))
    if isinstance(field, relations.RelatedField):
        return _related(field)
    if isinstance(field, serializers.ListSerializer):
        return list[Any]
    if isinstance(field, serializers.BaseSerializer):
        return Any
    if isinstance(field, f.BooleanField):
        return bool
    if isinstance(field, f.MultipleChoiceField):
        return list_of(_choices(field))
    if isinstance(field, f.ChoiceField):
        return _choices(field)
    if isinstance(field, f.DecimalField):
        return decimal.Decimal
    if isinstance(field, f.FloatField):
        return _constrained(float, ge=field.min_value, le=field.max_value)
    if isinstance(field, f.IntegerField):
        return _constrained(int, ge=field.min_value, le=field.max_value)
    if isinstance(field, f.DateTimeField):
        return datetime.datetime
    if isinstance(field, f.DateField):
        return datetime.date
    if isinstance(field, f.TimeField):
        return datetime.time
    if isinstance(field, f.UUIDField):
        return uuid.UUID
    if isinstance(field, f.ListField):
        child = getattr(field, "child", None)
        item = Any if child is None else _input_base(child)
        return _constrained(list_of(item), min_length=field.min_length, max_length=field.max_length)
    if isinstance(field, f.DictField | f.HStoreField):
        return dict[str, Any]
    if isinstance(field, f.JSONField):
        return Any
    if isinstance(field, f.CharField):
        extra = {"format": "email"} if isinstance(field, f.EmailField) else None
        return _constrained(
            str,
            max_length=field.max_length,
            min_length=field.min_length or (None if field.allow_blank else 1),
            extra_json_schema=extra,
        )
    return Any


def _related(field: Any) -> Any:
    if isinstance(field, relations.PrimaryKeyRelatedField):
        queryset = field.get_queryset() if field.queryset is not None else None
        return pk_type(queryset.model) if queryset is not None else Any
    if isinstance(field, relations.SlugRelatedField | relations.HyperlinkedRelatedField):
        return str
    return Any


def _choices(field: Any) -> Any:
    values = [value for value in field.choices if value not in ("", None)]
    if not values or not all(
        isinstance(value, str | int) and not isinstance(value, bool) for value in values
    ):
        return str
    return literal(values)


def output_type(field: Any) -> Any:
    """Return the result type of a readable field (nullable; Any when unknown)."""
    kind = _output_base(field)
    return kind if kind is Any else kind | None


def _output_base(field: Any) -> Any:
    if isinstance(field, relations.ManyRelatedField):
        return list[Any]
    if isinstance(field, relations.PrimaryKeyRelatedField) and field.queryset is not None:
        return pk_type(field.get_queryset().model)
    if isinstance(field, f.BooleanField):
        return bool
    if isinstance(field, f.IntegerField) and not isinstance(field, f.DecimalField | f.FloatField):
        return int
    if isinstance(field, f.FloatField):
        return float
    if isinstance(field, f.DecimalField):
        return str | float
    for kind, fmt in (
        (f.DateTimeField, "date-time"),
        (f.DateField, "date"),
        (f.TimeField, "time"),
        (f.UUIDField, "uuid"),
    ):
        if isinstance(field, kind):
            return Annotated[str, msgspec.Meta(extra_json_schema={"format": fmt})]
    if type(field) in (f.CharField, f.EmailField, f.URLField, f.SlugField, f.RegexField):
        return str
    return Any
