"""Plan how to call a component method: its kind and where each argument comes from.

A handler may be sync or async, a plain function or a generator. Each
parameter after ``self`` is filled by name or annotation: one annotated
``McpRequest`` receives the request context; for tools, one other
parameter receives the validated payload; for resources and prompts,
parameters named like a template variable or a prompt argument receive that
value. ``*args``/``**kwargs`` are refused: payload keys never become
arbitrary keyword arguments.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

from django.core.exceptions import ImproperlyConfigured

from django_mcp.request import McpRequest

__all__ = ["Handler", "HandlerKind", "plan_completer", "plan_handler"]

HandlerKind = Literal["async", "sync", "asyncgen", "syncgen"]
"""How a handler is called: a coroutine, a plain function, or a (async) generator."""


@dataclasses.dataclass(frozen=True, slots=True)
class Handler:
    """How to call a component method: its kind and where each argument comes from.

    ``sources`` maps parameter name to ``"request"``, ``"payload"`` or
    ``"value"`` (a template variable / prompt argument of that name).
    ``payload_only`` names the parameter when the payload is all the method
    takes (the usual tool): it is then called with that one argument.
    """

    name: str
    kind: HandlerKind
    sources: Mapping[str, str]
    defaults: Mapping[str, Any]
    payload_only: str | None = None


def plan_handler(
    component: type[Any],
    method: str,
    label: str,
    *,
    allowed: tuple[str, ...] = (),
    values: tuple[str, ...] = (),
) -> Handler:
    """Return how to call ``component.<method>``, or raise ``ImproperlyConfigured``.

    ``allowed=("payload",)`` lets one parameter take a tool's payload;
    ``values`` names what may be injected by parameter name (template
    variables, prompt arguments, or ``argument``/``value`` for completion).
    """
    func = inspect.getattr_static(component, method, None)
    if func is None:
        raise ImproperlyConfigured(f"{label} must define {method}()")
    if isinstance(func, staticmethod | classmethod):
        raise ImproperlyConfigured(f"{label}.{method}() must be a regular method taking self")
    if not callable(func):
        raise ImproperlyConfigured(f"{label}.{method} must be a method")
    if inspect.isasyncgenfunction(func):
        kind: HandlerKind = "asyncgen"
    elif inspect.iscoroutinefunction(func):
        kind = "async"
    elif inspect.isgeneratorfunction(func):
        kind = "syncgen"
    else:
        kind = "sync"
    try:
        hints = typing.get_type_hints(func)
    except Exception:  # unresolved forward references: fall back to names
        hints = {}
    parameters = list(inspect.signature(func).parameters.values())[1:]
    sources: dict[str, str] = {}
    defaults: dict[str, Any] = {}
    for parameter in parameters:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise ImproperlyConfigured(
                f"{label}.{method}() may not take *args/**kwargs: arguments are never spread"
            )
        annotation = hints.get(parameter.name, parameter.annotation)
        if annotation is McpRequest or annotation == "McpRequest":
            sources[parameter.name] = "request"
        elif parameter.name in values:
            sources[parameter.name] = "value"
        elif "payload" in allowed and "payload" not in sources.values():
            sources[parameter.name] = "payload"
        elif parameter.default is not parameter.empty:
            continue
        else:
            raise ImproperlyConfigured(
                f"{label}.{method}() parameter {parameter.name!r} cannot be supplied: "
                + _explain(allowed, values)
            )
        if parameter.default is not parameter.empty:
            defaults[parameter.name] = parameter.default
    only = next(iter(sources), None) if list(sources.values()) == ["payload"] else None
    return Handler(
        name=method,
        kind=kind,
        sources=MappingProxyType(sources),
        defaults=MappingProxyType(defaults),
        payload_only=only,
    )


def _explain(allowed: tuple[str, ...], values: tuple[str, ...]) -> str:
    if "payload" in allowed:
        return "a tool takes one payload parameter and/or an McpRequest parameter"
    if values:
        return f"expected one of {', '.join(values)} or an McpRequest parameter"
    return "only an McpRequest parameter can be injected here"


def plan_completer(component: type[Any], label: str) -> Handler | None:
    """Return the plan of ``complete()``, or None when the component has none."""
    if inspect.getattr_static(component, "complete", None) is None:
        return None
    return plan_handler(component, "complete", label, values=("argument", "value"))
