"""Declaring rules: the ``@rule`` decorator and how a ``Schema`` class collects them."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar, overload

import msgspec

__all__ = ["Rule", "SchemaMeta", "collect_rules", "rule"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: Function attribute that marks a ``@rule`` method.
_RULE_MARK: Final = "_django_mcp_rule"


@dataclass(frozen=True, slots=True)
class _RuleMark:
    """What ``@rule`` records on a function."""

    field: str | None


@dataclass(frozen=True, slots=True)
class Rule:
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


def collect_rules(cls: type) -> tuple[Rule, ...]:
    """Return the rules visible on ``cls``, base classes first.

    A name keeps the position where it first appeared; redefining it in a
    subclass replaces the rule, and redefining it without ``@rule`` removes
    it, exactly as attribute lookup would.
    """
    found: dict[str, Rule] = {}
    for klass in reversed(cls.__mro__):
        for name, attr in vars(klass).items():
            mark = getattr(attr, _RULE_MARK, None) if inspect.isfunction(attr) else None
            if isinstance(mark, _RuleMark):
                is_async = inspect.iscoroutinefunction(attr)
                found[name] = Rule(name, attr, mark.field, is_async)
            elif name in found:
                del found[name]
    return tuple(found.values())


class SchemaMeta(msgspec.StructMeta):
    """Make ``kw_only=True`` the default and check rule fields."""

    #: The rules of each class it builds, collected by ``Schema.__init_subclass__``.
    _schema_rules: tuple[Rule, ...]

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
