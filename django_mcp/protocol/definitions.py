"""Catalog entries as listed on the wire: tools, resources, templates, prompts.

These are the published descriptions of components, built once by the
compiler; they hold no callables.
"""

from __future__ import annotations

from typing import Any

import msgspec

from django_mcp.protocol._base import UNSET, Meta, UnsetType, WireStruct
from django_mcp.protocol.content import Annotations, Icon

__all__ = [
    "Implementation",
    "PromptArgumentDefinition",
    "PromptDefinition",
    "ResourceDefinition",
    "ResourceTemplateDefinition",
    "ServerCapabilities",
    "ToolAnnotationsDefinition",
    "ToolDefinition",
]


class ToolAnnotationsDefinition(WireStruct, frozen=True):
    """Behaviour hints for a tool (untrusted by clients)."""

    title: str | UnsetType = UNSET
    read_only_hint: bool | UnsetType = UNSET
    destructive_hint: bool | UnsetType = UNSET
    idempotent_hint: bool | UnsetType = UNSET
    open_world_hint: bool | UnsetType = UNSET


class ToolDefinition(WireStruct, frozen=True):
    """A tool as listed by ``tools/list``."""

    name: str
    input_schema: dict[str, Any]
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    output_schema: dict[str, Any] | UnsetType = UNSET
    annotations: ToolAnnotationsDefinition | UnsetType = UNSET
    icons: tuple[Icon, ...] | UnsetType = UNSET
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class ResourceDefinition(WireStruct, frozen=True):
    """A fixed-URI resource as listed by ``resources/list``."""

    uri: str
    name: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    mime_type: str | UnsetType = UNSET
    size: int | UnsetType = UNSET
    icons: tuple[Icon, ...] | UnsetType = UNSET
    annotations: Annotations | UnsetType = UNSET
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class ResourceTemplateDefinition(WireStruct, frozen=True):
    """An RFC 6570 template as listed by ``resources/templates/list``."""

    uri_template: str
    name: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    mime_type: str | UnsetType = UNSET
    icons: tuple[Icon, ...] | UnsetType = UNSET
    annotations: Annotations | UnsetType = UNSET
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class PromptArgumentDefinition(WireStruct, frozen=True):
    """One string argument of a prompt."""

    name: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    required: bool | UnsetType = UNSET


class PromptDefinition(WireStruct, frozen=True):
    """A prompt as listed by ``prompts/list``."""

    name: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    arguments: tuple[PromptArgumentDefinition, ...] | UnsetType = UNSET
    icons: tuple[Icon, ...] | UnsetType = UNSET
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class Implementation(WireStruct, frozen=True):
    """Name and version of a client or server (self-reported)."""

    name: str
    version: str
    title: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    website_url: str | UnsetType = UNSET
    icons: tuple[Icon, ...] | UnsetType = UNSET


class ServerCapabilities(WireStruct, frozen=True):
    """Features this server offers; each key present means "supported"."""

    tools: dict[str, Any] | UnsetType = UNSET
    resources: dict[str, Any] | UnsetType = UNSET
    prompts: dict[str, Any] | UnsetType = UNSET
    completions: dict[str, Any] | UnsetType = UNSET
    logging: dict[str, Any] | UnsetType = UNSET
    experimental: dict[str, Any] | UnsetType = UNSET
    extensions: dict[str, Any] | UnsetType = UNSET
