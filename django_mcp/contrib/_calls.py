"""What the admin and DRF tool factories share: names, inner requests, pages, values.

* **Names.** A generated tool is ``<prefix>-<action>`` with ``_`` written as
  ``-``; its class is named after it (``admin-book-list`` ->
  ``AdminBookListTool``) and lives in the module of the class it wraps, so
  the admin catalog and error messages name it readably.
* **The inner request.** The wrapped admin or ViewSet code receives a real
  Django ``HttpRequest`` built in-process (no HTTP loopback) whose ``user``
  is the MCP caller (``AnonymousUser`` when there is none). Host, port,
  scheme, client address, ``Accept-Language`` and ``Authorization`` are
  copied from the MCP HTTP request when there is one (STDIO and the test
  client have none: the host is then ``localhost``).
* **Pages.** List tools take ``cursor`` and ``page_size``; cursors are the
  server's own signed cursors (``django_mcp.cursors``), bound to the tool,
  its search text and the server, so a cursor of another listing is refused.
  ``page_size`` defaults to ``MCP_DEFAULT_PAGE_SIZE`` and is capped by
  ``MCP_MAX_PAGE_SIZE``.
* **Schemas.** Inputs and outputs are generated ``Schema`` classes: msgspec
  validates the arguments and publishes their JSON Schema, with no
  ``jsonschema`` dependency. Their attributes are ``f0``, ``f1``... renamed
  to the field names, so a field may be called like a ``Schema`` method.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import io
import json
import re
import types
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Final, Literal

import msgspec
from django.db import models
from django.db.models.fields.files import FieldFile
from django.utils.functional import Promise

from django_mcp.conf import get_limits
from django_mcp.cursors import decode_cursor, encode_cursor
from django_mcp.exceptions import InvalidParams
from django_mcp.field_errors import field_errors_result
from django_mcp.request import McpRequest
from django_mcp.response import McpResponse
from django_mcp.schemas import Schema

__all__ = [
    "GENERAL_ERRORS",
    "INVALID_INPUT",
    "REQUIRED",
    "Page",
    "bad_cursor",
    "build_schema",
    "caller",
    "class_name",
    "field_errors",
    "inner_request",
    "json_value",
    "list_of",
    "literal",
    "page_fields",
    "pk_type",
    "read_page",
    "schema_values",
    "tool_name",
    "validation_errors",
    "with_next_cursor",
]

REQUIRED: Final = object()
"""The default of a ``build_schema`` field that has none: the field is required."""

# META keys of the MCP HTTP request the inner request keeps: where the
# call came from and how it was authenticated, nothing of its body.
_COPIED_META: Final = (
    "HTTP_HOST",
    "SERVER_NAME",
    "SERVER_PORT",
    "REMOTE_ADDR",
    "HTTP_ACCEPT_LANGUAGE",
    "HTTP_AUTHORIZATION",
    "HTTP_USER_AGENT",
)


def tool_name(prefix: str, action: str) -> str:
    """Return ``<prefix>-<action>``, with ``_`` in the action written as ``-``."""
    return f"{prefix}-{action.replace('_', '-')}"


def class_name(name: str) -> str:
    """Return the class name of the tool called ``name`` (``admin-book-list`` -> ``AdminBookListTool``)."""
    words = [word for word in re.split(r"[^A-Za-z0-9]+", name) if word]
    return "".join(word[:1].upper() + word[1:] for word in words) + "Tool"


def caller(request: McpRequest) -> Any:
    """Return the MCP caller as a Django user: ``AnonymousUser`` when there is none."""
    user = request.user
    if user is None:
        from django.contrib.auth.models import AnonymousUser

        return AnonymousUser()
    return user


def inner_request(
    request: McpRequest, method: str, *, body: bytes = b"", content_type: str = "", query: str = ""
) -> Any:
    """Return a Django ``HttpRequest`` for the wrapped code, made by the caller.

    It is a ``WSGIRequest`` built from an in-process environ, the way
    Django's own request factory builds one; ``user`` is ``caller(request)``.
    """
    from django.core.handlers.wsgi import WSGIRequest

    outer = request.http_request
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "PATH_INFO": getattr(outer, "path_info", None) or "/",
        "SCRIPT_NAME": "",
        "QUERY_STRING": query,
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
    }
    if outer is not None:
        meta = getattr(outer, "META", {})
        for key in _COPIED_META:
            value = meta.get(key)
            if isinstance(value, str):
                environ[key] = value
        if getattr(outer, "scheme", None) in ("http", "https"):
            environ["wsgi.url_scheme"] = outer.scheme
    inner = WSGIRequest(environ)
    inner.user = caller(request)
    return inner


# ------------------------------------------------------------------ pages


@dataclasses.dataclass(frozen=True, slots=True)
class Page:
    """Where one page of a list tool starts, how long it is, and its listing."""

    offset: int
    size: int
    listing: str
    catalog: str

    def next_cursor(self) -> str:
        """Return the cursor of the page after this one."""
        return encode_cursor(self.listing, self.catalog, self.offset + self.size)


def read_page(request: McpRequest, tool: str, search: str, cursor: Any, page_size: Any) -> Page:
    """Return the page a list call asks for.

    Raises:
        InvalidParams: the cursor is not one this tool gave for this search.
    """
    limits = get_limits()
    size = limits.default_page_size if page_size is None else page_size
    size = max(1, min(size, limits.max_page_size))
    # The listing is the tool and its search: a cursor never jumps lists.
    listing = json.dumps(["tools/call", tool, search])
    catalog = str(getattr(request.server, "key", ""))
    offset = 0 if cursor is None else decode_cursor(cursor, listing, catalog)
    return Page(offset=offset, size=size, listing=listing, catalog=catalog)


def with_next_cursor(page: Page, rows: Sequence[Any], results: list[Any]) -> McpResponse:
    """Return ``{"results": ..., "nextCursor": ...}`` for one page.

    ``rows`` holds up to ``page.size + 1`` rows: one more than the page
    says there is a next page, without counting the whole listing.
    """
    following = page.next_cursor() if len(rows) > page.size else None
    return McpResponse.structured({"results": results, "nextCursor": following})


def page_fields(*, search: bool) -> list[tuple[str, Any, Any]]:
    """Return the ``build_schema`` fields of a list tool's arguments."""
    fields: list[tuple[str, Any, Any]] = []
    if search:
        fields.append(("search", Annotated[str, msgspec.Meta(description="Text to search for.")], ""))
    fields += [
        (
            "cursor",
            Annotated[str, msgspec.Meta(description="The nextCursor of the previous page.")] | None,
            None,
        ),
        (
            "page_size",
            Annotated[
                int, msgspec.Meta(ge=1, description="Results per page (capped by the server's maximum).")
            ]
            | None,
            None,
        ),
    ]
    return fields


def bad_cursor(exc: InvalidParams) -> McpResponse:
    """Return the tool error for a cursor this listing did not give."""
    return McpResponse.error("Invalid cursor: start again without one.")


# ---------------------------------------------------------------- schemas


def build_schema(
    name: str, *, module: str, doc: str | None, fields: Iterable[tuple[str, Any, Any]], closed: bool = True
) -> type[Schema]:
    """Return a ``Schema`` subclass with ``fields``: ``(JSON name, type, default or REQUIRED)``.

    ``closed=False`` accepts fields besides these (a result whose code may
    add some for one caller).
    """
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {"__module__": module, "__qualname__": name, "__doc__": doc}
    for index, (json_name, annotation, default) in enumerate(fields):
        attribute = f"f{index}"
        annotations[attribute] = annotation
        if default is REQUIRED:
            namespace[attribute] = msgspec.field(name=json_name)
        else:
            namespace[attribute] = msgspec.field(default=default, name=json_name)
    namespace["__annotations__"] = annotations
    schema: type[Schema] = types.new_class(
        name, (Schema,), {} if closed else {"forbid_unknown_fields": False}, lambda ns: ns.update(namespace)
    )
    return schema


def schema_values(payload: Any) -> dict[str, Any]:
    """Return the arguments a generated ``Schema`` instance holds, by JSON name.

    Fields the caller left out (``UNSET``) are not in the result.
    """
    values: dict[str, Any] = {}
    for info in msgspec.structs.fields(payload):
        value = getattr(payload, info.name)
        if value is not msgspec.UNSET:
            values[info.encode_name] = value
    return values


def list_of(item: Any) -> Any:
    """Return the type ``list[item]`` of an item type known only at run time."""
    return types.GenericAlias(list, (item,))


def literal(values: Iterable[Any]) -> Any:
    """Return ``Literal[...]`` of ``values`` (an enum in the JSON Schema)."""
    return Literal.__getitem__(tuple(values))


def pk_type(model: type[models.Model]) -> Any:
    """Return the JSON type of ``model``'s primary key: int for integer keys, else str."""
    field: Any = model._meta.pk
    while field is not None and field.is_relation:  # a one-to-one parent link
        field = field.target_field
    if isinstance(field, models.IntegerField | models.AutoField):
        return int
    if isinstance(field, models.UUIDField):
        return Annotated[str, msgspec.Meta(extra_json_schema={"format": "uuid"})]
    return str


# ----------------------------------------------------------------- values


def json_value(value: Any) -> Any:
    """Return ``value`` as JSON data: dates ISO 8601, decimals and UUIDs as strings."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return str(value)
    if isinstance(value, decimal.Decimal | uuid.UUID | Promise):
        return str(value)
    if isinstance(value, FieldFile):
        return value.name or None
    if isinstance(value, models.Model):
        return json_value(value.pk)
    if isinstance(value, Mapping):
        return {str(key): json_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_value(item) for item in value]
    return str(value)


#: Error keys that belong to no field: Django's NON_FIELD_ERRORS and DRF's
#: defaults (a project's NON_FIELD_ERRORS_KEY is added where DRF is read).
GENERAL_ERRORS: Final = frozenset({"__all__", "non_field_errors", "detail"})

INVALID_INPUT: Final = "Invalid input:"
"""The first line of the answer to a form's or serializer's field errors."""


def field_errors(
    errors: Mapping[str, Sequence[Any]], *, general: Iterable[str] = GENERAL_ERRORS
) -> McpResponse:
    """Return the ``isError`` result of a form's, a serializer's or a model's errors.

    Errors naming fields are answered as argument errors are
    (``field_errors_result``): the text lists every problem, and
    ``structuredContent`` is ``{"errors": {"field": ["message", ...]}}``,
    where a ``general`` key (``__all__``, ``non_field_errors``) is ``""``,
    the whole input. Errors of no field only (not found, permission
    denied) are their messages, as plain text.
    """
    general = frozenset(general)
    shaped: dict[str, list[str]] = {}
    for field, messages in errors.items():
        key = "" if field in general else str(field)
        shaped.setdefault(key, []).extend(" ".join(str(message).split()) for message in messages)
    if set(shaped) <= {""}:
        return McpResponse.error("\n".join(shaped.get("", ())) or "The request failed.")
    return field_errors_result(shaped, prefix=INVALID_INPUT)


def validation_errors(exc: Any) -> dict[str, list[str]]:
    """Return a Django ``ValidationError``'s messages by field (``__all__`` for the others)."""
    if hasattr(exc, "error_dict"):
        return {field: list(messages) for field, messages in exc.message_dict.items()}
    return {"__all__": list(exc.messages)}
