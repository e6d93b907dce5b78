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
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import re
from collections.abc import Mapping
from typing import Any, Final

from asgiref.sync import async_to_sync
from django.utils.translation import gettext

from django_mcp._admin.catalog import CatalogEntry, ServerCatalog
from django_mcp._admin.forms import FormField, PostedData, parse_fields, schema_fields, string_fields
from django_mcp._admin.task_panel import CLIENT_CAPABILITIES, TaskClient
from django_mcp.conf import get_django_settings
from django_mcp.dispatcher.invoke import collect_failures
from django_mcp.server.templates import TemplateError
from django_mcp.testing import McpResult, McpTestClient

__all__ = [
    "PROGRESS_TOKEN",
    "Outcome",
    "Playground",
    "complete",
    "content_view",
    "input_answers",
    "input_forms",
    "record",
    "result_view",
    "task_view",
]

#: How often the page polls a task whose server suggests no interval.
DEFAULT_POLL_MS: Final = 1000

PROGRESS_TOKEN: Final = "playground"
"""The progress token every playground request carries."""

_LOG_LEVEL: Final = "debug"
_MIME_RE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$")
_ANSWER_TEMPLATES: Final[Mapping[str, Any]] = {
    "sampling/createMessage": {
        "role": "assistant",
        "content": {"type": "text", "text": ""},
        "model": "playground",
        "stopReason": "endTurn",
    },
    "roots/list": {"roots": []},
}
_METHODS: Final[Mapping[str, str]] = {
    "tool": "tools/call",
    "resource": "resources/read",
    "template": "resources/read",
    "prompt": "prompts/get",
    # A skill is tried by reading its SKILL.md, as a host loading it would.
    "skill": "resources/read",
}


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """One request sent by the playground and its answer."""

    #: ``{"method": ..., "params": ...}`` as sent (without the client's ``_meta``).
    request: dict[str, Any]
    response: dict[str, Any]
    notifications: list[dict[str, Any]]
    #: The unexpected exceptions the server logged while answering, as
    #: "Type: message" (only the playground sees them; clients never do).
    failures: tuple[str, ...] = ()

    @property
    def error(self) -> dict[str, Any] | None:
        """Return the JSON-RPC error object, or None."""
        error = self.response.get("error")
        return error if isinstance(error, dict) else None

    @property
    def result(self) -> dict[str, Any]:
        """Return the result object (empty for an error)."""
        result = self.response.get("result")
        return result if isinstance(result, dict) else {}

    @property
    def input_required(self) -> bool:
        """Return True when the server asks for input before answering."""
        return self.result.get("resultType") == "input_required"

    @property
    def is_error(self) -> bool:
        """Return True for a tool failure (``isError: true``)."""
        return self.result.get("isError") is True

    @property
    def task_id(self) -> str | None:
        """Return the id of the task the call created, or None."""
        task_id = self.result.get("taskId")
        return task_id if self.result.get("resultType") == "task" and isinstance(task_id, str) else None

    @property
    def summary(self) -> str:
        """Return the outcome in a few words, for the history."""
        if self.error is not None:
            return f"refused with JSON-RPC error {self.error.get('code')}"
        if self.input_required:
            return f"asked for input ({len(self.result.get('inputRequests') or {})} request(s))"
        if self.task_id is not None:
            return "answered with a task"
        if self.is_error:
            return "failed (isError)"
        return "succeeded"


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
        return _with_errors(fields, errors or {})

    def context(self, values: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return the page context of a fresh form."""
        fields = self.fields(values)
        sent = values if values is not None else _defaults(fields)
        return {"fields": fields, "raw_arguments": _pretty(sent), "errors": {}}

    # ------------------------------------------------------------ submit

    def submit(self, data: PostedData) -> dict[str, Any]:
        """Handle a posted form; return the page context (with ``outcome`` once sent)."""
        step = str(data.get("step") or "call")
        if step == "continue":
            return self._continue(data)
        if step in ("task_cancel", "task_update"):
            return self._task_step(step, str(data.get("task_id") or ""), data)
        if step == "confirm":
            arguments, problem = _json_object(data.get("arguments"), "arguments")
            if problem:
                return {**self.context(), "problem": problem}
            return self._send(arguments)
        if data.get("send_json") is not None:
            arguments, problem = _json_object(data.get("raw_arguments"), "arguments")
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
            return {**self._form(arguments), "confirm": True, "arguments_json": _compact(arguments)}
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
            pending, problem = _json_object(data.get("pending"), "pending input requests")
            if problem:
                return {**context, "problem": problem, "task": self.task(task_id)}
            answers, errors = input_answers(pending, data)
            if errors:
                panel = self.task(task_id)
                panel["inputs"] = input_forms(pending, data=data, errors=errors)
                return {**context, "errors": errors, "task": panel}
            tasks.update(task_id, answers)
        method = "tasks/cancel" if step == "task_cancel" else "tasks/update"
        _record_task(self.user, self.entry, method)
        return {**context, "task": self.task(task_id)}

    def _form(self, arguments: Mapping[str, Any], errors: Mapping[str, str] | None = None) -> dict[str, Any]:
        return {"fields": self.fields(arguments, errors), "raw_arguments": _pretty(arguments), "errors": {}}

    def _continue(self, data: PostedData) -> dict[str, Any]:
        arguments, problem = _json_object(data.get("arguments"), "arguments")
        pending, pending_problem = _json_object(data.get("pending"), "pending input requests")
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
                arguments_json=_compact(arguments),
                pending_json=_compact(pending),
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
                arguments_json=_compact(arguments),
                pending_json=_compact(pending),
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


def _record_task(user: Any, entry: CatalogEntry, method: str) -> None:
    what = f"{entry.kind_label.lower()} “{entry.name}”"
    _log_change(user, entry, f"Playground sent {method} for a task of {what}.")


def record(user: Any, entry: CatalogEntry, method: str, outcome: Outcome, *, continued: bool = False) -> None:
    """Add a CHANGE entry to the admin history: the component and the outcome only."""
    what = "answered input for" if continued else "sent"
    _log_change(
        user,
        entry,
        f"Playground {what} {method} for {entry.kind_label.lower()} “{entry.name}” "
        f"({entry.server_key}): {outcome.summary}.",
    )


def _log_change(user: Any, entry: CatalogEntry, message: str) -> None:
    """Add a CHANGE entry about ``entry`` to the admin history, as ``user``."""
    from django.contrib.admin.models import CHANGE, LogEntry
    from django.contrib.contenttypes.models import ContentType

    from django_mcp.models import McpCatalog

    LogEntry.objects.create(
        user_id=user.pk,
        content_type=ContentType.objects.get_for_model(McpCatalog, for_concrete_model=False),
        object_id=entry.component_id,
        object_repr=f"{entry.kind_label} {entry.name}"[:200],
        action_flag=CHANGE,
        change_message=message,
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


# ------------------------------------------------------------------ inputs


def input_forms(
    pending: Mapping[str, Any], *, data: PostedData | None = None, errors: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """Return one form per input request of an ``input_required`` result.

    With ``data`` (answers that could not be read), the forms show what was
    posted, and ``errors`` (keyed ``<request key>.<field>``) next to it.
    """
    errors = errors or {}
    forms = []
    for key, request in pending.items():
        request = request if isinstance(request, Mapping) else {}
        method = str(request.get("method") or "")
        params = request.get("params") if isinstance(request.get("params"), Mapping) else {}
        assert isinstance(params, Mapping)
        form: dict[str, Any] = {"key": str(key), "method": method, "message": params.get("message") or ""}
        action = str(data.get(f"action.{key}") or "accept") if data is not None else "accept"
        form["action"] = action
        if method == "elicitation/create" and params.get("mode", "form") == "form":
            schema = (
                params.get("requestedSchema") if isinstance(params.get("requestedSchema"), Mapping) else {}
            )
            assert isinstance(schema, Mapping)
            values = parse_fields(_elicit_fields(str(key), schema), data)[0] if data is not None else None
            fields = schema_fields(schema, prefix=f"input.{key}.", values=values, checkboxes=True)
            prefix = f"{key}."
            problems = {name[len(prefix) :]: text for name, text in errors.items() if name.startswith(prefix)}
            form.update(kind="form", fields=_with_errors(fields, problems))
        elif method == "elicitation/create" and params.get("mode") == "url":
            form.update(kind="url", url=str(params.get("url") or ""))
        else:
            raw = data.get(f"input.{key}.json") if data is not None else None
            form.update(
                kind="json",
                error=errors.get(f"{key}.json", ""),
                params=_pretty(params),
                value=str(raw) if raw is not None else _pretty(_ANSWER_TEMPLATES.get(method, {})),
            )
        forms.append(form)
    return forms


def _elicit_fields(key: str, schema: Mapping[str, Any]) -> list[FormField]:
    return schema_fields(schema, prefix=f"input.{key}.", checkboxes=True)


def input_answers(pending: Mapping[str, Any], data: PostedData) -> tuple[dict[str, Any], dict[str, str]]:
    """Return the ``inputResponses`` a continuation (or ``tasks/update``) sends, and field errors."""
    answers: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key, request in pending.items():
        request = request if isinstance(request, Mapping) else {}
        method = request.get("method")
        params = request.get("params") if isinstance(request.get("params"), Mapping) else {}
        assert isinstance(params, Mapping)
        if method == "elicitation/create":
            action = str(data.get(f"action.{key}") or "accept")
            if action not in ("accept", "decline", "cancel"):
                action = "cancel"
            answer: dict[str, Any] = {"action": action}
            schema = params.get("requestedSchema")
            if action == "accept" and params.get("mode", "form") == "form" and isinstance(schema, Mapping):
                content, problems = parse_fields(_elicit_fields(str(key), schema), data)
                errors.update({f"{key}.{name}": text for name, text in problems.items()})
                answer["content"] = content
            answers[str(key)] = answer
            continue
        text = str(data.get(f"input.{key}.json") or "")
        try:
            answers[str(key)] = json.loads(text)
        except ValueError as exc:
            errors[f"{key}.json"] = gettext("Not valid JSON: {error}").format(error=exc)
    return answers, errors


# ------------------------------------------------------------------ tasks


def task_view(task_id: str, reply: Mapping[str, Any]) -> dict[str, Any]:
    """Return what the task panel shows for a ``tasks/get`` ``reply``."""
    panel: dict[str, Any] = {"id": task_id}
    error = reply.get("error")
    if isinstance(error, Mapping):
        panel.update(gone=True, message=str(error.get("message") or ""), terminal=True)
        return panel
    task = reply.get("result") if isinstance(reply.get("result"), Mapping) else {}
    assert isinstance(task, Mapping)
    status = str(task.get("status") or "")
    panel.update(
        status=status,
        status_message=task.get("statusMessage") or "",
        created_at=task.get("createdAt"),
        updated_at=task.get("lastUpdatedAt"),
        ttl_ms=task.get("ttlMs"),
        poll_ms=int(task.get("pollIntervalMs") or DEFAULT_POLL_MS),
        terminal=status in ("completed", "failed", "cancelled"),
        polling=status == "working",
        response=_pretty(dict(reply)),
    )
    if status == "completed" and isinstance(task.get("result"), Mapping):
        result = task["result"]
        panel["blocks"] = [content_view(block) for block in result.get("content") or ()]
        panel["is_error"] = result.get("isError") is True
        if "structuredContent" in result:
            panel["structured"] = _pretty(result["structuredContent"])
    elif status == "failed" and isinstance(task.get("error"), Mapping):
        panel["error"] = {"code": task["error"].get("code"), "message": task["error"].get("message")}
    elif status == "input_required":
        pending = task.get("inputRequests") if isinstance(task.get("inputRequests"), Mapping) else {}
        assert isinstance(pending, Mapping)
        panel.update(inputs=input_forms(pending), pending_json=_compact(dict(pending)))
    return panel


# ------------------------------------------------------------------ results


def result_view(kind: str, outcome: Outcome) -> dict[str, Any]:
    """Return what the result panel shows, by content type."""
    result = outcome.result
    view: dict[str, Any] = {
        "events": [_event(n) for n in outcome.notifications],
        "request": _pretty(outcome.request),
        "response": _pretty(outcome.response),
    }
    error = outcome.error
    if error is not None:
        view["error"] = {
            "code": error.get("code"),
            "message": error.get("message"),
            "data": _pretty(error["data"]) if "data" in error else None,
        }
        return view
    if outcome.input_required:
        return view
    if outcome.task_id is not None:
        view["task"] = True  # the task panel shows the rest
        return view
    if kind == "tool":
        view["blocks"] = [content_view(block) for block in result.get("content") or ()]
        view["is_error"] = outcome.is_error
        if "structuredContent" in result:
            view["structured"] = _pretty(result["structuredContent"])
    elif kind == "prompt":
        view["description"] = result.get("description")
        view["messages"] = [
            {"role": m.get("role"), "block": content_view(m.get("content") or {})}
            for m in result.get("messages") or ()
            if isinstance(m, Mapping)
        ]
    else:
        view["blocks"] = [
            _resource_view(item) for item in result.get("contents") or () if isinstance(item, Mapping)
        ]
    if "ttlMs" in result or "cacheScope" in result:
        view["cache"] = (result.get("ttlMs"), result.get("cacheScope"))
    return view


def content_view(block: Mapping[str, Any]) -> dict[str, Any]:
    """Return one content block ready for ``_content.html``."""
    kind = block.get("type")
    view: dict[str, Any] = {"type": kind, "json": _pretty(block)}
    if kind == "text":
        view["text"] = block.get("text", "")
    elif kind in ("image", "audio"):
        view["mime_type"] = block.get("mimeType")
        view["src"] = _data_uri(block.get("mimeType"), block.get("data"), family=str(kind))
    elif kind == "resource_link":
        view.update({key: block.get(key) for key in ("uri", "name", "title", "description", "mimeType")})
        view["mime_type"] = block.get("mimeType")
    elif kind == "resource":
        resource = block.get("resource")
        view["resource"] = _resource_view(resource if isinstance(resource, Mapping) else {})
    if isinstance(block.get("annotations"), Mapping):
        view["annotations"] = _compact(block["annotations"])
    return view


def _resource_view(item: Mapping[str, Any]) -> dict[str, Any]:
    mime = item.get("mimeType")
    view: dict[str, Any] = {"uri": item.get("uri"), "mime_type": mime, "json": _pretty(item)}
    if isinstance(item.get("text"), str):
        text = item["text"]
        if isinstance(mime, str) and (mime == "application/json" or mime.endswith("+json")):
            try:
                text = _pretty(json.loads(text))
            except ValueError:
                pass
        view["text"] = text
    elif isinstance(item.get("blob"), str):
        blob = item["blob"]
        view["size"] = _decoded_size(blob)
        family = str(mime).split("/", 1)[0] if isinstance(mime, str) else ""
        if family in ("image", "audio"):
            view["family"] = family
            view["src"] = _data_uri(mime, blob, family=family)
    return view


def _event(notification: Mapping[str, Any]) -> dict[str, Any]:
    method = notification.get("method")
    params = notification.get("params") if isinstance(notification.get("params"), Mapping) else {}
    assert isinstance(params, Mapping)
    if method == "notifications/progress":
        total = params.get("total")
        done = f"{params.get('progress')}/{total}" if total is not None else f"{params.get('progress')}"
        return {"kind": "progress", "label": done, "text": params.get("message") or ""}
    if method == "notifications/message":
        data = params.get("data")
        text = data if isinstance(data, str) else _pretty(data)
        logger = f" {params['logger']}" if params.get("logger") else ""
        return {"kind": "log", "label": f"{params.get('level')}{logger}", "text": text}
    return {"kind": "other", "label": str(method), "text": _pretty(params)}


def _data_uri(mime: Any, data: Any, *, family: str) -> str | None:
    """Return a ``data:`` URI for media of ``family``, or None if unsafe or malformed."""
    if not (isinstance(mime, str) and _MIME_RE.match(mime) and mime.split("/", 1)[0] == family):
        return None
    if not isinstance(data, str) or _decoded_size(data) is None:
        return None
    return f"data:{mime};base64,{data}"


def _decoded_size(data: str) -> int | None:
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None


# ------------------------------------------------------------------ helpers


def _with_errors(fields: list[FormField], errors: Mapping[str, str]) -> list[FormField]:
    return [dataclasses.replace(f, error=errors[f.name]) if f.name in errors else f for f in fields]


def _defaults(fields: list[FormField]) -> dict[str, Any]:
    posted: dict[str, list[str]] = {}
    for field in fields:
        if field.widget == "checkbox":
            if field.checked:
                posted[field.html_name] = ["on"]
        elif field.widget == "multiselect":
            posted[field.html_name] = list(field.selected)
        elif field.value != "":
            posted[field.html_name] = [field.value]
    return parse_fields(fields, _Posted(posted))[0]


class _Posted:
    """A minimal ``PostedData`` over a dict of lists."""

    def __init__(self, values: dict[str, list[str]]) -> None:
        self._values = values

    def get(self, key: str, default: Any = None) -> Any:
        values = self._values.get(key)
        return values[-1] if values else default

    def getlist(self, key: str) -> list[Any]:
        return list(self._values.get(key, []))


def _json_object(text: Any, what: str) -> tuple[dict[str, Any], str]:
    """Return ``(object, "")`` parsed from ``text``, or ``({}, problem)``.

    ``what`` is ``"arguments"`` or ``"pending input requests"``.
    """
    arguments = what == "arguments"
    try:
        value = json.loads(str(text or "{}"))
    except ValueError as exc:
        invalid = (
            gettext("The arguments are not valid JSON: {error}")
            if arguments
            else gettext("The pending input requests are not valid JSON: {error}")
        )
        return {}, invalid.format(error=exc)
    if not isinstance(value, dict):
        return {}, (
            gettext("The arguments must be a JSON object.")
            if arguments
            else gettext("The pending input requests must be a JSON object.")
        )
    return value, ""


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
