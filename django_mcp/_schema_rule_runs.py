"""Running rules: which values of a type can hold rules, and running them in order.

Rules run one after the other, nested Struct values first; every failure is
collected. Sync rules run through ``run_sync`` (thread-sensitive, so they
may use the ORM); async rules are awaited.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
import msgspec.inspect as mi

from django_mcp._schema_errors import PathMessage, from_msgspec, join_path
from django_mcp._schema_rules import Rule, SchemaMeta
from django_mcp._sync import run_sync
from django_mcp.exceptions import SchemaValidationError

__all__ = ["RuleCall", "calls_for", "has_rules", "run_calls"]


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


def _own_rules(cls: Any) -> tuple[Rule, ...]:
    origin = getattr(cls, "__origin__", cls)  # Page[Item] -> Page
    # Every Schema subclass is built by SchemaMeta: asking the metaclass
    # needs no import of Schema, which runs rules through this module.
    return origin._schema_rules if isinstance(origin, SchemaMeta) else ()


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


def has_rules(tp: Any) -> bool:
    """Return True when a value of type ``tp`` can contain a ``@rule`` to run.

    A type without rules is validated by ``msgspec.convert`` alone, so a
    caller can skip ``validate()`` for it (what the dispatcher does for
    tool arguments; see ``schema_error``).
    """
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _reaches_rules(tp)
    try:
        return _has_rules_cached(tp)
    except TypeError:  # unhashable type expression
        return _type_reaches_rules(mi.type_info(tp))


@functools.lru_cache(maxsize=256)
def _has_rules_cached(tp: Any) -> bool:
    return _type_reaches_rules(mi.type_info(tp))


RuleCall = tuple[str, Callable[[Any], Any], Any, bool]


def calls_for(value: Any, path: str) -> list[RuleCall]:
    """List ``(path, function, instance, is_async)`` for every rule to run."""
    calls: list[RuleCall] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, msgspec.Struct):
            plan = _plan(type(value))
            for attr, name in plan.nested:
                walk(getattr(value, attr), join_path(path, name))
            for where, func, is_async in plan.rules:
                calls.append((join_path(path, where), func, value, is_async))
        elif isinstance(value, list | tuple | set | frozenset):
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]")
        elif isinstance(value, Mapping):
            for key, item in value.items():
                walk(item, f"{path}[{json.dumps(str(key))}]")

    walk(value, path)
    return calls


def _failure(path: str, exc: ValueError) -> list[PathMessage]:
    """Turn what a rule raised into errors under ``path``."""
    if isinstance(exc, SchemaValidationError):
        return [(join_path(path, p), m) for p, m in exc.errors]
    if isinstance(exc, msgspec.ValidationError):
        p, m = from_msgspec(exc)
        return [(join_path(path, p), m)]
    return [(path, str(exc) or "invalid value")]


def _run_sync(calls: list[RuleCall]) -> list[PathMessage]:
    errors: list[PathMessage] = []
    for path, func, instance, _ in calls:
        try:
            func(instance)
        except ValueError as exc:
            errors.extend(_failure(path, exc))
    return errors


async def run_calls(calls: list[RuleCall]) -> list[PathMessage]:
    """Run rules in order; consecutive sync rules share one thread hop."""
    errors: list[PathMessage] = []
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
