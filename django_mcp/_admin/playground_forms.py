"""The playground's forms: arguments, answers to input requests, posted JSON.

``input_forms()`` turns the input requests of an ``input_required`` result
(or of a task) into forms; ``input_answers()`` reads the posted forms back
as the ``inputResponses`` to send. Values are shown as pretty JSON and
carried between steps as compact JSON.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, Final

from django.utils.translation import gettext

from django_mcp._admin.forms import FormField, PostedData, parse_fields, schema_fields

__all__ = [
    "compact_json",
    "default_arguments",
    "input_answers",
    "input_forms",
    "json_object",
    "pretty_json",
    "with_errors",
]

_ANSWER_TEMPLATES: Final[Mapping[str, Any]] = {
    "sampling/createMessage": {
        "role": "assistant",
        "content": {"type": "text", "text": ""},
        "model": "playground",
        "stopReason": "endTurn",
    },
    "roots/list": {"roots": []},
}


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
            form.update(kind="form", fields=with_errors(fields, problems))
        elif method == "elicitation/create" and params.get("mode") == "url":
            form.update(kind="url", url=str(params.get("url") or ""))
        else:
            raw = data.get(f"input.{key}.json") if data is not None else None
            form.update(
                kind="json",
                error=errors.get(f"{key}.json", ""),
                params=pretty_json(params),
                value=str(raw) if raw is not None else pretty_json(_ANSWER_TEMPLATES.get(method, {})),
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


def with_errors(fields: list[FormField], errors: Mapping[str, str]) -> list[FormField]:
    return [dataclasses.replace(f, error=errors[f.name]) if f.name in errors else f for f in fields]


def default_arguments(fields: list[FormField]) -> dict[str, Any]:
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


def json_object(text: Any, what: str) -> tuple[dict[str, Any], str]:
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


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
