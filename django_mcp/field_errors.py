"""Field errors as one tool result a client can act on.

When a tool's inputs are wrong in several places, a client (often a model)
should learn every problem from one answer rather than retry once per
field. ``field_errors_result`` builds that answer, the same shape wherever
the errors come from (argument validation, a Django form, a DRF
serializer):

* ``isError: true``;
* one text block: ``prefix``, then one line per problem,
  ``- <path>: <problem>`` (``- <problem>`` for the path ``""``, the whole
  input), in the mapping's order, then each path's problems in order;
* ``structuredContent``: ``{"errors": {"<path>": ["<problem>", ...]}}``,
  same order.

Problems are shown as given, so they must not quote the input's values
(they may be secrets); ``django_mcp.schemas`` and raw JSON Schema
validation word theirs that way. A tool with an output schema may return
this result: ``isError`` results are not checked against it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from django_mcp.response import McpResponse

__all__ = ["INVALID_ARGUMENTS", "field_errors", "field_errors_result"]

INVALID_ARGUMENTS: Final = "Invalid tool arguments:"
"""The first line of the answer to ``tools/call`` arguments that do not fit."""


def field_errors(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Return ``(path, problem)`` pairs grouped by path, in first-seen order.

    ``SchemaValidationError.errors`` is such a list of pairs.
    """
    grouped: dict[str, list[str]] = {}
    for path, problem in pairs:
        grouped.setdefault(path, []).append(problem)
    return grouped


def field_errors_result(
    errors: Mapping[str, Sequence[str]], *, prefix: str = INVALID_ARGUMENTS
) -> McpResponse:
    """Return an ``isError`` response listing every problem of every field.

    ``errors`` maps a field path to its problems (``""`` is the whole
    input); problems are turned into ``str`` (lazy translations work) and
    paths without problems are left out.

    Raises:
        ValueError: ``errors`` holds no problem at all.
    """
    listed = {str(path): [str(problem) for problem in problems] for path, problems in errors.items()}
    listed = {path: problems for path, problems in listed.items() if problems}
    if not listed:
        raise ValueError("field_errors_result() needs at least one problem")
    lines = [prefix]
    for path, problems in listed.items():
        lines.extend(f"- {path}: {problem}" if path else f"- {problem}" for problem in problems)
    # error() makes the text block and the flag; replace() freezes the
    # structured content like every built response's.
    return dataclasses.replace(McpResponse.error("\n".join(lines)), structured_content={"errors": listed})
