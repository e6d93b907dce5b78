"""Content blocks and resource contents (MCP 2026-07-28, "ContentBlock").

Every block is a tagged msgspec Struct: the ``type`` member is written from
the class tag, so ``TextContent(text="hi")`` encodes as
``{"type":"text","text":"hi"}``. Binary data is carried Base64-encoded in
``data`` / ``blob`` exactly as the wire wants it; the builders in
``django_mcp.response`` do the encoding once.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from django_mcp.protocol._base import UNSET, Meta, UnsetType, WireStruct

__all__ = [
    "Annotations",
    "AudioContent",
    "BlobResourceContents",
    "ContentBlock",
    "EmbeddedResource",
    "Icon",
    "ImageContent",
    "ResourceContents",
    "ResourceLink",
    "Role",
    "TextContent",
    "TextResourceContents",
]

#: Who a message or block is meant for.
Role = Literal["user", "assistant"]


class Annotations(WireStruct, frozen=True):
    """Client hints on a block: audience, priority (0..1), last change."""

    audience: tuple[Role, ...] | UnsetType = UNSET
    priority: float | UnsetType = UNSET
    last_modified: str | UnsetType = UNSET


class Icon(WireStruct, frozen=True):
    """An icon reference (``https:`` or ``data:`` URI); never downloaded."""

    src: str
    mime_type: str | UnsetType = UNSET
    sizes: tuple[str, ...] | UnsetType = UNSET
    theme: Literal["light", "dark"] | UnsetType = UNSET


class TextResourceContents(WireStruct, frozen=True):
    """The text of a resource."""

    uri: str
    text: str
    mime_type: str | UnsetType = UNSET
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class BlobResourceContents(WireStruct, frozen=True):
    """The Base64-encoded bytes of a resource."""

    uri: str
    blob: str
    mime_type: str | UnsetType = UNSET
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


#: Either form of resource contents.
ResourceContents = TextResourceContents | BlobResourceContents


class TextContent(WireStruct, tag="text", tag_field="type", frozen=True):
    """A text block."""

    text: str
    annotations: Annotations | UnsetType = UNSET
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class ImageContent(WireStruct, tag="image", tag_field="type", frozen=True):
    """An image, Base64-encoded in ``data``."""

    data: str
    mime_type: str
    annotations: Annotations | UnsetType = UNSET
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class AudioContent(WireStruct, tag="audio", tag_field="type", frozen=True):
    """Audio, Base64-encoded in ``data``."""

    data: str
    mime_type: str
    annotations: Annotations | UnsetType = UNSET
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class ResourceLink(WireStruct, tag="resource_link", tag_field="type", frozen=True):
    """A reference to a resource the client may read separately."""

    uri: str
    name: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    mime_type: str | UnsetType = UNSET
    size: int | UnsetType = UNSET
    icons: tuple[Icon, ...] | UnsetType = UNSET
    annotations: Annotations | UnsetType = UNSET
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class EmbeddedResource(WireStruct, tag="resource", tag_field="type", frozen=True):
    """Resource contents embedded in a tool result or prompt message."""

    resource: TextResourceContents | BlobResourceContents
    annotations: Annotations | UnsetType = UNSET
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


#: Any block allowed in tool results and prompt messages.
ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
