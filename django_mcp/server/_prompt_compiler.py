"""Compile a ``Prompt`` declaration: its arguments, handler and completer."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from django_mcp.protocol._base import UNSET
from django_mcp.protocol.definitions import PromptArgumentDefinition, PromptDefinition
from django_mcp.server._compiled import CompiledPrompt
from django_mcp.server._declarations import common_fields, qualname
from django_mcp.server.handlers import plan_completer, plan_handler
from django_mcp.server.primitives import Prompt, PromptArgument

__all__ = ["compile_prompt"]


def compile_prompt(component: type[Prompt]) -> CompiledPrompt:
    """Compile a prompt and its declared arguments."""
    label = qualname(component)
    common = common_fields(component, "Prompt", strict_name=True)
    arguments = component.arguments
    if isinstance(arguments, str) or not all(isinstance(a, PromptArgument) for a in arguments):
        raise ImproperlyConfigured(f"{label}.arguments must be a tuple of PromptArgument")
    arguments = tuple(arguments)
    seen: set[str] = set()
    for argument in arguments:
        if argument.name in seen:
            raise ImproperlyConfigured(f"{label}: duplicate prompt argument {argument.name!r}")
        seen.add(argument.name)
    handler = plan_handler(component, "handle", label, values=tuple(a.name for a in arguments))
    definition = PromptDefinition(
        name=common["name"],
        title=common["title"],
        description=common["description"],
        arguments=tuple(
            PromptArgumentDefinition(
                name=a.name,
                title=UNSET if a.title is None else a.title,
                description=UNSET if a.description is None else a.description,
                required=a.required,
            )
            for a in arguments
        )
        or UNSET,
        icons=common["icons"],
        meta=common["meta"],
    )
    return CompiledPrompt(
        component=component,
        name=common["name"],
        handler=handler,
        permissions=common["permissions"],
        has_authorize=common["has_authorize"],
        completer=plan_completer(component, label),
        definition=definition,
        arguments=arguments,
    )
