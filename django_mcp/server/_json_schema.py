"""Validators for tools declared with a raw JSON Schema dict.

A tool whose ``input`` or ``output`` is a plain JSON Schema dict is validated
with python-jsonschema, the ``jsonschema`` extra
(``pip install "django-mcp-toolkit[jsonschema]"``). ``compile_validator``
runs when the server compiles and builds the validator once:

* the dialect is the one ``$schema`` names, Draft 2020-12 when it names none
  (MCP 2026-07-28 server/tools: schemas without ``$schema`` are 2020-12); a
  ``$schema`` jsonschema does not know is refused rather than guessed;
* a schema that breaks its dialect's metaschema is refused;
* remote ``$ref``s are never fetched: the registry is empty, so a reference
  to anything outside the schema fails the call as a server error
  (``referencing.exceptions.Unresolvable``), never as a network request.

Every refusal, and a missing ``jsonschema`` package, is an
``ImproperlyConfigured`` naming the tool, so ``manage.py check`` reports it
(``django_mcp.E015``). The returned callable raises ``SchemaValidationError``
with up to five ``(path, message)`` pairs sorted by path; a path joins its
parts with ``.`` (``items.0.sku``), the root is ``""``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

from django.core.exceptions import ImproperlyConfigured

from django_mcp.exceptions import SchemaValidationError

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = ["INSTALL_HINT", "MAX_REPORTED_ERRORS", "compile_validator"]

MAX_REPORTED_ERRORS: Final = 5
"""Most ``(path, message)`` pairs one ``SchemaValidationError`` carries."""

INSTALL_HINT: Final = 'pip install "django-mcp-toolkit[jsonschema]"'
"""The command that installs what raw JSON Schema validation needs."""


def _import(name: str) -> ModuleType:
    """Return module ``name``; a seam so tests can simulate it missing."""
    return importlib.import_module(name)


def compile_validator(schema: Mapping[str, Any], label: str) -> Callable[[Any], None]:
    """Return a callable that validates a value against ``schema``.

    ``label`` names what the schema belongs to (``myapp.mcp.OrderTool.input``)
    in configuration errors.

    Raises:
        ImproperlyConfigured: ``jsonschema`` is not installed, or the schema
            names an unknown dialect or breaks its metaschema.
    """
    try:
        jsonschema = _import("jsonschema")
        referencing = _import("referencing")
        referencing_jsonschema = _import("referencing.jsonschema")
    except ImportError:
        raise ImproperlyConfigured(
            f"{label} is a raw JSON Schema dict, which needs the jsonschema package: {INSTALL_HINT}"
        ) from None
    dialect = schema.get("$schema")
    if isinstance(dialect, str):
        try:
            referencing_jsonschema.specification_with(dialect)
        except referencing_jsonschema.UnknownDialect:
            raise ImproperlyConfigured(
                f"{label}: $schema {dialect!r} is not a JSON Schema dialect jsonschema knows"
            ) from None
    validator_cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        validator_cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        where = "/".join(str(part) for part in exc.absolute_path)
        raise ImproperlyConfigured(
            f"{label} is not a valid JSON Schema (at '/{where}'): {exc.message}"
        ) from None
    # An empty registry: never fetch remote $refs (MCP 2026-07-28 server/tools).
    validator = validator_cls(schema, registry=referencing.Registry())

    def validate(value: Any) -> None:
        errors: list[ValidationError] = sorted(validator.iter_errors(value), key=_path_key)
        if errors:
            raise SchemaValidationError(
                [
                    (".".join(str(part) for part in error.absolute_path), error.message)
                    for error in errors[:MAX_REPORTED_ERRORS]
                ]
            )

    return validate


def _path_key(error: ValidationError) -> list[tuple[int, int, str]]:
    # Array indexes sort numerically and before object keys at the same depth,
    # so mixed paths never compare an int with a str.
    return [(0, part, "") if isinstance(part, int) else (1, 0, str(part)) for part in error.absolute_path]
