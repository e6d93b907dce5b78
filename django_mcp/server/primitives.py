"""The classes users declare components with, and their small value types.

``Tool``, ``Resource`` and ``Prompt`` are declarations: class attributes
describe the catalog entry and ``handle()`` does the work. Nothing here runs
at import time; ``django_mcp.server.compiler`` validates a declaration once
and turns it into an immutable catalog entry.

Value types validate on construction and raise ``ValueError`` naming the
offending value: ``Icon`` accepts only ``https:`` and ``data:`` URIs,
``CacheHint`` a non-negative integer TTL and a ``public``/``private`` scope,
``ContentAnnotations`` a priority in [0, 1], ``Completion`` at most 100
values.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal

from django_mcp.protocol import content as wire
from django_mcp.protocol._base import UNSET

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    InputT = TypeVar("InputT", default=None)
    OutputT = TypeVar("OutputT", default=None)
else:
    from typing import TypeVar

    InputT = TypeVar("InputT")
    OutputT = TypeVar("OutputT")

__all__ = [
    "MAX_COMPLETION_VALUES",
    "CacheHint",
    "Completion",
    "ContentAnnotations",
    "Icon",
    "Prompt",
    "PromptArgument",
    "Resource",
    "Tool",
    "ToolAnnotations",
]

MAX_COMPLETION_VALUES = 100
"""Most values one completion may carry (MCP 2026-07-28 completion)."""


class Icon(wire.Icon, frozen=True):
    """An icon published by reference; only ``https:`` and ``data:`` URIs."""

    def __post_init__(self) -> None:
        src = self.src if isinstance(self.src, str) else ""
        scheme = src.split(":", 1)[0].lower() if ":" in src else ""
        if scheme not in ("https", "data") or len(src) <= len(scheme) + 1:
            raise ValueError(f"Icon src must be an https: or data: URI, got {self.src!r}")


@dataclasses.dataclass(frozen=True, slots=True)
class CacheHint:
    """Tell clients how long a result stays fresh and who may share it.

    It creates no server-side cache. ``ttl_ms=0`` with ``scope="private"``
    (the default) means "do not reuse across callers, already stale".
    """

    ttl_ms: int = 0
    scope: Literal["private", "public"] = "private"

    def __post_init__(self) -> None:
        if type(self.ttl_ms) is not int or self.ttl_ms < 0:
            raise ValueError(f"CacheHint.ttl_ms must be a non-negative int, got {self.ttl_ms!r}")
        if self.scope not in ("private", "public"):
            raise ValueError(f"CacheHint.scope must be 'private' or 'public', got {self.scope!r}")


@dataclasses.dataclass(frozen=True, slots=True)
class ContentAnnotations:
    """Hints applied to every block of a response: audience, priority, date."""

    audience: tuple[Literal["user", "assistant"], ...] | None = None
    priority: float | None = None
    last_modified: str | datetime.datetime | None = None

    def __post_init__(self) -> None:
        if self.audience is not None:
            if isinstance(self.audience, str) or not all(
                role in ("user", "assistant") for role in self.audience
            ):
                raise ValueError(f"audience must be a tuple of 'user'/'assistant', got {self.audience!r}")
        if self.priority is not None:
            if isinstance(self.priority, bool) or not isinstance(self.priority, int | float):
                raise ValueError(f"priority must be a number, got {self.priority!r}")
            if not (math.isfinite(self.priority) and 0 <= self.priority <= 1):
                raise ValueError(f"priority must be between 0 and 1, got {self.priority!r}")
        if self.last_modified is not None and not isinstance(self.last_modified, str | datetime.datetime):
            raise ValueError(f"last_modified must be an ISO 8601 str or datetime, got {self.last_modified!r}")
        if isinstance(self.last_modified, str):
            try:
                datetime.datetime.fromisoformat(self.last_modified.replace("Z", "+00:00"))
            except ValueError:
                raise ValueError(f"last_modified must be ISO 8601, got {self.last_modified!r}") from None

    def to_wire(self) -> wire.Annotations:
        """Return the wire ``Annotations`` for these hints."""
        modified = self.last_modified
        if isinstance(modified, datetime.datetime):
            modified = modified.isoformat()
        return wire.Annotations(
            audience=UNSET if self.audience is None else tuple(self.audience),
            priority=UNSET if self.priority is None else float(self.priority),
            last_modified=UNSET if modified is None else modified,
        )


@dataclasses.dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """Behaviour hints for clients; they are not enforced at runtime."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    title: str | None = None

    def __post_init__(self) -> None:
        for field in ("read_only", "destructive", "idempotent", "open_world"):
            value = getattr(self, field)
            if value is not None and not isinstance(value, bool):
                raise ValueError(f"ToolAnnotations.{field} must be a bool, got {value!r}")


@dataclasses.dataclass(frozen=True, slots=True)
class PromptArgument:
    """A string argument of a prompt; ``required=True`` is enforced."""

    name: str
    title: str | None = None
    description: str | None = None
    required: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"PromptArgument.name must be a non-empty str, got {self.name!r}")


@dataclasses.dataclass(frozen=True, slots=True)
class Completion:
    """Suggestions returned by ``complete()``: at most 100 values."""

    values: tuple[str, ...] = ()
    total: int | None = None
    has_more: bool | None = None

    def __post_init__(self) -> None:
        values = tuple(self.values)
        if not all(isinstance(value, str) for value in values):
            raise ValueError(f"Completion values must be strings, got {values!r}")
        if len(values) > MAX_COMPLETION_VALUES:
            raise ValueError(
                f"Completion carries {len(values)} values; at most {MAX_COMPLETION_VALUES} allowed"
            )
        if self.total is not None and (type(self.total) is not int or self.total < 0):
            raise ValueError(f"Completion.total must be a non-negative int, got {self.total!r}")
        object.__setattr__(self, "values", values)


class _Component:
    """Catalog attributes shared by tools, resources and prompts."""

    #: Suffix stripped from the class name to derive the default name.
    _suffix: ClassVar[str] = ""

    name: ClassVar[str | None] = None
    title: ClassVar[str | None] = None
    description: ClassVar[str | None] = None
    icons: ClassVar[Iterable[Icon]] = ()
    meta: ClassVar[Mapping[str, Any] | None] = None
    #: Django permission codenames ("app.codename") the caller must hold.
    permissions: ClassVar[Iterable[str]] = ()


class Tool(_Component, Generic[InputT, OutputT]):
    """An operation a model can call.

    Declare the input (and optionally output) Schema as type arguments,
    ``class OrderTool(Tool[OrderInput, OrderOutput])``, or as the ``input``
    and ``output`` class attributes. A tool without input defines
    ``handle(self)``; otherwise ``handle(self, payload)``. A parameter
    annotated ``McpRequest`` receives the request context.
    """

    _suffix = "Tool"
    #: A Schema subclass, or a raw JSON Schema dict passed through untouched.
    input: ClassVar[Any] = None
    output: ClassVar[Any] = None
    annotations: ClassVar[ToolAnnotations | None] = None

    def __class_getitem__(cls, params: Any) -> Any:
        # Tool[Input] means "no output schema": pad to two type arguments.
        if not isinstance(params, tuple):
            params = (params, None)
        return super().__class_getitem__(params)  # type: ignore[misc]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in getattr(cls, "__orig_bases__", ()):
            args = getattr(base, "__args__", None)
            if getattr(base, "__origin__", None) is Tool and args:
                if "input" not in cls.__dict__ and not isinstance(args[0], TypeVar):
                    cls.input = None if args[0] is type(None) else args[0]
                if "output" not in cls.__dict__ and not isinstance(args[1], TypeVar):
                    cls.output = None if args[1] is type(None) else args[1]


class Resource(_Component):
    """Content identified by a fixed ``uri`` or an RFC 6570 ``uri_template``.

    ``handle()`` receives template variables by name, or an ``McpRequest``.
    Ambiguous templates need a synchronous static/class method
    ``match(uri)`` returning the variables or None.
    """

    _suffix = "Resource"
    uri: ClassVar[str | None] = None
    uri_template: ClassVar[str | None] = None
    mime_type: ClassVar[str | None] = None
    size: ClassVar[int | None] = None
    cache: ClassVar[CacheHint | None] = None
    annotations: ClassVar[ContentAnnotations | None] = None


class Prompt(_Component):
    """Reusable messages for a conversation, with string ``arguments``.

    ``handle()`` receives declared arguments by name; ``complete()`` may
    suggest argument values.
    """

    _suffix = "Prompt"
    arguments: ClassVar[Iterable[PromptArgument]] = ()
