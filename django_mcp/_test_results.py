"""What ``McpTestClient`` returns: decoded responses with chainable assertions."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Final, Self

__all__ = ["CompletionResult", "ListResult", "McpResult", "PromptResult", "ResourceResult", "ToolResult"]

# Payloads longer than this are shortened in assertion messages.
_DUMP_LIMIT: Final = 8000


class McpResult:
    """One decoded JSON-RPC response and the notifications sent before it."""

    def __init__(self, response: dict[str, Any], notifications: list[dict[str, Any]]) -> None:
        self.response = response
        self.notifications = notifications

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.response!r})"

    # ------------------------------------------------------------ access

    @property
    def result(self) -> dict[str, Any]:
        """Return the ``result`` object (empty for an error response)."""
        result = self.response.get("result")
        return result if isinstance(result, dict) else {}

    @property
    def error(self) -> dict[str, Any] | None:
        """Return the JSON-RPC ``error`` object, or None."""
        error = self.response.get("error")
        return error if isinstance(error, dict) else None

    @property
    def progress(self) -> list[dict[str, Any]]:
        """Return the params of every ``notifications/progress`` received."""
        return [
            n.get("params", {}) for n in self.notifications if n.get("method") == "notifications/progress"
        ]

    @property
    def logs(self) -> list[dict[str, Any]]:
        """Return the params of every ``notifications/message`` received."""
        return [n.get("params", {}) for n in self.notifications if n.get("method") == "notifications/message"]

    @property
    def input_requests(self) -> dict[str, Any]:
        """Return the ``inputRequests`` of an ``input_required`` result."""
        requests = self.result.get("inputRequests")
        return requests if isinstance(requests, dict) else {}

    @property
    def request_state(self) -> str | None:
        """Return the ``requestState`` to send back with the answers."""
        state = self.result.get("requestState")
        return state if isinstance(state, str) else None

    # -------------------------------------------------------- assertions

    def _responses(self) -> list[dict[str, Any]]:
        return [self.response]

    def _fail(self, message: str) -> AssertionError:
        payload = json.dumps(
            self.response if len(self._responses()) == 1 else self._responses(),
            indent=2,
            ensure_ascii=False,
            default=repr,
        )
        if len(payload) > _DUMP_LIMIT:
            payload = payload[:_DUMP_LIMIT] + f"\n... ({len(payload) - _DUMP_LIMIT} more characters)"
        if self.notifications:
            payload += "\nNotifications: " + json.dumps(self.notifications, ensure_ascii=False, default=repr)
        return AssertionError(f"{message}\nResponse: {payload}")

    def assert_ok(self) -> Self:
        """Assert the response is a result, not a JSON-RPC error."""
        for response in self._responses():
            if "error" in response or "result" not in response:
                raise self._fail("Expected a successful response, got a JSON-RPC error.")
        return self

    def assert_error(self, code: int | None = None) -> Self:
        """Assert the response is a JSON-RPC error (with ``code`` if given)."""
        error = self.error
        if error is None:
            raise self._fail(
                f"Expected a JSON-RPC error{f' {code}' if code is not None else ''}, got a result."
            )
        if code is not None and error.get("code") != code:
            raise self._fail(f"Expected JSON-RPC error code {code}, got {error.get('code')}.")
        return self

    def assert_sees(self, *texts: str) -> Self:
        """Assert every text occurs in the response's strings (``_meta`` aside)."""
        strings = list(self._strings())
        for text in texts:
            if not any(text in s for s in strings):
                raise self._fail(f"Expected to see {text!r} in the response, but it is not there.")
        return self

    def assert_doesnt_see(self, *texts: str) -> Self:
        """Assert no text occurs in the response's strings (``_meta`` aside)."""
        strings = list(self._strings())
        for text in texts:
            if any(text in s for s in strings):
                raise self._fail(f"Expected not to see {text!r} in the response, but it is there.")
        return self

    def assert_has_progress(self, count: int | None = None) -> Self:
        """Assert progress was reported (exactly ``count`` times if given)."""
        found = len(self.progress)
        if (count is None and not found) or (count is not None and found != count):
            expected = "progress notifications" if count is None else f"{count} progress notification(s)"
            raise self._fail(
                f"Expected {expected}, got {found}. Progress is only sent when the call "
                "carries progress_token=..."
            )
        return self

    def assert_logged(self, level: str | None = None) -> Self:
        """Assert a log message was sent (at ``level`` if given)."""
        levels = [log.get("level") for log in self.logs]
        if not levels or (level is not None and level not in levels):
            wanted = "a log message" if level is None else f"a {level!r} log message"
            raise self._fail(
                f"Expected {wanted}, got levels {levels}. Logs are only sent when the call "
                "carries log_level=... and at or above that level."
            )
        return self

    def assert_input_required(self, keys: Iterable[str] | None = None) -> Self:
        """Assert the result asks the client for input (with these ``keys``)."""
        if self.result.get("resultType") != "input_required":
            raise self._fail("Expected an input_required result.")
        if keys is not None and sorted(self.input_requests) != sorted(keys):
            raise self._fail(f"Expected input requests {sorted(keys)}, got {sorted(self.input_requests)}.")
        return self

    def _strings(self) -> Iterator[str]:
        for response in self._responses():
            yield from _strings(response.get("result"))
            yield from _strings(response.get("error"))


def _strings(value: Any) -> Iterator[str]:
    """Yield every string value, skipping ``_meta`` and opaque ``requestState``."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in ("_meta", "requestState"):
                yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


class ToolResult(McpResult):
    """The response to ``tools/call``."""

    @property
    def content(self) -> list[dict[str, Any]]:
        """Return the content blocks."""
        return list(self.result.get("content") or [])

    @property
    def text(self) -> str:
        """Return the text blocks joined by newlines."""
        return "\n".join(block["text"] for block in self.content if block.get("type") == "text")

    @property
    def structured_content(self) -> Any:
        """Return ``structuredContent`` (None when absent)."""
        return self.result.get("structuredContent")

    @property
    def is_error(self) -> bool:
        """Return True for a tool failure (``isError``)."""
        return self.result.get("isError") is True

    def assert_ok(self) -> Self:
        """Assert a result that is not a tool failure (``isError`` false)."""
        super().assert_ok()
        if self.is_error:
            raise self._fail("Expected the tool to succeed, but the result has isError: true.")
        return self

    def assert_is_error(self) -> Self:
        """Assert the tool failed: a result with ``isError: true``."""
        super().assert_ok()
        if not self.is_error:
            raise self._fail("Expected a tool error (isError: true), but the tool succeeded.")
        return self

    assert_tool_error = assert_is_error

    def assert_structured(self, expected: Any) -> Self:
        """Assert ``structuredContent`` equals ``expected``."""
        if "structuredContent" not in self.result or self.structured_content != expected:
            raise self._fail(f"Expected structuredContent {expected!r}.")
        return self


class ResourceResult(McpResult):
    """The response to ``resources/read``."""

    @property
    def contents(self) -> list[dict[str, Any]]:
        """Return the resource contents."""
        return list(self.result.get("contents") or [])

    @property
    def text(self) -> str:
        """Return the text contents joined by newlines."""
        return "\n".join(item["text"] for item in self.contents if isinstance(item.get("text"), str))


class PromptResult(McpResult):
    """The response to ``prompts/get``."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Return the prompt messages."""
        return list(self.result.get("messages") or [])


class CompletionResult(McpResult):
    """The response to ``completion/complete``."""

    @property
    def values(self) -> list[str]:
        """Return the suggested values."""
        completion = self.result.get("completion")
        return list(completion.get("values") or []) if isinstance(completion, dict) else []


class ListResult(McpResult):
    """Every page of a ``*/list`` method, gathered.

    ``response`` is the last page's response; ``pages`` all of them.
    """

    def __init__(self, pages: list[dict[str, Any]], notifications: list[dict[str, Any]], *, key: str) -> None:
        super().__init__(pages[-1], notifications)
        self.pages = pages
        self.key = key

    def _responses(self) -> list[dict[str, Any]]:
        return self.pages

    @property
    def items(self) -> list[dict[str, Any]]:
        """Return the listed definitions of every page, in order."""
        items: list[dict[str, Any]] = []
        for page in self.pages:
            result = page.get("result")
            if isinstance(result, dict):
                items += result.get(self.key) or []
        return items

    @property
    def names(self) -> list[str]:
        """Return the ``name`` of every listed item, in order."""
        return [item.get("name", "") for item in self.items]

    def assert_names(self, *names: str) -> Self:
        """Assert the listed names are exactly ``names``, in this order."""
        self.assert_ok()
        if self.names != list(names):
            raise self._fail(f"Expected the names {list(names)}, got {self.names}.")
        return self

    def assert_has(self, name: str) -> Self:
        """Assert an item named ``name`` is listed."""
        self.assert_ok()
        if name not in self.names:
            raise self._fail(f"Expected {name!r} to be listed; listed: {self.names}.")
        return self

    def assert_missing(self, name: str) -> Self:
        """Assert no item named ``name`` is listed."""
        self.assert_ok()
        if name in self.names:
            raise self._fail(f"Expected {name!r} not to be listed, but it is.")
        return self

    assert_has_tool = assert_has
    assert_missing_tool = assert_missing
