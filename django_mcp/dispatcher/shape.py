"""Turn what a handler produced into the result of its method.

A tool yields ``CallToolResult`` (content, at most one structured value,
``isError``; built by ``tools.tool_result`` with the helpers here); a
resource yields ``ReadResourceResult`` contents (text or blob, never
image/audio blocks); a prompt yields one ``PromptMessage`` per content
block, keeping each response's role. A handler may instead return the
protocol result of its own method; a bare dict or another method's result
is refused. Mistakes here are the developer's: they raise ``ShapeError``
and are logged, and the client sees a generic failure.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import msgspec

from django_mcp.protocol._base import UNSET
from django_mcp.protocol.content import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from django_mcp.protocol.results import (
    GetPromptResult,
    InputRequiredResult,
    PromptMessage,
    ReadResourceResult,
)
from django_mcp.response import McpResponse, check_meta_keys, encode_resource, merge_meta, mime_family

__all__ = ["ShapeError", "check_responses", "only_result", "prompt_result", "resource_result"]


class ShapeError(Exception):
    """A handler returned something its component kind cannot publish."""


def only_result(produced: Sequence[Any], kind: type[Any], what: str) -> Any | None:
    """Return the single protocol result or InputRequiredResult, if any.

    Explicit results stay subject to the metadata rules: reserved protocol
    keys cannot be set by application code.
    """
    special = [p for p in produced if isinstance(p, kind | InputRequiredResult)]
    if not special:
        return None
    if len(produced) != 1:
        raise ShapeError(f"a {what} handler returning {type(special[0]).__name__} must return only it")
    meta = special[0].meta
    if meta is not UNSET:
        try:
            check_meta_keys(meta)
        except (TypeError, ValueError) as exc:
            raise ShapeError(f"a {what} handler returned invalid result metadata: {exc}") from None
    return special[0]


def check_responses(produced: Sequence[Any], what: str) -> list[McpResponse]:
    """Return ``produced`` as responses; raise ``ShapeError`` for anything else."""
    for item in produced:
        if not isinstance(item, McpResponse):
            raise ShapeError(
                f"a {what} handler must return McpResponse values (or its protocol result), "
                f"got {type(item).__name__}"
            )
    if not produced:
        raise ShapeError(f"a {what} handler returned nothing")
    return list(produced)


def resource_result(
    produced: Sequence[Any], uri: str, mime_type: str | None
) -> ReadResourceResult | InputRequiredResult:
    """Return the read result for ``produced``; blocks take the resource's URI/MIME."""
    special = only_result(produced, ReadResourceResult, "resource")
    if special is not None:
        return special  # type: ignore[no-any-return]
    responses = check_responses(produced, "resource")
    contents: list[TextResourceContents | BlobResourceContents] = []
    for response in responses:
        if response.is_error:
            raise ShapeError("McpResponse.error() is for tools; a resource raises instead")
        if response.has_structured:
            contents.append(_structured_contents(response, uri, mime_type))
            continue
        for block in response.content:
            contents.append(_block_contents(block, uri, mime_type))
    return ReadResourceResult(contents=tuple(contents), meta=merge_meta(responses) or UNSET)


def _structured_contents(
    response: McpResponse, uri: str, mime_type: str | None
) -> TextResourceContents | BlobResourceContents:
    # A MessagePack resource packs the original value, not its JSON text.
    try:
        contents = encode_resource(uri, response.raw_value, mime_type, as_data=True)
    except ValueError as exc:
        raise ShapeError(str(exc)) from None
    meta = response.content[0].meta
    return msgspec.structs.replace(contents, meta=meta) if meta is not UNSET else contents


def _block_contents(
    block: Any, uri: str, mime_type: str | None
) -> TextResourceContents | BlobResourceContents:
    if isinstance(block, TextContent):
        if mime_family(mime_type) == "msgpack":
            packed = msgspec.msgpack.encode(block.text)
            return BlobResourceContents(
                uri=uri, blob=base64.b64encode(packed).decode(), mime_type=mime_type or UNSET, meta=block.meta
            )
        return TextResourceContents(uri=uri, text=block.text, mime_type=mime_type or UNSET, meta=block.meta)
    if isinstance(block, EmbeddedResource):
        # An explicit resource() keeps its own URI and MIME type.
        return block.resource
    if isinstance(block, ImageContent | AudioContent):
        raise ShapeError(
            "a resource cannot return image()/audio() blocks; return the bytes with the "
            "resource's binary MIME type instead"
        )
    if isinstance(block, ResourceLink):
        raise ShapeError("a resource cannot return resourceLink() blocks")
    raise ShapeError(f"unsupported content block {type(block).__name__}")


def prompt_result(produced: Sequence[Any]) -> GetPromptResult | InputRequiredResult:
    """Return the prompt result: one message per block, in order, with roles."""
    special = only_result(produced, GetPromptResult, "prompt")
    if special is not None:
        return special  # type: ignore[no-any-return]
    responses = check_responses(produced, "prompt")
    messages = []
    for response in responses:
        if response.is_error:
            raise ShapeError("McpResponse.error() is for tools; a prompt raises instead")
        for block in response.content:
            messages.append(PromptMessage(role=response.role, content=block))
    return GetPromptResult(messages=tuple(messages), meta=merge_meta(responses) or UNSET)
