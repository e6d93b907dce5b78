"""Compile a ``Tool`` declaration: schemas, validators, handler and task support."""

from __future__ import annotations

import inspect
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from django_mcp.protocol._base import UNSET
from django_mcp.protocol.definitions import ToolAnnotationsDefinition, ToolDefinition
from django_mcp.schemas import has_rules
from django_mcp.server._call_plan import plan_call
from django_mcp.server._compiled import CompiledTool
from django_mcp.server._declarations import common_fields, qualname, with_ui_meta
from django_mcp.server._json_schema import compile_validator
from django_mcp.server._tool_schemas import input_schema, output_schema
from django_mcp.server.handlers import Handler, plan_handler
from django_mcp.server.primitives import Tool, ToolAnnotations
from django_mcp.ui.linking import tool_ui_meta

__all__ = ["compile_tool"]


def compile_tool(
    component: type[Tool[Any, Any]], app: tuple[str, tuple[str, ...]] | None = None
) -> CompiledTool:
    """Compile a tool; ``app`` is the URI and visibility of the App it links."""
    label = qualname(component)
    common = common_fields(component, "Tool", strict_name=True)
    if app is not None:
        common["meta"] = with_ui_meta(common["meta"], tool_ui_meta(*app), label)
    input_type = component.input
    output_type = component.output
    published_input = input_schema(input_type, label)
    published_output = UNSET if output_type is None else output_schema(output_type, label)
    raw_input, raw_output = isinstance(input_type, dict), isinstance(output_type, dict)
    input_validator = compile_validator(input_type, f"{label}.input") if raw_input else None
    output_validator = compile_validator(output_type, f"{label}.output") if raw_output else None
    annotations = component.annotations
    if annotations is not None and not isinstance(annotations, ToolAnnotations):
        raise ImproperlyConfigured(f"{label}.annotations must be a ToolAnnotations")
    allowed: tuple[str, ...] = ("payload",) if input_type is not None else ()
    handler = plan_handler(component, "handle", label, allowed=allowed)
    task, prepare, use_task = _task_support(component, label, allowed)
    definition = ToolDefinition(
        name=common["name"],
        input_schema=published_input,
        title=common["title"],
        description=common["description"],
        output_schema=published_output,
        annotations=UNSET if annotations is None else _tool_annotations(annotations),
        icons=common["icons"],
        meta=common["meta"],
    )
    return CompiledTool(
        component=component,
        name=common["name"],
        handler=handler,
        permissions=common["permissions"],
        has_authorize=common["has_authorize"],
        completer=None,
        definition=definition,
        input_type=input_type,
        output_type=output_type,
        input_validator=input_validator,
        output_validator=output_validator,
        input_rules=isinstance(input_type, type) and has_rules(input_type),
        task=task,
        prepare=prepare,
        use_task=use_task,
        task_retries=_task_retries(component, label, task),
        idempotency_keys=_idempotency_keys(component, label),
        plan=plan_call(handler, input_type, output_type),
    )


def _idempotency_keys(component: type[Any], label: str) -> bool:
    """Return a tool's ``idempotency_keys``: True or False, nothing else."""
    honoured = component.idempotency_keys
    if not isinstance(honoured, bool):
        raise ImproperlyConfigured(
            f"{label}.idempotency_keys must be True or False, got {honoured!r}: True runs a call "
            "carrying an idempotency key once per caller and key"
        )
    return honoured


def _task_retries(component: type[Any], label: str, task: str | None) -> int:
    """Return a tool's ``task_retries``: a non-negative int, only with task support."""
    retries = component.task_retries
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ImproperlyConfigured(
            f"{label}.task_retries must be a non-negative int, got {retries!r}: the runs a task "
            "may get again after its worker stopped"
        )
    if retries and task is None:
        raise ImproperlyConfigured(
            f"{label}.task_retries is set but the tool never runs as a task: set task = 'optional' "
            "or 'required'"
        )
    return retries


def _task_support(
    component: type[Any], label: str, allowed: tuple[str, ...]
) -> tuple[str | None, Handler | None, Handler | None]:
    """Return a tool's ``task`` declaration and its ``prepare``/``use_task`` plans."""
    task = component.task
    if task not in (None, "optional", "required"):
        raise ImproperlyConfigured(
            f"{label}.task must be None, 'optional' or 'required', got {task!r}: 'optional' lets "
            "the server run a call as a task, 'required' always does"
        )
    plans: dict[str, Handler | None] = {}
    for method in ("prepare", "use_task"):
        if inspect.getattr_static(component, method, None) is None:
            plans[method] = None
        elif task is None:
            raise ImproperlyConfigured(
                f"{label} defines {method}() but no task support: set task = 'optional' or 'required'"
            )
        else:
            plans[method] = plan_handler(component, method, label, allowed=allowed)
    if task == "required" and plans["use_task"] is not None:
        raise ImproperlyConfigured(
            f"{label}.use_task() is never called: task = 'required' always runs calls as tasks "
            "(declare task = 'optional' to decide per call)"
        )
    return task, plans["prepare"], plans["use_task"]


def _tool_annotations(annotations: ToolAnnotations) -> ToolAnnotationsDefinition:
    hints = {
        key: UNSET if value is None else value
        for key, value in (
            ("read_only_hint", annotations.read_only),
            ("destructive_hint", annotations.destructive),
            ("idempotent_hint", annotations.idempotent),
            ("open_world_hint", annotations.open_world),
        )
    }
    return ToolAnnotationsDefinition(title=UNSET if annotations.title is None else annotations.title, **hints)
