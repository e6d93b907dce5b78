"""The classes users declare components with, and their small value types.

``Tool``, ``Resource`` and ``Prompt`` are declarations: class attributes
describe the catalog entry and ``handle()`` does the work. Nothing here runs
at import time; ``django_mcp.server.compiler`` validates a declaration once
and turns it into an immutable catalog entry.

Value types validate on construction and raise ``ValueError`` naming the
offending value: ``Icon`` accepts only ``https:`` URIs with a host and
RFC 2397 ``data:`` URIs, ``CacheHint`` a non-negative integer TTL and a
``public``/``private`` scope, ``Completion`` at most 100 values.
``ContentAnnotations`` (a resource's ``annotations``) lives in
``django_mcp.response``, next to the content it describes.
"""

from __future__ import annotations

import base64
import dataclasses
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal

from django_mcp.protocol import content as wire
from django_mcp.response import ContentAnnotations

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
    "Icon",
    "Prompt",
    "PromptArgument",
    "Resource",
    "Tool",
    "ToolAnnotations",
    "is_server",
]

MAX_COMPLETION_VALUES = 100


def is_server(declared: object) -> bool:
    """Return True for a ``Server`` subclass (it carries the base class's marker, ``_mcp_server``).

    Asked of a marker rather than of the class, so that the registry knows a
    server without importing ``server.server`` and, through it, the compiler.
    """
    return isinstance(declared, type) and getattr(declared, "_mcp_server", False) is True


"""Most values one completion may carry (MCP 2026-07-28 completion)."""


class Icon(wire.Icon, frozen=True):
    """An icon published by reference; only ``https:`` and ``data:`` URIs.

    An ``https:`` URI needs a host. A ``data:`` URI needs the RFC 2397 shape
    ``data:[<mediatype>][;base64],<data>`` with a non-empty payload, which
    must be valid Base64 when ``;base64`` is given. Whitespace is refused.
    """

    def __post_init__(self) -> None:
        src = self.src if isinstance(self.src, str) else ""
        scheme, colon, rest = src.partition(":")
        scheme = scheme.lower()
        if colon and not _WHITESPACE_RE.search(src):
            if scheme == "https" and _has_host(src):
                return
            if scheme == "data" and _is_data_uri(rest):
                return
        raise ValueError(
            f"Icon src must be an https: URI with a host or an RFC 2397 data: URI, got {self.src!r}"
        )


_WHITESPACE_RE = re.compile(r"\s")
# A data: URI's mediatype (RFC 2397 section 3): type/subtype, loosely.
_MEDIA_TYPE_RE = re.compile(r"^[A-Za-z0-9][\w!#$&^.+-]*/[A-Za-z0-9][\w!#$&^.+-]*$")


def _has_host(src: str) -> bool:
    try:
        parts = urllib.parse.urlsplit(src)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError:
        return False
    return bool(parts.hostname)


def _is_data_uri(rest: str) -> bool:
    # RFC 2397 section 3: dataurl := "data:" [ mediatype ] [ ";base64" ] "," data
    header, comma, payload = rest.partition(",")
    if not comma or not payload:
        return False
    mediatype, *params = header.split(";")
    is_base64 = bool(params) and params[-1].lower() == "base64"
    if is_base64:
        params.pop()
    if mediatype and not _MEDIA_TYPE_RE.match(mediatype):
        return False
    for param in params:
        attribute, equals, _ = param.partition("=")
        if not (attribute and equals):
            return False
    if is_base64:
        try:
            base64.b64decode(urllib.parse.unquote(payload), validate=True)
        except ValueError:  # binascii.Error
            return False
    return True


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

    ``task`` lets a call run in the background as a task (the
    ``io.modelcontextprotocol/tasks`` extension, for clients that declare
    it): ``"optional"`` runs it as a task unless ``use_task()`` (taking the
    payload and/or an ``McpRequest``, returning a bool) says otherwise,
    ``"required"`` always (a client without the extension gets -32021).
    ``prepare()`` (same parameters) runs first, in the request itself, and
    may return ``input_required(...)`` to ask the client before any task
    exists. ``task_retries`` is how many more times a task is run when the
    worker running it stops (its lease lapses) before it fails: set it only
    for a tool whose ``handle()`` is safe to run again (idempotent). See
    ``docs/tasks.md``.

    ``idempotency_keys = True`` makes a call carrying an idempotency key
    (``params._meta["io.github.django-mcp/idempotency-key"]``) run once per
    caller, tool and key: a retry gets the stored result of the first
    successful call (``django_mcp.dispatcher.idempotency``, see
    ``docs/tools.md``). A tool that does not set it ignores the key.

    ``app = MyApp`` (an ``AppResource``) shows the tool's results in that
    MCP App, for hosts that render Apps; ``app_visibility`` says whether the
    model, the App or both may call it. See ``docs/apps.md``.
    """

    _suffix = "Tool"
    #: A Schema subclass, or a raw JSON Schema dict passed through untouched.
    input: ClassVar[Any] = None
    output: ClassVar[Any] = None
    annotations: ClassVar[ToolAnnotations | None] = None
    #: "optional", "required" or None: may calls run as tasks?
    task: ClassVar[Literal["optional", "required"] | None] = None
    #: Runs a task may get again after its worker stopped (0: it fails).
    task_retries: ClassVar[int] = 0
    #: Honour idempotency keys: a retried call with the same key returns the
    #: first call's stored result without running again (False: the key
    #: is ignored).
    idempotency_keys: ClassVar[bool] = False
    #: The ``AppResource`` showing this tool's results (MCP Apps), or None.
    app: ClassVar[type[Resource] | None] = None
    #: Who may see and call the tool when it links an App: ("model", "app")
    #: (the default), ("app",) for a tool only the App calls, or ("model",).
    app_visibility: ClassVar[tuple[str, ...]] = ("model", "app")

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
