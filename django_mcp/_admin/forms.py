"""Playground forms: JSON Schema properties in, HTML fields out, JSON back.

``schema_fields()`` describes one field per property of an object schema
(a tool's ``inputSchema``, an elicitation's ``requestedSchema``):

* ``string`` is a text input (``format`` ``date``, ``email`` and ``uri``
  pick the matching input type); ``integer`` and ``number`` are number
  inputs; ``boolean`` is a yes/no/unset choice (a checkbox in elicitation
  forms, which always answer every field);
* ``enum``, and ``oneOf``/``anyOf`` lists of ``const`` (with ``title``
  labels, or ``enumNames``), are a select; an array of those a multiple
  select; an array of scalars one item per line;
* a nullable union (``anyOf: [X, {"type": "null"}]``) is treated as X; a
  local ``$ref`` (``#/$defs/...``) is followed;
* anything else (objects, nested arrays, mixed unions) is a JSON text area.

``parse_fields()`` reads the posted values back into JSON. It does not
validate against the schema: an empty field is left out, and a value that
does not convert (letters in a number field) is sent as the string typed,
so the server's validation answers exactly as it would answer a client.
Only a JSON text area that does not parse is refused here, because there
is no JSON value to send. ``string_fields()`` builds the plain text fields
of prompt arguments and template variables.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Protocol

__all__ = ["FormField", "PostedData", "parse_fields", "schema_fields", "string_fields"]

_SCALARS: Final = frozenset({"string", "integer", "number", "boolean"})
_INPUT_TYPES: Final[Mapping[str, str]] = {"date": "date", "email": "email", "uri": "url"}
_INTEGER_RE: Final = re.compile(r"^[+-]?[0-9]+$")


class PostedData(Protocol):
    """What ``parse_fields`` reads: a ``QueryDict`` or anything like it."""

    def get(self, key: str, default: Any = ...) -> Any:
        """Return the last value posted for ``key``."""

    def getlist(self, key: str) -> list[Any]:
        """Return every value posted for ``key``."""


@dataclasses.dataclass(frozen=True, slots=True)
class FormField:
    """One input of a playground form, with its current value."""

    name: str
    #: The HTML ``name`` (and, with ``-`` for ``.``, the ``id``).
    html_name: str
    #: text, number, integer, boolean, checkbox, select, multiselect, lines or json.
    widget: str
    label: str
    required: bool = False
    description: str = ""
    #: What the schema asks for, for people: "integer", "array of string".
    type_label: str = ""
    #: ``(posted value, label)`` of a select; posted values are JSON.
    choices: tuple[tuple[str, str], ...] = ()
    #: The HTML input type of a text field.
    input_type: str = "text"
    #: For ``lines``: the JSON type of each item.
    item_type: str = "string"
    value: str = ""
    selected: tuple[str, ...] = ()
    checked: bool = False
    placeholder: str = ""
    #: True when the server suggests values (``completion/complete``).
    completes: bool = False
    #: Why the posted text could not be read, shown next to the field.
    error: str = ""

    @property
    def html_id(self) -> str:
        """Return an HTML id for the input."""
        return "id_" + re.sub(r"[^A-Za-z0-9_-]", "-", self.html_name)


def schema_fields(
    schema: Mapping[str, Any],
    *,
    prefix: str,
    values: Mapping[str, Any] | None = None,
    checkboxes: bool = False,
) -> list[FormField]:
    """Return one field per property of object ``schema``, filled from ``values``.

    Without ``values``, each field shows its schema ``default``.
    """
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    required = set(schema.get("required") or ())
    fields = []
    for name, raw in properties.items():
        spec = _effective(raw, schema)
        present = values is not None and name in values
        if values is None:
            # A null default means "leave it out": nothing to prefill.
            current = spec["default"] if spec.get("default") is not None else _MISSING
        else:
            current = values[name] if present else _MISSING
        fields.append(
            _field(
                str(name),
                spec,
                schema,
                prefix,
                required=name in required,
                current=current,
                checkboxes=checkboxes,
            )
        )
    return fields


def string_fields(
    arguments: Iterable[tuple[str, str, bool]],
    *,
    prefix: str,
    values: Mapping[str, Any] | None = None,
    completes: bool = False,
) -> list[FormField]:
    """Return text fields for ``(name, description, required)`` arguments."""
    return [
        FormField(
            name=name,
            html_name=prefix + name,
            widget="text",
            label=name,
            required=required,
            description=description,
            type_label="string",
            value=str((values or {}).get(name, "")),
            completes=completes,
        )
        for name, description, required in arguments
    ]


def parse_fields(fields: Sequence[FormField], data: PostedData) -> tuple[dict[str, Any], dict[str, str]]:
    """Return ``(values, errors)`` read from ``data`` for ``fields``.

    Empty fields are left out of ``values``; ``errors`` maps a field name
    to why its text could not be read (only JSON text areas fail).
    """
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for field in fields:
        if field.widget == "checkbox":
            values[field.name] = data.get(field.html_name) is not None
            continue
        if field.widget == "multiselect":
            chosen = [_loads(item) for item in data.getlist(field.html_name) if item != ""]
            if chosen or field.required:
                values[field.name] = chosen
            continue
        text = str(data.get(field.html_name, "") or "")
        if field.widget == "text":
            if text != "":
                values[field.name] = text
            continue
        text = text.strip()
        if not text:
            continue
        if field.widget == "json":
            try:
                values[field.name] = json.loads(text)
            except ValueError as exc:
                errors[field.name] = f"Not valid JSON: {exc}"
        elif field.widget == "lines":
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            values[field.name] = [_scalar(line, field.item_type) for line in lines]
        elif field.widget == "select":
            values[field.name] = _loads(text)
        else:
            values[field.name] = _scalar(text, field.widget)
    return values, errors


# ------------------------------------------------------------------ schema

_MISSING: Final[Any] = object()


def _resolve(spec: Any, root: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow local ``$ref`` pointers (a few hops at most)."""
    for _hop in range(8):
        if not isinstance(spec, Mapping):
            return {}
        ref = spec.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return spec
        target: Any = root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            target = target.get(part) if isinstance(target, Mapping) else None
        extra = {key: value for key, value in spec.items() if key != "$ref"}
        spec = {**target, **extra} if isinstance(target, Mapping) else {}
    return spec if isinstance(spec, Mapping) else {}


def _effective(raw: Any, root: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return ``raw`` resolved, with a nullable union reduced to its other member."""
    spec = _resolve(raw, root)
    for union in ("anyOf", "oneOf"):
        members = spec.get(union)
        if not isinstance(members, list):
            continue
        others = [m for m in (_resolve(m, root) for m in members) if m.get("type") != "null"]
        if len(others) == 1 and len(others) < len(members):
            merged = {key: value for key, value in spec.items() if key != union}
            return {**others[0], **merged}
    kind = spec.get("type")
    if isinstance(kind, list):
        others = [k for k in kind if k != "null"]
        if len(others) == 1:
            return {**spec, "type": others[0]}
    return spec


def _choices(spec: Mapping[str, Any], root: Mapping[str, Any]) -> tuple[tuple[str, str], ...] | None:
    """Return the options of an enum-like schema, or None."""
    enum = spec.get("enum")
    if isinstance(enum, list) and enum:
        names = spec.get("enumNames")
        labels = names if isinstance(names, list) and len(names) == len(enum) else [None] * len(enum)
        return tuple(
            (_dumps(value), str(label if label is not None else _show(value)))
            for value, label in zip(enum, labels, strict=True)
        )
    for union in ("oneOf", "anyOf"):
        members = spec.get(union)
        if isinstance(members, list) and members:
            resolved = [_resolve(m, root) for m in members]
            if all("const" in m for m in resolved):
                return tuple((_dumps(m["const"]), str(m.get("title") or _show(m["const"]))) for m in resolved)
    if "const" in spec:
        return ((_dumps(spec["const"]), str(spec.get("title") or _show(spec["const"]))),)
    return None


def _field(
    name: str,
    spec: Mapping[str, Any],
    root: Mapping[str, Any],
    prefix: str,
    *,
    required: bool,
    current: Any,
    checkboxes: bool,
) -> FormField:
    label = str(spec.get("title") or name)
    description = str(spec.get("description") or "")
    examples = spec.get("examples")
    placeholder = _show(examples[0]) if isinstance(examples, list) and examples else ""
    base = FormField(
        name=name,
        html_name=prefix + name,
        widget="json",
        label=label,
        required=required,
        description=description,
        placeholder=placeholder,
    )
    present = current is not _MISSING
    choices = _choices(spec, root)
    if choices is not None:
        return dataclasses.replace(
            base,
            widget="select",
            type_label="one of",
            choices=(("", "---------"), *choices),
            value=_dumps(current) if present else "",
        )
    kind = spec.get("type")
    if kind == "boolean":
        if checkboxes:
            return dataclasses.replace(
                base,
                widget="checkbox",
                type_label="boolean",
                checked=current is True,
            )
        value = ("true" if current else "false") if isinstance(current, bool) else ""
        return dataclasses.replace(
            base,
            widget="boolean",
            type_label="boolean",
            choices=(("", "---------"), ("true", "true"), ("false", "false")),
            value=value,
        )
    if kind in ("string", "integer", "number"):
        return dataclasses.replace(
            base,
            widget="text" if kind == "string" else kind,
            type_label=str(kind) + (f" ({spec['format']})" if isinstance(spec.get("format"), str) else ""),
            input_type=_INPUT_TYPES.get(str(spec.get("format")), "text") if kind == "string" else "number",
            value=_show(current) if present and current is not None else "",
        )
    if kind == "array":
        items = _effective(spec.get("items"), root)
        item_choices = _choices(items, root)
        listed = current if present and isinstance(current, list) else []
        if item_choices is not None:
            return dataclasses.replace(
                base,
                widget="multiselect",
                type_label="any of",
                choices=item_choices,
                selected=tuple(_dumps(item) for item in listed),
            )
        if items.get("type") in _SCALARS:
            return dataclasses.replace(
                base,
                widget="lines",
                type_label=f"array of {items['type']}, one per line",
                item_type=str(items["type"]),
                value="\n".join(_show(item) for item in listed),
            )
    return dataclasses.replace(
        base,
        widget="json",
        type_label="JSON",
        value=json.dumps(current, indent=2, ensure_ascii=False) if present else "",
    )


# ------------------------------------------------------------------ values


def _scalar(text: str, kind: str) -> Any:
    """Return ``text`` as a JSON ``kind``; as the string itself when it is not one."""
    if kind == "integer" and _INTEGER_RE.match(text):
        return int(text)
    if kind in ("integer", "number"):
        try:
            number = float(text) if not _INTEGER_RE.match(text) else int(text)
        except ValueError:
            return text
        return number if math.isfinite(number) else text
    if kind == "boolean":
        return {"true": True, "false": False}.get(text.lower(), text)
    return text


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _show(value: Any) -> str:
    """Return a value as a person types it: strings bare, the rest as JSON."""
    return value if isinstance(value, str) else _dumps(value)
