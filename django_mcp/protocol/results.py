"""Results of the server methods (MCP 2026-07-28 "server" pages).

Result Structs encode every field that has a value, defaults included
(``omit_defaults=False``), because ``resultType`` and ``isError`` must be on
the wire even when they hold their default; ``UNSET`` still means absent.
``CallToolResult`` keeps the wire's own attribute names (``structuredContent``,
``isError``) because handlers construct it directly, exactly as documented.
The dispatcher fills ``resultType``, ``ttlMs``, ``cacheScope`` and the
server-info ``_meta`` per era; handlers never need to.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from django_mcp.protocol._base import UNSET, Meta, UnsetType, WireStruct
from django_mcp.protocol.content import ContentBlock, ResourceContents, Role
from django_mcp.protocol.definitions import (
    PromptDefinition,
    ResourceDefinition,
    ResourceTemplateDefinition,
    ServerCapabilities,
    ToolDefinition,
)

__all__ = [
    "CallToolResult",
    "CacheScope",
    "CompleteResult",
    "CompletionValues",
    "DiscoverResult",
    "EmptyResult",
    "GetPromptResult",
    "InputRequest",
    "InputRequiredResult",
    "ListPromptsResult",
    "ListResourceTemplatesResult",
    "ListResourcesResult",
    "ListToolsResult",
    "PromptMessage",
    "ReadResourceResult",
]

#: Who may reuse a cached result: anyone, or the same authorization context.
CacheScope = Literal["public", "private"]


class _Result(WireStruct, omit_defaults=False, frozen=True):
    """Fields every 2026-07-28 result shares."""

    result_type: str | UnsetType = "complete"
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class CallToolResult(_Result, frozen=True):
    """The result of ``tools/call``."""

    content: tuple[ContentBlock, ...] = ()
    structuredContent: Any | UnsetType = msgspec.field(  # noqa: N815
        default=UNSET, name="structuredContent"
    )
    isError: bool = msgspec.field(default=False, name="isError")  # noqa: N815


class ReadResourceResult(_Result, frozen=True):
    """The result of ``resources/read``."""

    contents: tuple[ResourceContents, ...] = ()
    ttl_ms: int | UnsetType = UNSET
    cache_scope: CacheScope | UnsetType = UNSET


class PromptMessage(WireStruct, frozen=True):
    """One message of a prompt: a role and a single content block."""

    role: Role
    content: ContentBlock


class GetPromptResult(_Result, frozen=True):
    """The result of ``prompts/get``."""

    messages: tuple[PromptMessage, ...] = ()
    description: str | UnsetType = UNSET


class InputRequest(WireStruct, frozen=True):
    """A request the client must fulfil before the server can answer.

    ``method`` is ``elicitation/create``, ``sampling/createMessage`` or
    ``roots/list``; ``params`` is that method's params object.
    """

    method: str
    params: dict[str, Any] | UnsetType = UNSET


class InputRequiredResult(_Result, frozen=True):
    """Ask the client for input, then to retry the same request.

    ``request_state`` is any JSON value the handler wants back; the dispatcher
    signs it (Django signing) before it reaches the client.
    """

    result_type: str | UnsetType = "input_required"
    input_requests: dict[str, InputRequest] | UnsetType = UNSET
    request_state: Any | UnsetType = UNSET


class _Cacheable(_Result, frozen=True):
    ttl_ms: int | UnsetType = UNSET
    cache_scope: CacheScope | UnsetType = UNSET


class DiscoverResult(_Cacheable, frozen=True):
    """The result of ``server/discover``."""

    supported_versions: tuple[str, ...] = ()
    capabilities: ServerCapabilities = msgspec.field(default_factory=ServerCapabilities)
    instructions: str | UnsetType = UNSET


class ListToolsResult(_Cacheable, frozen=True):
    """One page of ``tools/list``."""

    tools: tuple[ToolDefinition, ...] = ()
    next_cursor: str | UnsetType = UNSET


class ListResourcesResult(_Cacheable, frozen=True):
    """One page of ``resources/list``."""

    resources: tuple[ResourceDefinition, ...] = ()
    next_cursor: str | UnsetType = UNSET


class ListResourceTemplatesResult(_Cacheable, frozen=True):
    """One page of ``resources/templates/list``."""

    resource_templates: tuple[ResourceTemplateDefinition, ...] = ()
    next_cursor: str | UnsetType = UNSET


class ListPromptsResult(_Cacheable, frozen=True):
    """One page of ``prompts/list``."""

    prompts: tuple[PromptDefinition, ...] = ()
    next_cursor: str | UnsetType = UNSET


class CompletionValues(WireStruct, omit_defaults=False, frozen=True):
    """Suggested values for an argument (at most 100)."""

    values: tuple[str, ...] = ()
    total: int | UnsetType = UNSET
    has_more: bool | UnsetType = UNSET


class CompleteResult(_Result, frozen=True):
    """The result of ``completion/complete``."""

    completion: CompletionValues = msgspec.field(default_factory=CompletionValues)


class EmptyResult(_Result, frozen=True):
    """A result with no members of its own (legacy ``ping`` and friends)."""
