"""McpResponse: the immutable value every component handler returns.

A response holds content blocks plus optional structured content, result
metadata, a prompt role, a tool-error flag or a progress update. Builders
(``text``, ``structured``, ``image``, ``audio``, ``resource``,
``resourceLink``, ``error``, ``progress``) create one; modifiers
(``withMeta``, ``withContentMeta``, ``withAnnotations``, ``asUser``,
``asAssistant``) return a copy and never mutate ``self``.

Rules enforced here:

* ``structured()`` normalizes msgspec-compatible values (Schema, Struct,
  dataclass, enum, date/time, UUID, Decimal) honouring aliases, tags and
  omitted defaults, and refuses non-finite numbers, non-string keys, nested
  bytes and unsupported objects. The input is never mutated.
* ``image()``/``audio()`` take original bytes and Base64-encode them once; a
  ``str`` (already encoded) is refused.
* ``resource()`` picks its codec by MIME type (case and parameters ignored,
  the declared MIME kept): JSON family as UTF-8 text, MessagePack family as a
  Base64 blob, anything else needs text or bytes.
* Application metadata may not use reserved protocol keys.
* A built response cannot change: ``meta``, ``structured_content`` and the
  ``_meta`` of content blocks are private deep copies whose JSON objects are
  read-only ``dict`` subclasses and whose arrays are read-only ``list``
  subclasses (mutating methods raise ``TypeError``). They compare equal to
  plain dicts and lists and msgspec encodes them exactly like those.
* ``merge_meta`` compares values as JSON: ``True`` never equals ``1``, object
  key order is irrelevant, array order matters, and ``1`` equals ``1.0``
  (JSON has one number type).

The builder names are camelCase on purpose: they mirror an existing
framework's public API exactly.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, NoReturn

import msgspec

from django_mcp.protocol._base import UNSET, UnsetType
from django_mcp.protocol.content import (
    Annotations,
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    Icon,
    ImageContent,
    ResourceLink,
    Role,
    TextContent,
    TextResourceContents,
)

__all__ = [
    "ContentAnnotations",
    "McpResponse",
    "Progress",
    "check_meta_keys",
    "encode_resource",
    "json_equal",
    "merge_meta",
    "mime_family",
    "to_json_value",
]

_BINARY = (bytes, bytearray, memoryview)
#: JSON scalars: nothing to freeze in them.
_SCALARS = frozenset({str, int, float, bool, type(None)})

# RFC 6838 type/subtype, loosely: we only need to refuse obvious garbage.
_MIME_RE = re.compile(r"^[A-Za-z0-9][\w!#$&^.+-]*/[A-Za-z0-9][\w!#$&^.+-]*$")
# MCP 2026-07-28 basic/index "_meta": optional prefix of dot-separated
# labels ending in "/", then a name.
_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_META_KEY_RE = re.compile(rf"^(?:{_LABEL}(?:\.{_LABEL})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$")
_RESERVED_UNPREFIXED = frozenset({"traceparent", "tracestate", "baggage", "progressToken"})
_MSGPACK_SUBTYPES = frozenset({"msgpack", "x-msgpack", "vnd.msgpack"})

_json_encoder = msgspec.json.Encoder()
_msgpack_encoder = msgspec.msgpack.Encoder()


def _read_only(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError("a built McpResponse is read-only; derive a new one with a modifier such as withMeta()")


class _FrozenDict(dict[str, Any]):
    """A JSON object of a built response: a ``dict`` that refuses changes.

    A ``dict`` subclass (not a ``MappingProxyType``) so msgspec encodes it,
    jsonschema sees an object and it compares equal to a plain dict. Only
    ``_freeze`` creates one, so its values are frozen too.
    """

    __slots__ = ()

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __copy__(self) -> _FrozenDict:
        return self

    def __deepcopy__(self, memo: object) -> _FrozenDict:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_FrozenDict, (dict(self),))


class _FrozenList(list[Any]):
    """A JSON array of a built response: a ``list`` that refuses changes.

    A ``list`` rather than a tuple so that jsonschema still sees an array and
    it compares equal to the list the handler gave.
    """

    __slots__ = ()

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = extend = insert = pop = remove = clear = sort = reverse = _read_only

    def __copy__(self) -> _FrozenList:
        return self

    def __deepcopy__(self, memo: object) -> _FrozenList:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_FrozenList, (list(self),))


def _freeze(value: Any) -> Any:
    """Return a read-only deep copy of a JSON value (frozen parts are reused)."""
    if type(value) in _SCALARS or isinstance(value, _FrozenDict | _FrozenList):
        return value
    # A plain dict first: isinstance() against the Mapping ABC is a Python call.
    if type(value) is dict or isinstance(value, Mapping):
        return _FrozenDict({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return _FrozenList(_freeze(item) for item in value)
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class Progress:
    """A progress update yielded by a streaming handler."""

    current: float
    total: float | None = None
    message: str | None = None


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

    def to_wire(self) -> Annotations:
        """Return the wire ``Annotations`` for these hints."""
        modified = self.last_modified
        if isinstance(modified, datetime.datetime):
            modified = modified.isoformat()
        return Annotations(
            audience=UNSET if self.audience is None else tuple(self.audience),
            priority=UNSET if self.priority is None else float(self.priority),
            last_modified=UNSET if modified is None else modified,
        )


#: The metadata of a response without any (immutable, so shared).
_NO_META: Final = _FrozenDict()


@dataclasses.dataclass(frozen=True, slots=True)
class McpResponse:
    """Content returned by a tool, resource or prompt handler.

    Build one with the class-method builders; never construct it directly.
    """

    content: tuple[ContentBlock, ...] = ()
    structured_content: Any = UNSET
    meta: Mapping[str, Any] = dataclasses.field(default_factory=_FrozenDict)
    is_error: bool = False
    role: Role = "user"
    progress_update: Progress | None = None
    #: The normalized value behind ``structured()``, kept so a MessagePack
    #: resource can encode it natively rather than re-parsing JSON text.
    raw_value: Any = UNSET

    def __post_init__(self) -> None:
        # Deep read-only copies: nothing that holds a built response (or the
        # dicts it was built from) can change it afterwards.
        # (Checked here first: most responses carry neither, and this runs
        # for every response built.)
        if type(self.meta) is not _FrozenDict:
            object.__setattr__(self, "meta", _freeze(self.meta))
        if self.structured_content is not UNSET:
            object.__setattr__(self, "structured_content", _freeze(self.structured_content))
        if self.raw_value is not UNSET:
            object.__setattr__(self, "raw_value", _freeze(self.raw_value))

    # ----------------------------------------------------------- builders

    @classmethod
    def _of_blocks(cls, content: tuple[ContentBlock, ...], *, is_error: bool = False) -> McpResponse:
        """Return a response of content blocks only, without ``__post_init__``.

        Content blocks are immutable and there is no metadata to freeze, so
        the most common responses skip that work. Every field is set here;
        a test compares the result with the ``__init__``-built equivalent.
        """
        response = object.__new__(cls)
        set_field = object.__setattr__
        set_field(response, "content", content)
        set_field(response, "structured_content", UNSET)
        set_field(response, "meta", _NO_META)
        set_field(response, "is_error", is_error)
        set_field(response, "role", "user")
        set_field(response, "progress_update", None)
        set_field(response, "raw_value", UNSET)
        return response

    @classmethod
    def text(cls, value: str) -> McpResponse:
        """Return a response holding one text block."""
        if not isinstance(value, str):
            raise TypeError(
                f"McpResponse.text() takes a str, got {type(value).__name__}; use structured() for data."
            )
        # A str subclass (Django's SafeString from render_to_string) becomes
        # a plain str: the wire encoder takes no subclass.
        return cls._of_blocks((TextContent(text=str.__str__(value)),))

    @classmethod
    def structured(cls, value: Any) -> McpResponse:
        """Return structured content plus a text block with its compact JSON."""
        normalized = _freeze(to_json_value(value))
        text = _json_encoder.encode(normalized).decode()
        return cls(
            content=(TextContent(text=text),),
            structured_content=normalized,
            raw_value=normalized,
        )

    @classmethod
    def image(cls, value: bytes | bytearray | memoryview, mime_type: str) -> McpResponse:
        """Return an image block; ``value`` is the original (not Base64) bytes."""
        data = _base64_once(value, "image")
        _check_mime(mime_type, "image")
        return cls(content=(ImageContent(data=data, mime_type=mime_type),))

    @classmethod
    def audio(cls, value: bytes | bytearray | memoryview, mime_type: str) -> McpResponse:
        """Return an audio block; ``value`` is the original (not Base64) bytes."""
        data = _base64_once(value, "audio")
        _check_mime(mime_type, "audio")
        return cls(content=(AudioContent(data=data, mime_type=mime_type),))

    @classmethod
    def resource(cls, uri: str, value: Any, mime_type: str | None = None) -> McpResponse:
        """Return an embedded resource, encoded according to ``mime_type``."""
        _check_uri(uri, "McpResponse.resource()")
        return cls(content=(EmbeddedResource(resource=encode_resource(uri, value, mime_type)),))

    @classmethod
    def resourceLink(  # noqa: N802
        cls,
        uri: str,
        name: str,
        *,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        icons: Iterable[Icon] | None = None,
    ) -> McpResponse:
        """Return a link to a resource; the target is neither read nor checked."""
        _check_uri(uri, "McpResponse.resourceLink()")
        if not isinstance(name, str) or not name:
            raise ValueError(f"McpResponse.resourceLink() needs a non-empty name, got {name!r}")
        if mime_type is not None:
            _check_mime(mime_type, None)
        if size is not None and (type(size) is not int or size < 0):
            raise ValueError(f"resource link size must be a non-negative int, got {size!r}")
        link = ResourceLink(
            uri=uri,
            name=name,
            title=_opt(title),
            description=_opt(description),
            mime_type=_opt(mime_type),
            size=UNSET if size is None else size,
            icons=UNSET if icons is None else tuple(icons),
        )
        return cls(content=(link,))

    @classmethod
    def error(cls, message: str) -> McpResponse:
        """Return an expected tool failure (``isError: true``)."""
        if not isinstance(message, str) or not message:
            raise ValueError(f"McpResponse.error() needs a non-empty message, got {message!r}")
        return cls._of_blocks((TextContent(text=str.__str__(message)),), is_error=True)

    @classmethod
    def progress(cls, current: float, total: float | None = None, message: str | None = None) -> McpResponse:
        """Return a progress update for a generator handler to yield."""
        for label, number in (("current", current), ("total", total)):
            if number is None and label == "total":
                continue
            if isinstance(number, bool) or not isinstance(number, int | float):
                raise TypeError(f"progress {label} must be a number, got {number!r}")
            if not math.isfinite(number) or number < 0:
                raise ValueError(f"progress {label} must be finite and >= 0, got {number!r}")
        if message is not None and not isinstance(message, str):
            raise TypeError(f"progress message must be a str, got {message!r}")
        return cls(progress_update=Progress(current, total, message))

    # ---------------------------------------------------------- modifiers

    def withMeta(self, meta: Mapping[str, Any]) -> McpResponse:  # noqa: N802
        """Return a copy whose result ``_meta`` also holds ``meta``."""
        check_meta_keys(meta)
        return dataclasses.replace(self, meta={**self.meta, **to_json_value(dict(meta))})

    def withContentMeta(self, meta: Mapping[str, Any]) -> McpResponse:  # noqa: N802
        """Return a copy where every content block's ``_meta`` holds ``meta``."""
        check_meta_keys(meta)
        extra = to_json_value(dict(meta))
        blocks = tuple(
            msgspec.structs.replace(
                block, meta=_freeze({**(block.meta if block.meta is not UNSET else {}), **extra})
            )
            for block in self.content
        )
        return dataclasses.replace(self, content=blocks)

    def withAnnotations(self, annotations: ContentAnnotations) -> McpResponse:  # noqa: N802
        """Return a copy where every content block carries ``annotations``."""
        if not isinstance(annotations, ContentAnnotations):
            raise TypeError(f"withAnnotations() takes ContentAnnotations, got {type(annotations).__name__}")
        wire: Annotations = annotations.to_wire()
        blocks = tuple(msgspec.structs.replace(block, annotations=wire) for block in self.content)
        return dataclasses.replace(self, content=blocks)

    def asUser(self) -> McpResponse:  # noqa: N802
        """Return a copy whose prompt messages have the ``user`` role."""
        return dataclasses.replace(self, role="user")

    def asAssistant(self) -> McpResponse:  # noqa: N802
        """Return a copy whose prompt messages have the ``assistant`` role."""
        return dataclasses.replace(self, role="assistant")

    @property
    def has_structured(self) -> bool:
        """Return True when this response carries structured content."""
        return self.structured_content is not UNSET


# -------------------------------------------------------------- helpers


def to_json_value(value: Any) -> Any:
    """Return ``value`` as plain JSON builtins, or raise ``ValueError``.

    msgspec does the normalization (so aliases, tags and omitted defaults of
    Structs are honoured); bytes are kept as-is by msgspec so that the walk
    below can refuse them instead of silently Base64-encoding them.
    """
    try:
        normalized = msgspec.to_builtins(value, builtin_types=_BINARY)
    except TypeError as exc:
        raise ValueError(f"structured content is not JSON-serializable: {exc}") from None
    return _check_json(normalized, "$")


def _check_json(value: Any, path: str) -> Any:
    """Return ``value`` with tuples as lists; raise for anything not JSON."""
    if isinstance(value, str) or value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"structured content at {path} is not a finite number: {value!r}")
        return value
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"structured content at {path} has a non-string key: {key!r}")
            checked = _check_json(item, f"{path}.{key}")
            if checked is not item:
                value[key] = checked  # a fresh dict from to_builtins: safe to update
        return value
    if isinstance(value, list | tuple):
        items = [_check_json(item, f"{path}[{index}]") for index, item in enumerate(value)]
        if isinstance(value, list) and all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return items
    if isinstance(value, _BINARY):
        raise ValueError(
            f"structured content at {path} holds binary data; use resource() with "
            "a binary MIME type, image() or audio() instead"
        )
    raise ValueError(f"structured content at {path} has unsupported type {type(value).__name__}")


def mime_family(mime_type: str | None) -> Literal["json", "msgpack", "other", "none"]:
    """Return the codec family of ``mime_type`` (case and parameters ignored)."""
    if mime_type is None:
        return "none"
    essence = mime_type.split(";", 1)[0].strip().lower()
    kind, _, subtype = essence.partition("/")
    if essence == "application/json" or (kind == "application" and subtype.endswith("+json")):
        return "json"
    if kind == "application" and (subtype in _MSGPACK_SUBTYPES or subtype.endswith("+msgpack")):
        return "msgpack"
    return "other"


def encode_resource(
    uri: str, value: Any, mime_type: str | None, *, as_data: bool = False
) -> TextResourceContents | BlobResourceContents:
    """Return resource contents for ``value`` encoded per its MIME type.

    ``as_data`` marks ``value`` as already-normalized structured data, so a
    ``str`` is a JSON string value rather than encoded text.
    """
    if mime_type is not None:
        _check_mime(mime_type, None)
    family = mime_family(mime_type)
    mime = _opt(mime_type)
    if as_data:
        if family == "msgpack":
            packed = _msgpack_encoder.encode(value)
            return BlobResourceContents(uri=uri, blob=base64.b64encode(packed).decode(), mime_type=mime)
        if family in ("json", "none"):
            text = _json_encoder.encode(value).decode()
            return TextResourceContents(uri=uri, text=text, mime_type=mime_type or "application/json")
        raise ValueError(
            f"resource {uri!r}: structured data cannot be published as {mime_type}; "
            "return text or bytes instead"
        )
    if isinstance(value, _BINARY):
        # Binary buffers are already encoded: keep the bytes, Base64 once.
        return BlobResourceContents(uri=uri, blob=base64.b64encode(value).decode(), mime_type=mime)
    if family == "msgpack":
        packed = _msgpack_encoder.encode(value if isinstance(value, str) else to_json_value(value))
        return BlobResourceContents(uri=uri, blob=base64.b64encode(packed).decode(), mime_type=mime)
    if isinstance(value, str):
        if family == "json":
            try:
                msgspec.json.decode(value)
            except msgspec.DecodeError:
                raise ValueError(
                    f"resource {uri!r}: text declared as {mime_type} is not valid JSON"
                ) from None
        return TextResourceContents(uri=uri, text=value, mime_type=mime)
    if family in ("json", "none"):
        text = _json_encoder.encode(to_json_value(value)).decode()
        return TextResourceContents(uri=uri, text=text, mime_type=mime_type or "application/json")
    raise ValueError(
        f"resource {uri!r}: {mime_type} content must be str or bytes, got "
        f"{type(value).__name__}; only JSON and MessagePack MIME types encode data"
    )


def check_meta_keys(meta: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` for malformed or reserved application ``_meta`` keys."""
    if not isinstance(meta, Mapping):
        raise TypeError(f"metadata must be a mapping, got {type(meta).__name__}")
    for key in meta:
        if not isinstance(key, str) or not _META_KEY_RE.match(key):
            raise ValueError(f"invalid _meta key {key!r}: use a reverse-DNS prefix like 'com.example/name'")
        if key in _RESERVED_UNPREFIXED or _is_reserved_prefix(key):
            raise ValueError(f"_meta key {key!r} is reserved by the MCP protocol")


def _is_reserved_prefix(key: str) -> bool:
    # MCP 2026-07-28 basic/index: prefixes whose second label is
    # "modelcontextprotocol" or "mcp" are reserved (io.modelcontextprotocol/,
    # dev.mcp/ ...).
    prefix, slash, _ = key.partition("/")
    if not slash:
        return False
    labels = prefix.split(".")
    return len(labels) >= 2 and labels[1].lower() in ("modelcontextprotocol", "mcp")


def merge_meta(responses: Iterable[McpResponse]) -> dict[str, Any]:
    """Return the union of the responses' result metadata.

    Values are compared as JSON values (see ``json_equal``); of two equal
    values the later one is kept.

    Raises:
        ValueError: two responses give one key different values.
    """
    merged: dict[str, Any] = {}
    for response in responses:
        for key, value in response.meta.items():
            if key in merged and not json_equal(merged[key], value):
                raise ValueError(f"conflicting values for result _meta key {key!r}")
            merged[key] = value
    return merged


def json_equal(left: Any, right: Any) -> bool:
    """Return True when two JSON values are the same JSON value.

    Unlike ``==``, a boolean never equals a number (``True`` vs ``1``) and
    containers are compared recursively with the same rule. Object key order
    is irrelevant, array order matters, and an int equals the float of the
    same value (``1`` and ``1.0``: JSON has a single number type).
    """
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, int | float) or isinstance(right, int | float):
        return isinstance(left, int | float) and isinstance(right, int | float) and left == right
    if isinstance(left, str) or isinstance(right, str):
        return isinstance(left, str) and isinstance(right, str) and left == right
    if isinstance(left, Mapping) or isinstance(right, Mapping):
        return (
            isinstance(left, Mapping)
            and isinstance(right, Mapping)
            and left.keys() == right.keys()
            and all(json_equal(item, right[key]) for key, item in left.items())
        )
    if isinstance(left, list | tuple) or isinstance(right, list | tuple):
        return (
            isinstance(left, list | tuple)
            and isinstance(right, list | tuple)
            and len(left) == len(right)
            and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
        )
    return left is None and right is None


def _base64_once(value: Any, what: str) -> str:
    if isinstance(value, str):
        raise TypeError(
            f"McpResponse.{what}() takes the original bytes, not a str; it Base64-encodes them itself"
        )
    if not isinstance(value, _BINARY):
        raise TypeError(f"McpResponse.{what}() takes bytes, got {type(value).__name__}")
    return base64.b64encode(value).decode()


def _check_mime(mime_type: Any, kind: str | None) -> None:
    if not isinstance(mime_type, str) or not _MIME_RE.match(mime_type.split(";", 1)[0].strip()):
        raise ValueError(f"invalid MIME type {mime_type!r}")
    if kind is not None and not mime_type.lower().startswith(f"{kind}/"):
        raise ValueError(f"McpResponse.{kind}() needs an {kind}/* MIME type, got {mime_type!r}")


_URI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S*$")


def _check_uri(uri: Any, where: str) -> None:
    if not isinstance(uri, str) or not _URI_RE.match(uri):
        raise ValueError(f"{where} needs an absolute URI with a scheme, got {uri!r}")


def _opt(value: str | None) -> str | UnsetType:
    return UNSET if value is None else value
