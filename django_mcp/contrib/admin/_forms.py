"""A ModelAdmin's form as tool arguments, and objects as the admin shows them.

Arguments come from the admin's own form (``get_form()``): each form field
becomes a property of the same name, typed after the form field (choices
as an enum, lengths, minimum and maximum, required), its label and help
text as title and description. A field that is not required also accepts
``null`` (empty). File fields are left out: there is no upload over MCP.

The arguments are then written into the form as a browser would post them
(``form_data``), so the form's own widgets and fields parse and validate
them exactly as in the admin; fields left out keep the form's initial
value (the object's, for a change).

Results are the object's values for the change page's model fields
(``get_fields()``: the form's fields and the read-only ones): a foreign
key as the related primary key, a many-to-many field as the list of them,
dates ISO 8601, decimals as strings, files by name.
"""

from __future__ import annotations

import datetime
import decimal
import json
import uuid
from collections.abc import Iterable, Mapping
from typing import Annotated, Any

import msgspec
from django import forms
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.http import QueryDict
from django.utils.translation import gettext

from django_mcp.contrib._calls import json_value, list_of, literal, pk_type

__all__ = ["form_data", "input_type", "model_fields", "output_type", "render", "writes"]

# Django's admin (ModelAdmin.formfield_for_manytomany) adds this to help texts.
_SELECT_MANY = "Hold down “Control”, or “Command” on a Mac, to select more than one."


def writes(field: forms.Field) -> bool:
    """Return whether a caller can send a value for ``field``.

    Not a file (no upload over MCP), not a disabled field (the form keeps
    its initial value whatever is posted, as ``ReadOnlyPasswordHashField``).
    """
    return not (field.disabled or isinstance(field, forms.FileField))


def input_type(field: forms.Field, *, secret: bool = False, nullable: bool = False) -> Any:
    """Return the argument type of a form field a caller can send (``writes``).

    A password input, or a ``secret`` field, is ``"writeOnly": true``: its
    value is never shown back, and the audit trail redacts it. A field
    that is not required, or ``nullable``, also takes ``null`` (empty).
    """
    base = _base_type(field)
    kind = base if field.required and not nullable else base | None
    meta = _meta(field)
    if secret or isinstance(field.widget, forms.PasswordInput):
        meta["extra_json_schema"] = {"writeOnly": True}
    return Annotated[kind, msgspec.Meta(**meta)] if meta else kind


def _meta(field: forms.Field) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if field.label:
        meta["title"] = str(field.label)
    # The admin appends how to pick several options with a mouse: not for a model.
    text = str(field.help_text).replace(gettext(_SELECT_MANY), "")
    if text.strip():
        meta["description"] = " ".join(text.split())
    return meta


def _annotated(base: Any, **meta: Any) -> Any:
    meta = {key: value for key, value in meta.items() if value is not None}
    return Annotated[base, msgspec.Meta(**meta)] if meta else base


def _base_type(field: forms.Field) -> Any:
    if isinstance(field, forms.ModelMultipleChoiceField):
        return _annotated(list_of(_choice_key(field)))
    if isinstance(field, forms.ModelChoiceField):
        return _annotated(_choice_key(field))
    if isinstance(field, forms.MultipleChoiceField):
        return _annotated(list_of(_choices(field)))
    if isinstance(field, forms.ChoiceField):
        return _annotated(_choices(field))
    if isinstance(field, forms.NullBooleanField):
        return bool | None
    if isinstance(field, forms.BooleanField):
        return _annotated(bool)
    if isinstance(field, forms.DecimalField):
        return _annotated(decimal.Decimal)
    if isinstance(field, forms.FloatField):
        return _annotated(float, ge=field.min_value, le=field.max_value)
    if isinstance(field, forms.IntegerField):
        return _annotated(int, ge=field.min_value, le=field.max_value)
    if isinstance(field, forms.SplitDateTimeField | forms.DateTimeField):
        return _annotated(datetime.datetime)
    if isinstance(field, forms.DateField):
        return _annotated(datetime.date)
    if isinstance(field, forms.TimeField):
        return _annotated(datetime.time)
    if isinstance(field, forms.UUIDField):
        return _annotated(uuid.UUID)
    if isinstance(field, forms.JSONField):
        return _annotated(Any)
    if isinstance(field, forms.CharField):
        extra = {"format": "email"} if isinstance(field, forms.EmailField) else None
        return _annotated(
            str,
            max_length=field.max_length,
            min_length=field.min_length or None,
            extra_json_schema=extra,
        )
    return _annotated(Any)


def _choice_key(field: forms.ModelChoiceField[Any]) -> Any:
    queryset: Any = field.queryset
    model = queryset.model
    if field.to_field_name:
        try:
            target = model._meta.get_field(field.to_field_name)
        except FieldDoesNotExist:
            return str
        return int if isinstance(target, models.IntegerField) else str
    return pk_type(model)


def _choices(field: forms.ChoiceField) -> Any:
    values: list[Any] = []
    choices: Any = field.choices
    for value, label in choices:
        if isinstance(label, list | tuple):  # an option group
            values.extend(option for option, _ in label)
        else:
            values.append(value)
    # The blank option ("---------") is a value only where the field may be
    # left empty; None stands for empty too.
    blank = "" in values and not field.required
    values = [value for value in values if value not in ("", None)]
    if blank:
        values.append("")
    if not values or not all(
        isinstance(value, str | int) and not isinstance(value, bool) for value in values
    ):
        return str
    return literal(dict.fromkeys(values))


# ------------------------------------------------------------- form data


def form_data(form: forms.BaseForm, given: Mapping[str, Any]) -> QueryDict:
    """Return the POST data for ``form``: its initial values, then ``given``.

    Each value is written the way the field's widget reads it back
    (checkboxes, several values, split date and time, JSON text).
    """
    data = QueryDict(mutable=True)
    for name, field in form.fields.items():
        if name in given:
            value = given[name]
        else:
            value = form.get_initial_for_field(field, name)
            if not isinstance(field, forms.JSONField):
                value = field.prepare_value(value)
        _write(data, form.add_prefix(name), field, value)
    return data


def _write(data: QueryDict, key: str, field: forms.Field, value: Any) -> None:
    widget: Any = field.widget
    if isinstance(field, forms.JSONField):
        if value is not None:
            data[key] = json.dumps(json_value(value))
        return
    if isinstance(widget, forms.MultiWidget):
        # Split date and time (the admin's DateTimeField widget) and the like.
        parts: Any = value if isinstance(value, list | tuple) else widget.decompress(value)
        names: Any = getattr(widget, "widgets_names", ())
        for suffix, part in zip(names, parts or (), strict=False):
            _write_one(data, key + suffix, part)
        return
    if isinstance(value, list | tuple | set | frozenset):
        data.setlist(key, [_text(item) for item in value])
        return
    _write_one(data, key, value)


def _write_one(data: QueryDict, key: str, value: Any) -> None:
    if value is None:
        return
    data[key] = _text(value)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, models.Model):
        return str(value.pk)
    converted = json_value(value)
    return converted if isinstance(converted, str) else json.dumps(converted)


# --------------------------------------------------------------- results


def model_fields(model: type[models.Model], names: Iterable[Any]) -> list[Any]:
    """Return the model fields among ``names`` (admin ``get_fields()``), in order.

    Names of admin methods or callables (read-only displays) are left out.
    """
    fields = []
    for name in names:
        if not isinstance(name, str):
            continue
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            continue
        if field.concrete or field.many_to_many:
            fields.append(field)
    return fields


def output_type(field: Any) -> Any:
    """Return the result type of a model field's value (always nullable)."""
    if field.many_to_many:
        return list_of(pk_type(field.related_model)) | None
    if field.is_relation:
        return pk_type(field.related_model) | None
    return _scalar_output(field) | None


def _scalar_output(field: models.Field[Any, Any]) -> Any:
    if isinstance(field, models.BooleanField):
        return bool
    if isinstance(field, models.IntegerField | models.AutoField):
        return int
    if isinstance(field, models.FloatField):
        return float
    if isinstance(field, models.JSONField):
        return Any
    for kind, fmt in (
        (models.DateTimeField, "date-time"),
        (models.DateField, "date"),
        (models.TimeField, "time"),
        (models.UUIDField, "uuid"),
    ):
        if isinstance(field, kind):
            return Annotated[str, msgspec.Meta(extra_json_schema={"format": fmt})]
    return str


def render(obj: models.Model, fields: Iterable[Any]) -> dict[str, Any]:
    """Return ``obj`` as a result: ``id`` and the value of each field."""
    result: dict[str, Any] = {"id": json_value(obj.pk)}
    for field in fields:
        if field.many_to_many:
            # .all() reads what prefetch_related() fetched for a list.
            result[field.name] = [json_value(related.pk) for related in getattr(obj, field.name).all()]
        elif field.is_relation:
            result[field.name] = json_value(getattr(obj, field.attname))
        else:
            result[field.name] = json_value(field.value_from_object(obj))
    return result
