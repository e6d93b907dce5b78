"""What the playground's panels show: a result by content type, a task, the notifications.

Media become ``data:`` URIs only for a well-formed MIME type of their own
family and valid base64; everything else is shown as JSON.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from typing import Any, Final

from django_mcp._admin.outcome import Outcome
from django_mcp._admin.playground_forms import compact_json, input_forms, pretty_json

__all__ = ["DEFAULT_POLL_MS", "content_view", "result_view", "task_view"]

#: How often the page polls a task whose server suggests no interval.
DEFAULT_POLL_MS: Final = 1000

_MIME_RE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$")


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
        response=pretty_json(dict(reply)),
    )
    if status == "completed" and isinstance(task.get("result"), Mapping):
        result = task["result"]
        panel["blocks"] = [content_view(block) for block in result.get("content") or ()]
        panel["is_error"] = result.get("isError") is True
        if "structuredContent" in result:
            panel["structured"] = pretty_json(result["structuredContent"])
    elif status == "failed" and isinstance(task.get("error"), Mapping):
        panel["error"] = {"code": task["error"].get("code"), "message": task["error"].get("message")}
    elif status == "input_required":
        pending = task.get("inputRequests") if isinstance(task.get("inputRequests"), Mapping) else {}
        assert isinstance(pending, Mapping)
        panel.update(inputs=input_forms(pending), pending_json=compact_json(dict(pending)))
    return panel


# ------------------------------------------------------------------ results


def result_view(kind: str, outcome: Outcome) -> dict[str, Any]:
    """Return what the result panel shows, by content type."""
    result = outcome.result
    view: dict[str, Any] = {
        "events": [_event(n) for n in outcome.notifications],
        "request": pretty_json(outcome.request),
        "response": pretty_json(outcome.response),
    }
    error = outcome.error
    if error is not None:
        view["error"] = {
            "code": error.get("code"),
            "message": error.get("message"),
            "data": pretty_json(error["data"]) if "data" in error else None,
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
            view["structured"] = pretty_json(result["structuredContent"])
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
    view: dict[str, Any] = {"type": kind, "json": pretty_json(block)}
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
        view["annotations"] = compact_json(block["annotations"])
    return view


def _resource_view(item: Mapping[str, Any]) -> dict[str, Any]:
    mime = item.get("mimeType")
    view: dict[str, Any] = {"uri": item.get("uri"), "mime_type": mime, "json": pretty_json(item)}
    if isinstance(item.get("text"), str):
        text = item["text"]
        if isinstance(mime, str) and (mime == "application/json" or mime.endswith("+json")):
            try:
                text = pretty_json(json.loads(text))
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
        text = data if isinstance(data, str) else pretty_json(data)
        logger = f" {params['logger']}" if params.get("logger") else ""
        return {"kind": "log", "label": f"{params.get('level')}{logger}", "text": text}
    return {"kind": "other", "label": str(method), "text": pretty_json(params)}


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
