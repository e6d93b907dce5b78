"""The playground: call a component as the signed-in user, show the answer.

``Playground(server, entry, user)`` serves one component's form. Its
``fields()`` are built from the component's declaration (a tool's input
schema, a prompt's arguments, a template's variables); ``submit(data)``
reads a posted form and returns what the page shows. A call goes through
``McpTestClient``: the real dispatcher, in-process, with the user's
identity, so permissions, visibility, rate limits, validation and errors
are exactly what an MCP client gets (2026-07-28 requests with a progress
token and log level ``debug``, so every progress and log notification is
collected and shown, in order, before the result).

Three kinds of submission, named by the ``step`` field:

* ``call``: the arguments come from the fields, or from the raw JSON
  editor when its own button (``send_json``) was pressed. A tool annotated ``destructiveHint: true``
  is not called yet: the page asks for confirmation first;
* ``confirm``: the confirmed arguments, sent as they were shown;
* ``continue``: the answers to an ``input_required`` result (elicitation
  forms, URL elicitation, or raw JSON for sampling and roots), sent with
  the ``requestState`` as ``inputResponses`` in the retried request;
* ``task_cancel`` and ``task_update``: ``tasks/cancel`` and ``tasks/update``
  (the answers to a task's ``inputRequests``) for the task a call created.

Calls declare the tasks extension (``task_panel.CLIENT_CAPABILITIES``): a
tool with task support may answer with a task, which the page then shows
(``task_view``: status, status message, and by status its result, error
or input forms, a Cancel button while it is unfinished) and, while it is
``working``, polls every ``pollIntervalMs``.

Every request sent is recorded in the admin history (``LogEntry``, action
CHANGE on ``McpCatalog``) with the component and the outcome, never the
arguments or answers.

The page's forms are built in ``playground_forms``, its panels in
``playground_panels``; ``playground_history`` records each request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from asgiref.sync import async_to_sync
from django.utils.translation import gettext

from django_mcp._admin.catalog import CatalogEntry, ServerCatalog
from django_mcp._admin.forms import FormField, PostedData, parse_fields, schema_fields, string_fields
from django_mcp._admin.outcome import Outcome
from django_mcp._admin.playground_forms import (
    compact_json,
    default_arguments,
    input_answers,
    input_forms,
    json_object,
    pretty_json,
    with_errors,
)
from django_mcp._admin.playground_history import record, record_task
from django_mcp._admin.playground_panels import result_view, task_view
from django_mcp._admin.task_panel import CLIENT_CAPABILITIES, TaskClient
from django_mcp.conf import get_django_settings
from django_mcp.dispatcher.invoke import collect_failures
from django_mcp.server.templates import TemplateError
from django_mcp.testing import McpResult, McpTestClient

__all__ = ["PROGRESS_TOKEN", "Playground", "complete"]

PROGRESS_TOKEN: Final = "playground"
"""The progress token every playground request carries."""

_LOG_LEVEL: Final = "debug"

_METHODS: Final[Mapping[str, str]] = {
    "tool": "tools/call",
    "resource": "resources/read",
    "template": "resources/read",
    "prompt": "prompts/get",
    # A skill is tried by reading its SKILL.md, as a host loading it would.
    "skill": "resources/read",
}


class Playground:
    """Call one component from the admin as ``user``."""

    def __init__(self, server: ServerCatalog, entry: CatalogEntry, user: Any) -> None:
        self.server = server
        self.entry = entry
        self.user = user

    @property
    def method(self) -> str:
        """Return the MCP method this component is used with."""
        return _METHODS[self.entry.kind]

    def fields(
        self, values: Mapping[str, Any] | None = None, errors: Mapping[str, str] | None = None
    ) -> list[FormField]:
        """Return the form fields, filled from ``values`` (defaults when None)."""
        entry = self.entry
        if entry.kind == "tool":
            fields = schema_fields(entry.schema, prefix="arg.", values=values)
        elif entry.kind == "prompt":
            declared = [
                (str(a.get("name")), str(a.get("description") or ""), a.get("required") is True)
                for a in entry.prompt_arguments
            ]
            fields = string_fields(declared, prefix="arg.", values=values, completes=entry.completes)
        elif entry.kind == "template":
            variables = [(name, "", True) for name in entry.variables]
            fields = string_fields(variables, prefix="arg.", values=values, completes=entry.completes)
        else:
            fields = []
        return with_errors(fields, errors or {})

    def context(self, values: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return the page context of a fresh form."""
        fields = self.fields(values)
        sent = values if values is not None else default_arguments(fields)
        return {"fields": fields, "raw_arguments": pretty_json(sent), "errors": {}}

    # ------------------------------------------------------------ submit

    def submit(self, data: PostedData) -> dict[str, Any]:
        """Handle a posted form; return the page context (with ``outcome`` once sent)."""
        step = str(data.get("step") or "call")
        if step == "continue":
            return self._continue(data)
        if step in ("task_cancel", "task_update"):
            return self._task_step(step, str(data.get("task_id") or ""), data)
        if step == "confirm":
            arguments, problem = json_object(data.get("arguments"), "arguments")
            if problem:
                return {**self.context(), "problem": problem}
            return self._send(arguments)
        if data.get("send_json") is not None:
            arguments, problem = json_object(data.get("raw_arguments"), "arguments")
            if problem:
                context = self.context()
                return {
                    **context,
                    "raw_arguments": str(data.get("raw_arguments") or ""),
                    "problem": problem,
                    "raw_open": True,
                }
            errors: dict[str, str] = {}
        else:
            arguments, errors = parse_fields(self.fields(), data)
        if errors:
            return {**self._form(arguments, errors), "errors": errors}
        if self.entry.destructive:
            return {**self._form(arguments), "confirm": True, "arguments_json": compact_json(arguments)}
        return self._send(arguments)

    def task(self, task_id: str) -> dict[str, Any]:
        """Return the task panel of ``task_id`` as it is now (``tasks/get``)."""
        assert self.server.server is not None
        return task_view(task_id, TaskClient(self.server.server, self.user).get(task_id))

    def _task_step(self, step: str, task_id: str, data: PostedData) -> dict[str, Any]:
        assert self.server.server is not None
        tasks = TaskClient(self.server.server, self.user)
        context = self.context()
        if step == "task_cancel":
            tasks.cancel(task_id)
        else:
            pending, problem = json_object(data.get("pending"), "pending input requests")
            if problem:
                return {**context, "problem": problem, "task": self.task(task_id)}
            answers, errors = input_answers(pending, data)
            if errors:
                panel = self.task(task_id)
                panel["inputs"] = input_forms(pending, data=data, errors=errors)
                return {**context, "errors": errors, "task": panel}
            tasks.update(task_id, answers)
        method = "tasks/cancel" if step == "task_cancel" else "tasks/update"
        record_task(self.user, self.entry, method)
        return {**context, "task": self.task(task_id)}

    def _form(self, arguments: Mapping[str, Any], errors: Mapping[str, str] | None = None) -> dict[str, Any]:
        return {
            "fields": self.fields(arguments, errors),
            "raw_arguments": pretty_json(arguments),
            "errors": {},
        }

    def _continue(self, data: PostedData) -> dict[str, Any]:
        arguments, problem = json_object(data.get("arguments"), "arguments")
        pending, pending_problem = json_object(data.get("pending"), "pending input requests")
        problem = problem or pending_problem
        if problem:
            return {**self.context(), "problem": problem}
        state = data.get("request_state") or None
        answers, errors = input_answers(pending, data)
        if errors:
            context = self._form(arguments)
            context.update(
                errors=errors,
                inputs=input_forms(pending, data=data, errors=errors),
                arguments_json=compact_json(arguments),
                pending_json=compact_json(pending),
                request_state=state,
                uri=data.get("uri") or "",
            )
            return context
        return self._send(
            arguments, input_responses=answers, request_state=state, uri=data.get("uri") or None
        )

    def _send(
        self,
        arguments: dict[str, Any],
        *,
        input_responses: dict[str, Any] | None = None,
        request_state: str | None = None,
        uri: str | None = None,
    ) -> dict[str, Any]:
        context = self._form(arguments)
        if self.entry.kind == "template" and uri is None:
            try:
                uri = self._expand(arguments)
            except (TemplateError, TypeError, ValueError) as exc:
                return {
                    **context,
                    "problem": gettext("Cannot expand the URI template: {error}").format(error=exc),
                }
        outcome = async_to_sync(self.run)(
            arguments, input_responses=input_responses, request_state=request_state, uri=uri
        )
        record(self.user, self.entry, self.method, outcome, continued=input_responses is not None)
        context.update(outcome=outcome, result=result_view(self.entry.kind, outcome))
        if outcome.failures and self.reveals_failures:
            context["failures"] = outcome.failures
        if outcome.task_id is not None:
            context["task"] = self.task(outcome.task_id)
        if outcome.input_required:
            pending = outcome.result.get("inputRequests") or {}
            context.update(
                inputs=input_forms(pending),
                arguments_json=compact_json(arguments),
                pending_json=compact_json(pending),
                request_state=outcome.result.get("requestState"),
                uri=uri or "",
            )
        return context

    @property
    def reveals_failures(self) -> bool:
        """Return whether the page shows why the server failed: under ``DEBUG`` or to a superuser."""
        return get_django_settings().debug or bool(getattr(self.user, "is_superuser", False))

    def _expand(self, arguments: Mapping[str, Any]) -> str:
        assert self.server.server is not None
        template = self.server.server.compiled().templates[self.entry.key].template
        assert template is not None
        return template.expand({key: value for key, value in arguments.items() if value != ""})

    async def run(
        self,
        arguments: Mapping[str, Any],
        *,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
        uri: str | None = None,
    ) -> Outcome:
        """Send the component's request through the dispatcher; return what came back."""
        assert self.server.server is not None
        client = McpTestClient(self.server.server, self.user, client_capabilities=CLIENT_CAPABILITIES)
        options: dict[str, Any] = {
            "progress_token": PROGRESS_TOKEN,
            "log_level": _LOG_LEVEL,
            "input_responses": input_responses,
            "request_state": request_state,
        }
        params: dict[str, Any]
        result: McpResult
        entry = self.entry
        with collect_failures() as failures:
            if entry.kind == "tool":
                params = {"name": entry.name, "arguments": dict(arguments)}
                result = await client.call_tool(entry.name, arguments, **options)
            elif entry.kind == "prompt":
                params = {"name": entry.name, "arguments": dict(arguments)}
                result = await client.get_prompt(entry.name, arguments, **options)
            else:
                address = uri if uri is not None else entry.key
                params = {"uri": address}
                result = await client.read_resource(address, **options)
        if input_responses is not None:
            params["inputResponses"] = dict(input_responses)
        if request_state is not None:
            params["requestState"] = request_state
        params["_meta"] = {"progressToken": PROGRESS_TOKEN, "io.modelcontextprotocol/logLevel": _LOG_LEVEL}
        return Outcome(
            {"method": self.method, "params": params},
            result.response,
            result.notifications,
            failures=tuple(f"{type(exc).__name__}: {exc}" for exc in failures),
        )


async def complete(
    server: ServerCatalog,
    entry: CatalogEntry,
    user: Any,
    argument: str,
    value: str,
    context: Mapping[str, str],
) -> dict[str, Any]:
    """Return the server's suggestions for ``argument`` of a prompt or template.

    The answer is ``{"values": [...], "total": n, "hasMore": bool}`` as
    ``completion/complete`` sends it, or ``{"error": {...}}``.
    """
    assert server.server is not None
    ref: dict[str, Any] = (
        {"type": "ref/prompt", "name": entry.name}
        if entry.kind == "prompt"
        else {"type": "ref/resource", "uri": entry.key}
    )
    others = {key: str(item) for key, item in context.items() if key != argument and item not in ("", None)}
    result = await McpTestClient(server.server, user).complete(ref, argument, value, others or None)
    if result.error is not None:
        return {"error": result.error}
    completion = result.result.get("completion")
    return dict(completion) if isinstance(completion, Mapping) else {"values": []}
