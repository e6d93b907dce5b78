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
"""

from __future__ import annotations

import functools
import inspect
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Self, TypeVar, dataclass_transform, overload

import msgspec
import msgspec.inspect as mi

from django_mcp._sync import run_sync
from django_mcp.exceptions import SchemaValidationError

__all__ = ["DECIMAL_PATTERN", "Schema", "has_rules", "json_schema_for", "rule", "schema_error", "validate"]

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])

#: Where ``$ref`` points for named types (Structs, enums, ...).
_REF_TEMPLATE: Final = "#/$defs/{name}"

#: Function attribute that marks a ``@rule`` method.
_RULE_MARK: Final = "_django_mcp_rule"

# msgspec appends the location as "- at `$.path`"; non-string keys read
# "- at `key` in `$.path`". Greedy on the message so a quoted user value
# that happens to contain " - at `" cannot move the split.
_LOCATED: Final = re.compile(r"(?P<msg>.*) - at `(?P<path>[^`]*)`(?: in `(?P<container>[^`]*)`)?", re.S)
_MISSING: Final = re.compile(r"Object missing required field `(?P<name>.*)`", re.S)
_UNKNOWN: Final = re.compile(r"Object contains unknown field `(?P<name>.*)`", re.S)
# The only msgspec validation messages that quote the value itself (an enum
# or Literal member, a tag); the value may be a secret, so it is cut off.
_QUOTES_VALUE: Final = re.compile(r"(?P<kind>Invalid (?:enum )?value) (?:'.*'|\".*\"|-?[0-9]+)", re.S)

_Error = tuple[str, str]


# -- errors ---------------------------------------------------------------


def _clean(message: str) -> str:
    """Drop backticks and lowercase the first letter unless it is an acronym."""
    message = message.replace("`", "")
    if message[:1].isupper() and not message[1:2].isupper():
        message = message[0].lower() + message[1:]
    return message


def _json_path(path: str) -> str:
    """Turn msgspec's ``$.items[0].sku`` into ``items[0].sku``."""
    return path.removeprefix("$").removeprefix(".")


def _join(prefix: str, suffix: str) -> str:
    """Append a field name or ``[index]`` to a path."""
    if not prefix or not suffix:
        return prefix or suffix
    if suffix.startswith("["):
        return prefix + suffix
    return f"{prefix}.{suffix}"


def _from_msgspec(exc: msgspec.ValidationError) -> _Error:
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
            message = f"invalid key: {_clean(message)}"
        else:
            path = _json_path(located["path"])
    if missing := _MISSING.fullmatch(message):
        return _join(path, missing["name"]), "required field is missing"
    if unknown := _UNKNOWN.fullmatch(message):
        return _join(path, unknown["name"]), "unknown field"
    return path, _clean(message)


def _under(name: str, exc: msgspec.ValidationError) -> _Error:
    """Translate an error found in the value of field ``name``."""
    path, message = _from_msgspec(exc)
    return _join(name, path), message


def _field_errors(tp: Any, value: Any) -> list[_Error]:
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
    errors: list[_Error] = []
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


def _structure_errors(exc: msgspec.ValidationError, tp: Any, value: Any) -> list[_Error]:
    """Return every structural error of ``value`` as ``tp``; ``exc`` is msgspec's first."""
    return _field_errors(tp, value) or [_from_msgspec(exc)]


# -- rules ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _RuleMark:
    """What ``@rule`` records on a function."""

    field: str | None


@dataclass(frozen=True, slots=True)
class _Rule:
    """A rule collected on a Schema class."""

    name: str
    func: Callable[[Any], Any]
    field: str | None
    is_async: bool


@overload
def rule(func: _F, *, field: str | None = None) -> _F: ...
@overload
def rule(func: None = None, *, field: str | None = None) -> Callable[[_F], _F]: ...
def rule(func: _F | None = None, *, field: str | None = None) -> _F | Callable[[_F], _F]:
    """Mark a ``Schema`` method as a custom validation rule.

    Use as ``@rule`` for a whole-object rule (error path ``""``) or as
    ``@rule(field="quantity")`` to report failures on that field. The method
    takes only ``self``, may be sync or ``async``, and fails by raising
    ``ValueError("message")`` or ``SchemaValidationError``; its return value
    is ignored. ``field`` is the Python attribute name; errors show the
    field's JSON name.
    """
    if field is not None and (not isinstance(field, str) or not field):
        raise TypeError("@rule(field=...) takes a field name")

    def mark(f: _F) -> _F:
        if not inspect.isfunction(f):
            raise TypeError(f"@rule decorates a method, not {type(f).__name__}")
        setattr(f, _RULE_MARK, _RuleMark(field))
        return f

    return mark if func is None else mark(func)


def _collect_rules(cls: type) -> tuple[_Rule, ...]:
    """Return the rules visible on ``cls``, base classes first.

    A name keeps the position where it first appeared; redefining it in a
    subclass replaces the rule, and redefining it without ``@rule`` removes
    it, exactly as attribute lookup would.
    """
    found: dict[str, _Rule] = {}
    for klass in reversed(cls.__mro__):
        for name, attr in vars(klass).items():
            mark = getattr(attr, _RULE_MARK, None) if inspect.isfunction(attr) else None
            if isinstance(mark, _RuleMark):
                is_async = inspect.iscoroutinefunction(attr)
                found[name] = _Rule(name, attr, mark.field, is_async)
            elif name in found:
                del found[name]
    return tuple(found.values())


class _SchemaMeta(msgspec.StructMeta):
    """Make ``kw_only=True`` the default and check rule fields."""

    def __new__(
        mcls,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        /,
        **kwargs: Any,
    ) -> Any:
        # msgspec inherits every Struct option except kw_only.
        kwargs.setdefault("kw_only", True)
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        # __init_subclass__ runs before msgspec knows the fields; check here.
        fields = cls.__struct_fields__
        for r in getattr(cls, "_schema_rules", ()):
            if r.field is not None and r.field not in fields:
                raise TypeError(f"{name}.{r.name}: @rule(field={r.field!r}) names no field of {name}")
        return cls


@dataclass_transform(field_specifiers=(msgspec.field,), kw_only_default=True)
class Schema(
    msgspec.Struct,
    metaclass=_SchemaMeta,
    forbid_unknown_fields=True,
    kw_only=True,
):
    """Base class for tool arguments and structured results.

    Subclass it with msgspec-typed fields, constraints via
    ``Annotated[int, msgspec.Meta(ge=1)]`` and ``@rule`` methods. Fields are
    keyword-only and unknown fields are rejected. The class docstring becomes
    the JSON Schema ``description``.
    """

    _schema_rules: ClassVar[tuple[_Rule, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Collect the class's rules, inherited ones first."""
        super().__init_subclass__(**kwargs)
        # Collected once per class so run_rules does no attribute scanning.
        cls._schema_rules = _collect_rules(cls)

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
                raise SchemaValidationError([_from_msgspec(exc)]) from exc
            raise SchemaValidationError(_structure_errors(exc, cls, value)) from exc
        except msgspec.DecodeError as exc:
            error = ("", f"invalid JSON: {_clean(str(exc))}")
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
        errors = await _run(_calls_for(self, ""))
        if errors:
            raise SchemaValidationError(errors)


@dataclass(frozen=True, slots=True)
class _Plan:
    """How to run the rules of one Struct class."""

    #: ``(path relative to the object, function, is_async)``.
    rules: tuple[tuple[str, Callable[[Any], Any], bool], ...]
    #: ``(attribute, JSON name)`` of fields that may hold values with rules.
    nested: tuple[tuple[str, str], ...]


def _structs_in(t: mi.Type) -> Iterator[type]:
    """Yield the Struct classes a type can hold without entering a Struct."""
    if isinstance(t, mi.StructType):
        yield t.cls
    elif isinstance(t, mi.Metadata):
        yield from _structs_in(t.type)
    elif isinstance(t, mi.CollectionType):
        yield from _structs_in(t.item_type)
    elif isinstance(t, mi.TupleType):
        for item in t.item_types:
            yield from _structs_in(item)
    elif isinstance(t, mi.UnionType):
        for option in t.types:
            yield from _structs_in(option)
    elif isinstance(value_type := getattr(t, "value_type", None), mi.Type):
        # dict, and frozendict on Python 3.15+ (newer msgspec only).
        yield from _structs_in(value_type)


def _own_rules(cls: Any) -> tuple[_Rule, ...]:
    origin = getattr(cls, "__origin__", cls)  # Page[Item] -> Page
    return origin._schema_rules if issubclass(origin, Schema) else ()


def _mentions_any(t: mi.Type) -> bool:
    """Tell whether a type holds ``Any`` (a type parameter) outside Structs."""
    if isinstance(t, mi.AnyType):
        return True
    if isinstance(t, mi.Metadata):
        return _mentions_any(t.type)
    if isinstance(t, mi.CollectionType):
        return _mentions_any(t.item_type)
    if isinstance(t, mi.TupleType):
        return any(_mentions_any(item) for item in t.item_types)
    if isinstance(t, mi.UnionType):
        return any(_mentions_any(option) for option in t.types)
    value_type = getattr(t, "value_type", None)
    return isinstance(value_type, mi.Type) and _mentions_any(value_type)


@functools.lru_cache(maxsize=1024)
def _reaches_rules(cls: type) -> bool:
    """Tell whether a value of Struct ``cls`` can contain any rule."""
    seen: set[type] = set()
    todo = [cls]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if _own_rules(current):
            return True
        info = mi.type_info(current)
        assert isinstance(info, mi.StructType)
        for f in info.fields:
            todo.extend(_structs_in(f.type))
    return False


def _type_reaches_rules(t: mi.Type) -> bool:
    return any(_reaches_rules(c) for c in _structs_in(t))


@functools.lru_cache(maxsize=1024)
def _plan(cls: type) -> _Plan:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    names = {f.name: f.encode_name for f in info.fields}
    rules = tuple(("" if r.field is None else names[r.field], r.func, r.is_async) for r in _own_rules(cls))
    # An instance only knows its generic origin (Page, not Page[Item]), whose
    # parameters read as Any: search those fields by their runtime values.
    generic = bool(getattr(cls, "__parameters__", ()))
    nested = tuple(
        (f.name, f.encode_name)
        for f in info.fields
        if _type_reaches_rules(f.type) or (generic and _mentions_any(f.type))
    )
    return _Plan(rules, nested)


def _has_rules(tp: Any) -> bool:
    """Tell whether a value of type ``tp`` can contain any rule."""
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _reaches_rules(tp)
    try:
        return _has_rules_cached(tp)
    except TypeError:  # unhashable type expression
        return _type_reaches_rules(mi.type_info(tp))


def has_rules(tp: Any) -> bool:
    """Return True when a value of type ``tp`` can contain a ``@rule`` to run.

    A type without rules is validated by ``msgspec.convert`` alone, so a
    caller can skip ``validate()`` for it (what the dispatcher does for
    tool arguments; see ``schema_error``).
    """
    return _has_rules(tp)


def schema_error(exc: msgspec.ValidationError, *, tp: Any = None, value: Any = None) -> SchemaValidationError:
    """Return the ``SchemaValidationError`` for a failed ``msgspec.convert``.

    Without ``tp`` it holds ``exc``'s one error. With the ``tp`` and the
    decoded JSON ``value`` that were converted, it holds every failing
    top-level field of a Struct (see the module docstring); this checks
    the value again, field by field, so call it on the failure path only.
    """
    if tp is None:
        return SchemaValidationError([_from_msgspec(exc)])
    return SchemaValidationError(_structure_errors(exc, tp, value))


@functools.lru_cache(maxsize=256)
def _has_rules_cached(tp: Any) -> bool:
    return _type_reaches_rules(mi.type_info(tp))


_Call = tuple[str, Callable[[Any], Any], Any, bool]


def _calls_for(value: Any, path: str) -> list[_Call]:
    """List ``(path, function, instance, is_async)`` for every rule to run."""
    calls: list[_Call] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, msgspec.Struct):
            plan = _plan(type(value))
            for attr, name in plan.nested:
                walk(getattr(value, attr), _join(path, name))
            for where, func, is_async in plan.rules:
                calls.append((_join(path, where), func, value, is_async))
        elif isinstance(value, list | tuple | set | frozenset):
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]")
        elif isinstance(value, Mapping):
            for key, item in value.items():
                walk(item, f"{path}[{json.dumps(str(key))}]")

    walk(value, path)
    return calls


def _failure(path: str, exc: ValueError) -> list[_Error]:
    """Turn what a rule raised into errors under ``path``."""
    if isinstance(exc, SchemaValidationError):
        return [(_join(path, p), m) for p, m in exc.errors]
    if isinstance(exc, msgspec.ValidationError):
        p, m = _from_msgspec(exc)
        return [(_join(path, p), m)]
    return [(path, str(exc) or "invalid value")]


def _run_sync(calls: list[_Call]) -> list[_Error]:
    errors: list[_Error] = []
    for path, func, instance, _ in calls:
        try:
            func(instance)
        except ValueError as exc:
            errors.extend(_failure(path, exc))
    return errors


async def _run(calls: list[_Call]) -> list[_Error]:
    """Run rules in order; consecutive sync rules share one thread hop."""
    errors: list[_Error] = []
    start = 0
    while start < len(calls):
        path, func, instance, is_async = calls[start]
        if is_async:
            try:
                await func(instance)
            except ValueError as exc:
                errors.extend(_failure(path, exc))
            start += 1
            continue
        end = start
        while end < len(calls) and not calls[end][3]:
            end += 1
        # thread_sensitive: sync rules may use the ORM, which must stay on
        # the thread Django uses for sync code.
        errors.extend(await run_sync(_run_sync, calls[start:end]))
        start = end
    return errors


# -- structure --------------------------------------------------------------


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
        raise SchemaValidationError([("", _clean(str(exc)))]) from exc
    try:
        # strict=True: no "42" -> 42 coercion, but str -> datetime/UUID/
        # Decimal/bytes still works because JSON has no such types.
        return msgspec.convert(plain, tp, strict=True)
    except msgspec.ValidationError as exc:
        raise SchemaValidationError(_structure_errors(exc, tp, plain)) from exc


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
    if _has_rules(tp):
        errors = await _run(_calls_for(result, ""))
        if errors:
            raise SchemaValidationError(errors)
    return result


# -- JSON Schema ------------------------------------------------------------


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
