"""Tests for django_mcp.response: McpResponse builders, codecs and metadata.

The second half serves responses through the real dispatcher, because how a
tool, a resource and a prompt shape what a handler returns
(``django_mcp._shape``, ``django_mcp._methods``) is part of McpResponse's
documented behaviour (docs/responses.md).
"""

import asyncio
import base64
import copy
import dataclasses
import datetime
import decimal
import enum
import pickle
import uuid
from typing import Any, NamedTuple

import msgspec
import pytest
from django.core.signals import got_request_exception
from django.http import HttpResponse
from django.utils.safestring import mark_safe

from django_mcp import ContentAnnotations, McpResponse, Prompt, PromptArgument, Resource, Server, Tool
from django_mcp.protocol.content import (
    Annotations,
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from django_mcp.protocol.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND
from django_mcp.protocol.results import CallToolResult, GetPromptResult, ReadResourceResult
from django_mcp.response import merge_meta
from django_mcp.schemas import Schema, rule
from tests.wire import call

SERVER_INFO = {"io.modelcontextprotocol/serverInfo": {"name": "django-mcp", "version": "0.1.0"}}
TOOL_FAILED = {
    "resultType": "complete",
    "_meta": SERVER_INFO,
    "content": [{"type": "text", "text": "Tool execution failed"}],
    "isError": True,
}


def tool_server(handle: Any, *, output: Any = None) -> type[Server]:
    """Return a server with one tool named "t" whose handle() is ``handle``."""
    tool = type("T", (Tool,), {"name": "t", "output": output, "handle": handle})
    return type("ToolServer", (Server,), {"tools": (tool,)})


def resource_server(handle: Any, *, mime_type: str | None = None) -> type[Server]:
    """Return a server with one resource at "demo://r" whose handle() is ``handle``."""
    resource = type("R", (Resource,), {"uri": "demo://r", "mime_type": mime_type, "handle": handle})
    return type("ResourceServer", (Server,), {"resources": (resource,)})


def prompt_server(handle: Any) -> type[Server]:
    """Return a server with one prompt named "p" whose handle() is ``handle``."""
    prompt = type("P", (Prompt,), {"name": "p", "handle": handle})
    return type("PromptServer", (Server,), {"prompts": (prompt,)})


async def call_tool(server: type[Server]) -> Any:
    return await call(server, "tools/call", {"name": "t"})


async def read(server: type[Server]) -> Any:
    return await call(server, "resources/read", {"uri": "demo://r"})


async def get_prompt(server: type[Server]) -> Any:
    return await call(server, "prompts/get", {"name": "p"})


def fails_internally(reply: Any) -> bool:
    return "result" not in reply and reply["error"]["code"] == INTERNAL_ERROR


# -- text, error, resourceLink ---------------------------------------------------


def test_text_holds_one_text_block() -> None:
    assert McpResponse.text("hi").content == (TextContent(text="hi"),)


def test_text_refuses_anything_but_a_string() -> None:
    with pytest.raises(TypeError):
        McpResponse.text({"a": 1})  # type: ignore[arg-type]


def test_text_and_error_keep_a_str_subclass_as_a_plain_str() -> None:
    # render_to_string() returns a SafeString, which the wire encoder refuses.
    for response in (McpResponse.text(mark_safe("<p>hi</p>")), McpResponse.error(mark_safe("<p>hi</p>"))):
        [block] = response.content
        assert type(block.text) is str
        assert msgspec.json.encode(block) == b'{"type":"text","text":"<p>hi</p>"}'


def test_error_is_a_text_block_flagged_as_error() -> None:
    response = McpResponse.error("Order not found.")
    assert response.content == (TextContent(text="Order not found."),)
    assert response.is_error is True


@pytest.mark.parametrize(
    ("built", "expected"),
    [
        (McpResponse.text("hi"), McpResponse(content=(TextContent(text="hi"),))),
        (McpResponse.error("no"), McpResponse(content=(TextContent(text="no"),), is_error=True)),
    ],
)
def test_text_and_error_equal_responses_built_field_by_field(
    built: McpResponse, expected: McpResponse
) -> None:
    # They skip __post_init__: every field must still be set, to its default.
    for field in dataclasses.fields(McpResponse):
        assert getattr(built, field.name) == getattr(expected, field.name), field.name
    assert built == expected
    assert hash(built.content) == hash(expected.content)
    with pytest.raises(TypeError):
        built.meta["key"] = "value"  # type: ignore[index]


def test_resource_link_carries_its_catalog_fields() -> None:
    response = McpResponse.resourceLink(
        "reports://latest",
        "latest-report",
        title="Latest report",
        description="Read the complete report.",
        mime_type="application/json",
    )
    assert response.content == (
        ResourceLink(
            uri="reports://latest",
            name="latest-report",
            title="Latest report",
            description="Read the complete report.",
            mime_type="application/json",
        ),
    )


def test_progress_builds_an_update_without_content() -> None:
    response = McpResponse.progress(1, 3, "one of three")
    assert response.content == ()
    assert (response.progress_update.current, response.progress_update.total) == (1, 3)
    assert response.progress_update.message == "one of three"


# -- immutability ----------------------------------------------------------------


def test_response_cannot_be_changed_in_place() -> None:
    response = McpResponse.text("hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        response.meta = {"example.org/k": 1}  # type: ignore[misc]


@pytest.mark.parametrize(
    "modify",
    [
        lambda r: r.withMeta({"example.org/trace": "x"}),
        lambda r: r.withContentMeta({"example.org/source": "x"}),
        lambda r: r.withAnnotations(ContentAnnotations(priority=0.5)),
        lambda r: r.asUser(),
        lambda r: r.asAssistant(),
    ],
    ids=["withMeta", "withContentMeta", "withAnnotations", "asUser", "asAssistant"],
)
def test_modifiers_return_a_new_response_and_leave_the_original_alone(modify: Any) -> None:
    original = McpResponse.structured({"order_id": 42})
    before = copy.deepcopy(original)
    modified = modify(original)
    assert modified is not original
    assert original == before
    assert original.meta == {}
    assert original.content[0].meta is msgspec.UNSET
    assert original.content[0].annotations is msgspec.UNSET


def test_with_meta_adds_result_metadata() -> None:
    response = McpResponse.text("hi").withMeta({"example.org/a": 1}).withMeta({"example.org/b": 2})
    assert response.meta == {"example.org/a": 1, "example.org/b": 2}
    assert response.content == (TextContent(text="hi"),)


def test_with_content_meta_adds_metadata_to_each_block() -> None:
    response = McpResponse.text("hi").withContentMeta({"example.org/source": "orders"})
    assert response.content == (TextContent(text="hi", meta={"example.org/source": "orders"}),)
    assert response.meta == {}


def test_with_annotations_sets_audience_priority_and_last_modified_on_each_block() -> None:
    response = McpResponse.image(b"\x89PNG", "image/png").withAnnotations(
        ContentAnnotations(audience=("user", "assistant"), priority=1, last_modified="2026-10-21T12:00:00Z")
    )
    assert response.content[0].annotations == Annotations(
        audience=("user", "assistant"), priority=1.0, last_modified="2026-10-21T12:00:00Z"
    )


def test_with_annotations_refuses_a_plain_dict() -> None:
    with pytest.raises(TypeError):
        McpResponse.text("hi").withAnnotations({"priority": 0.5})  # type: ignore[arg-type]


def test_role_defaults_to_user_and_as_assistant_switches_it() -> None:
    response = McpResponse.text("hi")
    assert response.role == "user"
    assert response.asAssistant().role == "assistant"
    assert response.asAssistant().asUser().role == "user"


def built_response() -> McpResponse:
    """Return a response whose every JSON part has nested objects and arrays."""
    return (
        McpResponse.structured({"order": {"lines": [{"sku": "A-1"}], "tags": ["new"]}})
        .withMeta({"example.org/trace": {"ids": [1, 2]}})
        .withContentMeta({"example.org/source": {"tables": ["orders"]}})
    )


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.meta.__setitem__("example.org/new", 1),
        lambda r: r.meta.__delitem__("example.org/trace"),
        lambda r: r.meta.update({"example.org/new": 1}),
        lambda r: r.meta.setdefault("example.org/new", 1),
        lambda r: r.meta.pop("example.org/trace"),
        lambda r: r.meta.popitem(),
        lambda r: r.meta.clear(),
        lambda r: r.meta.__ior__({"example.org/new": 1}),
        lambda r: r.meta["example.org/trace"].__setitem__("ids", []),
        lambda r: r.meta["example.org/trace"]["ids"].append(3),
        lambda r: r.structured_content.__setitem__("order", None),
        lambda r: r.structured_content["order"]["lines"][0].__setitem__("sku", "B-2"),
        lambda r: r.structured_content["order"]["lines"].extend([{}]),
        lambda r: r.structured_content["order"]["tags"].__setitem__(0, "old"),
        lambda r: r.structured_content["order"]["tags"].__iadd__(["old"]),
        lambda r: r.structured_content["order"]["tags"].__imul__(2),
        lambda r: r.structured_content["order"]["tags"].insert(0, "old"),
        lambda r: r.structured_content["order"]["tags"].remove("new"),
        lambda r: r.structured_content["order"]["tags"].sort(),
        lambda r: r.structured_content["order"]["tags"].reverse(),
        lambda r: r.structured_content["order"]["tags"].clear(),
        lambda r: r.structured_content["order"]["tags"].__delitem__(0),
        lambda r: r.raw_value["order"].pop("tags"),
        lambda r: r.content[0].meta["example.org/source"]["tables"].append("users"),
        lambda r: r.content[0].meta.__setitem__("example.org/new", 1),
    ],
    ids=[
        "meta-setitem",
        "meta-delitem",
        "meta-update",
        "meta-setdefault",
        "meta-pop",
        "meta-popitem",
        "meta-clear",
        "meta-ior",
        "nested-meta-object",
        "nested-meta-array",
        "structured-setitem",
        "structured-object-in-array",
        "structured-array-extend",
        "structured-array-setitem",
        "structured-array-iadd",
        "structured-array-imul",
        "structured-array-insert",
        "structured-array-remove",
        "structured-array-sort",
        "structured-array-reverse",
        "structured-array-clear",
        "structured-array-delitem",
        "raw-value",
        "content-meta-nested-array",
        "content-meta-setitem",
    ],
)
def test_a_built_response_cannot_be_changed_through_its_json_values(mutate: Any) -> None:
    response = built_response()
    with pytest.raises(TypeError):
        mutate(response)
    assert response == built_response()


def test_changing_the_values_a_response_was_built_from_does_not_change_it() -> None:
    value = {"order": {"lines": [{"sku": "A-1"}]}}
    meta = {"example.org/trace": {"ids": [1, 2]}}
    block_meta = {"example.org/source": {"tables": ["orders"]}}
    response = McpResponse.structured(value).withMeta(meta).withContentMeta(block_meta)
    value["order"]["lines"][0]["sku"] = "B-2"
    value["order"]["lines"].append({"sku": "C-3"})
    meta["example.org/trace"]["ids"].append(3)
    meta["example.org/other"] = {}
    block_meta["example.org/source"]["tables"].clear()
    assert response.structured_content == {"order": {"lines": [{"sku": "A-1"}]}}
    assert response.raw_value == {"order": {"lines": [{"sku": "A-1"}]}}
    assert response.meta == {"example.org/trace": {"ids": [1, 2]}}
    assert response.content[0].meta == {"example.org/source": {"tables": ["orders"]}}


def test_read_only_values_compare_copy_and_encode_like_plain_json() -> None:
    response = built_response()
    plain = {"order": {"lines": [{"sku": "A-1"}], "tags": ["new"]}}
    assert response.structured_content == plain
    assert msgspec.json.encode(response.structured_content) == msgspec.json.encode(plain)
    assert msgspec.msgpack.encode(response.raw_value) == msgspec.msgpack.encode(plain)
    assert msgspec.to_builtins(response.structured_content) == plain
    assert type(msgspec.to_builtins(response.structured_content)["order"]["tags"]) is list
    assert copy.deepcopy(response) == response
    assert pickle.loads(pickle.dumps(response)) == response
    with pytest.raises(TypeError):
        pickle.loads(pickle.dumps(response)).meta["example.org/trace"]["ids"].append(3)


# -- ContentAnnotations -----------------------------------------------------------------


@pytest.mark.parametrize("priority", [0, 0.0, 0.5, 1, 1.0])
def test_content_annotations_accept_a_priority_between_0_and_1(priority: float) -> None:
    assert ContentAnnotations(priority=priority).to_wire() == Annotations(priority=float(priority))


@pytest.mark.parametrize("priority", [-0.01, 1.01, 2, float("nan"), float("inf"), True, "0.5"])
def test_content_annotations_refuse_a_priority_outside_0_and_1(priority: Any) -> None:
    with pytest.raises(ValueError):
        ContentAnnotations(priority=priority)


@pytest.mark.parametrize("audience", [("system",), "user"])
def test_content_annotations_refuse_an_audience_other_than_user_or_assistant(audience: Any) -> None:
    with pytest.raises(ValueError):
        ContentAnnotations(audience=audience)


def test_content_annotations_refuse_a_last_modified_that_is_not_iso_8601() -> None:
    with pytest.raises(ValueError):
        ContentAnnotations(last_modified="yesterday")


def test_content_annotations_encode_as_audience_priority_and_last_modified() -> None:
    annotations = ContentAnnotations(
        audience=("assistant",), priority=0.8, last_modified="2026-10-21T12:00:00Z"
    )
    assert msgspec.json.decode(msgspec.json.encode(annotations.to_wire())) == {
        "audience": ["assistant"],
        "priority": 0.8,
        "lastModified": "2026-10-21T12:00:00Z",
    }


# -- reserved metadata keys --------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        "io.modelcontextprotocol/serverInfo",
        "io.modelcontextprotocol/anything",
        "dev.mcp/trace",
        "org.modelcontextprotocol.api/x",
        "com.mcp.tools/x",
        "progressToken",
    ],
)
@pytest.mark.parametrize("builder", ["withMeta", "withContentMeta"])
def test_application_metadata_cannot_use_reserved_protocol_keys(key: str, builder: str) -> None:
    with pytest.raises(ValueError):
        getattr(McpResponse.text("hi"), builder)({key: "x"})


@pytest.mark.parametrize("key", ["bad key", "-x/name", "com.example/-name", "com..example/name", 42])
def test_metadata_keys_must_follow_the_meta_key_grammar(key: Any) -> None:
    with pytest.raises(ValueError):
        McpResponse.text("hi").withMeta({key: 1})


@pytest.mark.parametrize("value", [float("nan"), b"bytes", object()], ids=["nan", "bytes", "object"])
def test_metadata_values_must_be_json(value: Any) -> None:
    with pytest.raises(ValueError):
        McpResponse.text("hi").withMeta({"example.org/k": value})


def test_a_prefix_whose_second_label_is_not_reserved_is_allowed() -> None:
    response = McpResponse.text("hi").withMeta({"com.example.mcp/x": 1})
    assert response.meta == {"com.example.mcp/x": 1}


# -- structured ----------------------------------------------------------------------


def test_structured_keeps_json_and_adds_its_compact_text() -> None:
    response = McpResponse.structured({"status": "ok", "count": 2, "tags": ["a"], "none": None})
    assert response.structured_content == {"status": "ok", "count": 2, "tags": ["a"], "none": None}
    assert response.content == (TextContent(text='{"status":"ok","count":2,"tags":["a"],"none":null}'),)


@pytest.mark.parametrize("value", ["text", 3, 2.5, True, None, [1, "two"]])
def test_structured_accepts_every_json_type(value: Any) -> None:
    response = McpResponse.structured(value)
    assert response.structured_content == value
    assert response.content == (TextContent(text=msgspec.json.encode(value).decode()),)


class Color(enum.Enum):
    RED = "red"


class IntLevel(enum.IntEnum):
    HIGH = 3


class OrderLine(Schema, rename="camel"):
    line_no: int
    sku: str = msgspec.field(name="SKU")


class Event(msgspec.Struct, omit_defaults=True, tag="event", tag_field="kind"):
    name: str
    note: str = ""
    when: datetime.datetime | None = None


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


def test_structured_normalizes_schema_honouring_rename_and_aliases() -> None:
    response = McpResponse.structured(OrderLine(line_no=1, sku="AB-1"))
    assert response.structured_content == {"lineNo": 1, "SKU": "AB-1"}
    assert response.content == (TextContent(text='{"lineNo":1,"SKU":"AB-1"}'),)


def test_structured_normalizes_structs_honouring_tags_and_omitted_defaults() -> None:
    response = McpResponse.structured([Event(name="a"), Event(name="b", note="n")])
    assert response.structured_content == [
        {"kind": "event", "name": "a"},
        {"kind": "event", "name": "b", "note": "n"},
    ]


def test_structured_normalizes_dataclasses_enums_dates_uuids_and_decimals() -> None:
    value = {
        "point": Point(1),
        "color": Color.RED,
        "level": IntLevel.HIGH,
        "at": datetime.datetime(2026, 10, 21, 12, 0, tzinfo=datetime.UTC),
        "day": datetime.date(2026, 10, 21),
        "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "price": decimal.Decimal("42.50"),
    }
    assert McpResponse.structured(value).structured_content == {
        "point": {"x": 1, "y": 0},
        "color": "red",
        "level": 3,
        "at": "2026-10-21T12:00:00Z",
        "day": "2026-10-21",
        "id": "12345678-1234-5678-1234-567812345678",
        "price": "42.50",
    }


class Tagged(Schema):
    tags: tuple[str, ...] = ()


class Pair(NamedTuple):
    left: int
    right: int


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"pair": (1, 2)}, {"pair": [1, 2]}),
        (Tagged(tags=("a", "b")), {"tags": ["a", "b"]}),
        (Pair(1, 2), [1, 2]),
    ],
    ids=["tuple", "schema-tuple-field", "namedtuple"],
)
def test_structured_accepts_tuples_as_json_arrays(value: Any, expected: Any) -> None:
    # msgspec encodes every tuple as a JSON array, Schema/Struct fields included.
    response = McpResponse.structured(value)
    assert response.structured_content == expected
    assert response.content == (TextContent(text=msgspec.json.encode(expected).decode()),)


def test_structured_does_not_mutate_or_share_its_input() -> None:
    value = {"lines": [OrderLine(line_no=1, sku="A")], "meta": {"k": [1, 2]}}
    before = copy.deepcopy(value)
    response = McpResponse.structured(value)
    assert value == before
    value["meta"]["k"].append(3)
    assert response.structured_content == {"lines": [{"lineNo": 1, "SKU": "A"}], "meta": {"k": [1, 2]}}


@pytest.mark.parametrize(
    "value",
    [
        float("nan"),
        float("inf"),
        {"a": [1, float("-inf")]},
        {1: "a"},
        {"a": {(1, 2): "b"}},
        {"a": b"bytes"},
        [bytearray(b"x")],
        {"a": memoryview(b"x")},
        object(),
        {"a": object()},
    ],
    ids=[
        "nan",
        "inf",
        "nested-inf",
        "int-key",
        "tuple-key",
        "bytes",
        "bytearray",
        "memoryview",
        "object",
        "nested-object",
    ],
)
def test_structured_refuses_values_that_are_not_json(value: Any) -> None:
    with pytest.raises(ValueError):
        McpResponse.structured(value)


# -- image and audio -----------------------------------------------------------------


@pytest.mark.parametrize("raw", [b"\x89PNG\r\n", bytearray(b"\x89PNG\r\n"), memoryview(b"\x89PNG\r\n")])
def test_image_encodes_the_original_bytes_once_in_base64(raw: Any) -> None:
    assert McpResponse.image(raw, "image/png").content == (
        ImageContent(data=base64.b64encode(b"\x89PNG\r\n").decode(), mime_type="image/png"),
    )


def test_audio_encodes_the_original_bytes_once_in_base64() -> None:
    assert McpResponse.audio(b"RIFF....WAVE", "audio/wav").content == (
        AudioContent(data="UklGRi4uLi5XQVZF", mime_type="audio/wav"),
    )


@pytest.mark.parametrize("builder,mime", [("image", "image/png"), ("audio", "audio/wav")])
def test_image_and_audio_refuse_an_already_encoded_string(builder: str, mime: str) -> None:
    with pytest.raises(TypeError):
        getattr(McpResponse, builder)(base64.b64encode(b"x").decode(), mime)


# -- resource codecs -------------------------------------------------------------------

VALUE = {"ready": True, "count": 2}


def embedded(response: McpResponse) -> Any:
    (block,) = response.content
    assert isinstance(block, EmbeddedResource)
    return block.resource


def unpack(contents: Any) -> Any:
    assert isinstance(contents, BlobResourceContents)
    return msgspec.msgpack.decode(base64.b64decode(contents.blob))


@pytest.mark.parametrize("mime", ["application/json", "application/vnd.api+json", "application/ld+json"])
def test_resource_with_a_json_mime_is_utf8_json_text(mime: str) -> None:
    assert embedded(McpResponse.resource("demo://s", {"name": "café"}, mime)) == TextResourceContents(
        uri="demo://s", text='{"name":"café"}', mime_type=mime
    )


@pytest.mark.parametrize(
    "mime",
    [
        "application/msgpack",
        "application/x-msgpack",
        "application/vnd.msgpack",
        "application/vnd.example+msgpack",
    ],
)
def test_resource_with_a_messagepack_mime_is_a_base64_blob(mime: str) -> None:
    contents = embedded(McpResponse.resource("demo://s", VALUE, mime))
    assert contents.mime_type == mime
    assert unpack(contents) == VALUE


def test_resource_with_data_and_no_mime_is_application_json_text() -> None:
    assert embedded(McpResponse.resource("demo://s", VALUE)) == TextResourceContents(
        uri="demo://s", text='{"ready":true,"count":2}', mime_type="application/json"
    )


def test_resource_keeps_an_already_encoded_json_string_as_text() -> None:
    assert embedded(McpResponse.resource("demo://s", '{"ready": true}', "application/json")) == (
        TextResourceContents(uri="demo://s", text='{"ready": true}', mime_type="application/json")
    )


def test_resource_encodes_a_string_with_a_messagepack_mime_as_a_messagepack_string() -> None:
    assert unpack(embedded(McpResponse.resource("demo://s", '{"ready": true}', "application/msgpack"))) == (
        '{"ready": true}'
    )


@pytest.mark.parametrize("mime", ["application/octet-stream", "application/msgpack", "image/png"])
def test_resource_keeps_binary_buffers_as_bytes(mime: str) -> None:
    raw = msgspec.msgpack.encode(VALUE)
    assert embedded(McpResponse.resource("demo://s", raw, mime)) == BlobResourceContents(
        uri="demo://s", blob=base64.b64encode(raw).decode(), mime_type=mime
    )


def test_resource_keeps_text_for_other_mime_types() -> None:
    assert embedded(McpResponse.resource("demo://o.csv", "id,status\n42,ready\n", "text/csv")) == (
        TextResourceContents(uri="demo://o.csv", text="id,status\n42,ready\n", mime_type="text/csv")
    )


@pytest.mark.parametrize("value", [{"id": 42}, [["id", "status"]]])
def test_resource_refuses_data_with_a_mime_that_has_no_codec(value: Any) -> None:
    with pytest.raises(ValueError):
        McpResponse.resource("demo://o.csv", value, "text/csv")


def test_resource_codec_ignores_case_and_parameters_but_keeps_the_declared_mime() -> None:
    json_contents = embedded(McpResponse.resource("demo://s", VALUE, "Application/JSON; charset=utf-8"))
    packed = embedded(McpResponse.resource("demo://s", VALUE, "APPLICATION/X-MsgPack; v=1"))
    assert json_contents == TextResourceContents(
        uri="demo://s", text='{"ready":true,"count":2}', mime_type="Application/JSON; charset=utf-8"
    )
    assert packed.mime_type == "APPLICATION/X-MsgPack; v=1"
    assert unpack(packed) == VALUE


def test_resource_refuses_structured_values_that_are_not_json() -> None:
    with pytest.raises(ValueError):
        McpResponse.resource("demo://s", {"n": float("nan")}, "application/json")


# -- merging result metadata -----------------------------------------------------------


def test_merge_meta_unites_keys_and_accepts_repeated_equal_values() -> None:
    responses = [
        McpResponse.text("a").withMeta({"example.org/a": 1, "example.org/same": "x"}),
        McpResponse.text("b").withMeta({"example.org/b": 2, "example.org/same": "x"}),
    ]
    assert merge_meta(responses) == {"example.org/a": 1, "example.org/same": "x", "example.org/b": 2}


def test_merge_meta_refuses_one_key_with_different_values() -> None:
    responses = [
        McpResponse.text("a").withMeta({"example.org/k": 1}),
        McpResponse.text("b").withMeta({"example.org/k": 2}),
    ]
    with pytest.raises(ValueError):
        merge_meta(responses)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (True, 1),
        (False, 0),
        (1, True),
        ([False, True], [0, 1]),
        ({"flag": True}, {"flag": 1}),
        ({"a": {"b": [1, {"c": False}]}}, {"a": {"b": [1, {"c": 0}]}}),
        ([1, 2], [2, 1]),
        ([1, 2], [1, 2, 3]),
        ({"a": 1}, {"a": 1, "b": 2}),
        (None, False),
        ("1", 1),
        ([1], {"0": 1}),
    ],
    ids=[
        "true-vs-1",
        "false-vs-0",
        "1-vs-true",
        "bool-list-vs-int-list",
        "bool-vs-int-in-object",
        "deeply-nested-bool-vs-int",
        "array-order",
        "array-length",
        "object-keys",
        "null-vs-false",
        "string-vs-number",
        "array-vs-object",
    ],
)
def test_merge_meta_refuses_values_that_differ_as_json(first: Any, second: Any) -> None:
    responses = [
        McpResponse.text("a").withMeta({"example.org/k": first}),
        McpResponse.text("b").withMeta({"example.org/k": second}),
    ]
    with pytest.raises(ValueError, match="'example.org/k'"):
        merge_meta(responses)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"a": 1, "b": [True, None]}, {"b": [True, None], "a": 1}),
        ([{"x": [1, "y"]}], [{"x": [1, "y"]}]),
        (1, 1.0),
        ({"n": [2]}, {"n": [2.0]}),
        (False, False),
    ],
    ids=["object-key-order", "nested-equal", "int-and-float", "nested-int-and-float", "same-bool"],
)
def test_merge_meta_accepts_the_same_json_value_twice(first: Any, second: Any) -> None:
    responses = [
        McpResponse.text("a").withMeta({"example.org/k": first}),
        McpResponse.text("b").withMeta({"example.org/k": second}),
    ]
    assert merge_meta(responses) == {"example.org/k": second}


# -- served as a tool --------------------------------------------------------------------


GOLDEN_TOOL_REPLY = (
    b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",'
    b'"_meta":{"com.example/trace":{"sampled":false,"ids":[1,2.0]},'
    b'"io.modelcontextprotocol/serverInfo":{"name":"django-mcp","version":"0.1.0"}},'
    b'"content":[{"type":"text","text":"{\\"order\\":{\\"lines\\":[{\\"sku\\":\\"A-1\\",\\"qty\\":2},'
    b'{\\"sku\\":\\"B-2\\",\\"qty\\":1.5}],\\"paid\\":true,\\"note\\":null}}",'
    b'"_meta":{"com.example/source":[{"table":"orders"}]}},{"type":"text","text":"done"}],'
    b'"structuredContent":{"order":{"lines":[{"sku":"A-1","qty":2},{"sku":"B-2","qty":1.5}],'
    b'"paid":true,"note":null}},"isError":false}}'
)


async def test_read_only_response_values_keep_the_tool_result_wire_bytes() -> None:
    def handle(self: Any) -> list[McpResponse]:
        order = {"lines": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 1.5}], "paid": True, "note": None}
        return [
            McpResponse.structured({"order": order})
            .withMeta({"com.example/trace": {"ids": [1, 2.0], "sampled": False}})
            .withContentMeta({"com.example/source": [{"table": "orders"}]}),
            McpResponse.text("done").withMeta({"com.example/trace": {"sampled": False, "ids": [1, 2.0]}}),
        ]

    reply = await call(tool_server(handle), "tools/call", {"name": "t", "arguments": {}})
    # msgspec keeps int/float and key order when decoding, so re-encoding the
    # decoded reply reproduces the bytes the server sent.
    assert msgspec.json.encode(reply) == GOLDEN_TOOL_REPLY


async def test_tool_may_return_a_list_of_responses_in_order() -> None:
    async def handle(self: Any) -> Any:
        return [McpResponse.text("one"), McpResponse.text("two")]

    reply = await call_tool(tool_server(handle))
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
        "isError": False,
    }


async def test_tool_may_return_a_tuple_of_responses() -> None:
    def handle(self: Any) -> Any:
        return (McpResponse.text("one"), McpResponse.structured({"n": 1}))

    reply = await call_tool(tool_server(handle))
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "content": [{"type": "text", "text": "one"}, {"type": "text", "text": '{"n":1}'}],
        "structuredContent": {"n": 1},
        "isError": False,
    }


@pytest.mark.parametrize(
    "value",
    ["plain text", {"content": [{"type": "text", "text": "x"}], "isError": False}, None, HttpResponse("x")],
    ids=["str", "dict", "None", "HttpResponse"],
)
async def test_tool_returning_anything_but_responses_fails_as_a_tool_error(value: Any) -> None:
    async def handle(self: Any) -> Any:
        return value

    assert (await call_tool(tool_server(handle)))["result"] == TOOL_FAILED


async def test_tool_may_return_only_one_structured_result_per_call() -> None:
    async def handle(self: Any) -> Any:
        return [McpResponse.structured({"a": 1}), McpResponse.structured({"b": 2})]

    assert (await call_tool(tool_server(handle)))["result"] == TOOL_FAILED


class Ready(Schema):
    ready: bool


async def test_text_that_looks_like_json_does_not_satisfy_an_output_schema() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.text('{"ready": true}')

    assert (await call_tool(tool_server(handle, output=Ready)))["result"] == TOOL_FAILED


async def test_structured_result_must_match_the_output_schema() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.structured({"ready": "yes"})

    assert (await call_tool(tool_server(handle, output=Ready)))["result"] == TOOL_FAILED


async def test_structured_result_may_be_accompanied_by_other_blocks() -> None:
    async def handle(self: Any) -> Any:
        return [McpResponse.text("Ready."), McpResponse.structured({"ready": True})]

    reply = await call_tool(tool_server(handle, output=Ready))
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "content": [{"type": "text", "text": "Ready."}, {"type": "text", "text": '{"ready":true}'}],
        "structuredContent": {"ready": True},
        "isError": False,
    }


class CheckedReady(Schema):
    ready: bool

    @rule
    async def must_be_ready(self) -> None:
        await asyncio.sleep(0)
        if not self.ready:
            raise ValueError("not ready")


async def test_output_is_validated_with_its_asynchronous_schema_rules() -> None:
    async def handle_ready(self: Any) -> Any:
        return McpResponse.structured({"ready": True})

    async def handle_not_ready(self: Any) -> Any:
        return McpResponse.structured({"ready": False})

    passed = await call_tool(tool_server(handle_ready, output=CheckedReady))
    assert passed["result"]["structuredContent"] == {"ready": True}
    assert (await call_tool(tool_server(handle_not_ready, output=CheckedReady)))["result"] == TOOL_FAILED


async def test_an_error_result_is_not_validated_against_the_output_schema() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.error("Order not found.")

    reply = await call_tool(tool_server(handle, output=Ready))
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "content": [{"type": "text", "text": "Order not found."}],
        "isError": True,
    }


async def test_with_meta_reaches_result_meta_beside_the_server_info() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.text("hi").withMeta({"example.org/trace": "t-1"})

    reply = await call_tool(tool_server(handle))
    assert reply["result"]["_meta"] == {"example.org/trace": "t-1", **SERVER_INFO}


async def test_with_content_meta_and_annotations_reach_every_block() -> None:
    annotations = ContentAnnotations(
        audience=("assistant",), priority=0.8, last_modified="2026-10-21T12:00:00Z"
    )

    async def handle(self: Any) -> Any:
        return [
            McpResponse.text("a")
            .withContentMeta({"example.org/source": "orders"})
            .withAnnotations(annotations),
            McpResponse.image(b"x", "image/png")
            .withContentMeta({"example.org/source": "orders"})
            .withAnnotations(annotations),
        ]

    wire_annotations = {"audience": ["assistant"], "priority": 0.8, "lastModified": "2026-10-21T12:00:00Z"}
    reply = await call_tool(tool_server(handle))
    assert reply["result"]["content"] == [
        {
            "type": "text",
            "text": "a",
            "annotations": wire_annotations,
            "_meta": {"example.org/source": "orders"},
        },
        {
            "type": "image",
            "data": "eA==",
            "mimeType": "image/png",
            "annotations": wire_annotations,
            "_meta": {"example.org/source": "orders"},
        },
    ]


async def test_combined_responses_merge_their_result_metadata() -> None:
    async def handle(self: Any) -> Any:
        return [
            McpResponse.text("a").withMeta({"example.org/a": 1, "example.org/same": True}),
            McpResponse.text("b").withMeta({"example.org/b": 2, "example.org/same": True}),
        ]

    reply = await call_tool(tool_server(handle))
    assert reply["result"]["_meta"] == {
        "example.org/a": 1,
        "example.org/same": True,
        "example.org/b": 2,
        **SERVER_INFO,
    }


async def test_combined_tool_responses_with_conflicting_metadata_fail() -> None:
    async def handle(self: Any) -> Any:
        return [
            McpResponse.text("a").withMeta({"example.org/k": 1}),
            McpResponse.text("b").withMeta({"example.org/k": 2}),
        ]

    assert (await call_tool(tool_server(handle)))["result"] == TOOL_FAILED


async def test_combined_resource_responses_with_conflicting_metadata_fail() -> None:
    async def handle(self: Any) -> Any:
        return [
            McpResponse.text("a").withMeta({"example.org/k": 1}),
            McpResponse.text("b").withMeta({"example.org/k": 2}),
        ]

    assert fails_internally(await read(resource_server(handle)))


async def test_tool_result_metadata_is_bounded_by_max_metadata_size(settings: Any) -> None:
    settings.MCP_MAX_METADATA_SIZE = 300

    async def small(self: Any) -> Any:
        return McpResponse.text("hi").withMeta({"example.org/k": "x" * 10})

    async def large(self: Any) -> Any:
        return McpResponse.text("hi").withMeta({"example.org/k": "x" * 400})

    assert (await call_tool(tool_server(small)))["result"]["_meta"] == {
        "example.org/k": "x" * 10,
        **SERVER_INFO,
    }
    assert fails_internally(await call_tool(tool_server(large)))


async def test_encoded_response_is_bounded_by_max_response_size(settings: Any) -> None:
    settings.MCP_MAX_RESPONSE_SIZE = 1000

    async def small(self: Any) -> Any:
        return McpResponse.text("x" * 100)

    async def large(self: Any) -> Any:
        return McpResponse.text("x" * 2000)

    assert (await call_tool(tool_server(small)))["result"]["content"] == [{"type": "text", "text": "x" * 100}]
    assert fails_internally(await call_tool(tool_server(large)))


# -- unexpected exceptions and protocol errors ---------------------------------------------


async def test_unexpected_tool_exception_is_reported_and_shown_as_tool_execution_failed() -> None:
    reported: list[Any] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        reported.append(kwargs.get("request"))

    async def handle(self: Any) -> Any:
        raise RuntimeError("secret database password")

    got_request_exception.connect(receiver)
    try:
        reply = await call_tool(tool_server(handle))
    finally:
        got_request_exception.disconnect(receiver)
    assert reply["result"] == TOOL_FAILED
    assert len(reported) == 1


async def test_unexpected_resource_exception_is_an_internal_error() -> None:
    async def handle(self: Any) -> Any:
        raise RuntimeError("secret database password")

    reply = await read(resource_server(handle))
    assert fails_internally(reply)
    assert "secret" not in msgspec.json.encode(reply).decode()


async def test_unexpected_prompt_exception_is_an_internal_error() -> None:
    async def handle(self: Any) -> Any:
        raise RuntimeError("secret database password")

    reply = await get_prompt(prompt_server(handle))
    assert fails_internally(reply)
    assert "secret" not in msgspec.json.encode(reply).decode()


async def test_unknown_tool_is_invalid_params_not_a_tool_error() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.text("x")

    reply = await call(tool_server(handle), "tools/call", {"name": "nope"})
    assert reply["error"]["code"] == INVALID_PARAMS


async def test_unknown_method_is_method_not_found() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.text("x")

    reply = await call(tool_server(handle), "tools/frobnicate")
    assert reply["error"]["code"] == METHOD_NOT_FOUND


# -- explicit protocol results ------------------------------------------------------------


async def test_tool_may_return_its_own_call_tool_result() -> None:
    async def handle(self: Any) -> Any:
        return CallToolResult(content=(TextContent(text="Ready"),), isError=False)

    reply = await call_tool(tool_server(handle))
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "content": [{"type": "text", "text": "Ready"}],
        "isError": False,
    }


@pytest.mark.parametrize(
    "value",
    [
        GetPromptResult(messages=()),
        ReadResourceResult(contents=(TextResourceContents(uri="demo://r", text="x"),)),
    ],
    ids=["GetPromptResult", "ReadResourceResult"],
)
async def test_tool_returning_another_methods_result_fails(value: Any) -> None:
    async def handle(self: Any) -> Any:
        return value

    assert (await call_tool(tool_server(handle)))["result"] == TOOL_FAILED


@pytest.mark.parametrize(
    "value",
    [
        CallToolResult(content=(TextContent(text="x"),)),
        CallToolResult(content=(TextContent(text="x"),), structuredContent={"ready": "yes"}),
    ],
    ids=["missing", "invalid"],
)
async def test_explicit_call_tool_result_needs_valid_structured_content_for_an_output_schema(
    value: Any,
) -> None:
    async def handle(self: Any) -> Any:
        return value

    assert (await call_tool(tool_server(handle, output=Ready)))["result"] == TOOL_FAILED


async def test_explicit_call_tool_result_with_valid_structured_content_passes_the_output_schema() -> None:
    async def handle(self: Any) -> Any:
        return CallToolResult(
            content=(TextContent(text='{"ready":true}'),), structuredContent={"ready": True}
        )

    reply = await call_tool(tool_server(handle, output=Ready))
    assert reply["result"]["structuredContent"] == {"ready": True}
    assert reply["result"]["isError"] is False


async def test_explicit_result_metadata_cannot_use_reserved_protocol_keys() -> None:
    # Explicit results "remain subject to validation and limits", and
    # application metadata may not use reserved protocol keys.
    async def handle(self: Any) -> Any:
        return CallToolResult(content=(TextContent(text="x"),), meta={"dev.mcp/trace": "x"})

    assert (await call_tool(tool_server(handle)))["result"] == TOOL_FAILED


async def test_resource_may_return_its_own_read_resource_result() -> None:
    async def handle(self: Any) -> Any:
        return ReadResourceResult(
            contents=(TextResourceContents(uri="demo://r", text="x", mime_type="text/plain"),)
        )

    reply = await read(resource_server(handle))
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "contents": [{"uri": "demo://r", "text": "x", "mimeType": "text/plain"}],
        "ttlMs": 0,
        "cacheScope": "private",
    }


@pytest.mark.parametrize(
    "value",
    [CallToolResult(content=(TextContent(text="x"),)), {"contents": [{"uri": "demo://r", "text": "x"}]}],
    ids=["CallToolResult", "dict"],
)
async def test_resource_returning_another_methods_result_or_a_dict_fails(value: Any) -> None:
    async def handle(self: Any) -> Any:
        return value

    assert fails_internally(await read(resource_server(handle)))


async def test_prompt_may_return_its_own_get_prompt_result() -> None:
    from django_mcp.protocol.results import PromptMessage

    async def handle(self: Any) -> Any:
        return GetPromptResult(messages=(PromptMessage(role="assistant", content=TextContent(text="x")),))

    reply = await get_prompt(prompt_server(handle))
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "messages": [{"role": "assistant", "content": {"type": "text", "text": "x"}}],
    }


@pytest.mark.parametrize(
    "value",
    ["plain text", {"messages": []}, CallToolResult(content=(TextContent(text="x"),))],
    ids=["str", "dict", "CallToolResult"],
)
async def test_prompt_returning_anything_but_responses_or_its_result_fails(value: Any) -> None:
    async def handle(self: Any) -> Any:
        return value

    assert fails_internally(await get_prompt(prompt_server(handle)))


# -- served as a resource -------------------------------------------------------------------


@pytest.mark.parametrize("value", ["plain text", {"ready": True}], ids=["str", "dict"])
async def test_resource_returning_a_bare_value_fails(value: Any) -> None:
    async def handle(self: Any) -> Any:
        return value

    assert fails_internally(await read(resource_server(handle)))


async def test_resource_mime_type_applies_to_text() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.text("# Orders")

    reply = await read(resource_server(handle, mime_type="text/markdown"))
    assert reply["result"]["contents"] == [
        {"uri": "demo://r", "text": "# Orders", "mimeType": "text/markdown"}
    ]


async def test_resource_mime_type_applies_to_structured() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.structured(VALUE)

    reply = await read(resource_server(handle, mime_type="application/vnd.example+json"))
    assert reply["result"]["contents"] == [
        {"uri": "demo://r", "text": '{"ready":true,"count":2}', "mimeType": "application/vnd.example+json"}
    ]


async def test_resource_without_mime_type_publishes_structured_as_application_json() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.structured(VALUE)

    reply = await read(resource_server(handle))
    assert reply["result"]["contents"] == [
        {"uri": "demo://r", "text": '{"ready":true,"count":2}', "mimeType": "application/json"}
    ]


async def test_messagepack_resource_packs_the_original_structured_value() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.structured({"at": datetime.date(2026, 10, 21), "count": 2})

    reply = await read(resource_server(handle, mime_type="application/msgpack"))
    (contents,) = reply["result"]["contents"]
    assert contents.keys() == {"uri", "blob", "mimeType"}
    assert (contents["uri"], contents["mimeType"]) == ("demo://r", "application/msgpack")
    assert msgspec.msgpack.decode(base64.b64decode(contents["blob"])) == {"at": "2026-10-21", "count": 2}


async def test_messagepack_resource_packs_text_as_a_messagepack_string() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.text("hello")

    reply = await read(resource_server(handle, mime_type="application/x-msgpack"))
    (contents,) = reply["result"]["contents"]
    assert contents["mimeType"] == "application/x-msgpack"
    assert msgspec.msgpack.decode(base64.b64decode(contents["blob"])) == "hello"


async def test_resource_refuses_structured_data_under_a_mime_without_a_codec() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.structured(VALUE)

    assert fails_internally(await read(resource_server(handle, mime_type="text/csv")))


async def test_explicit_resource_keeps_its_own_uri_and_mime_type() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.resource("demo://other", VALUE, "application/msgpack")

    reply = await read(resource_server(handle, mime_type="text/markdown"))
    (contents,) = reply["result"]["contents"]
    assert (contents["uri"], contents["mimeType"]) == ("demo://other", "application/msgpack")
    assert msgspec.msgpack.decode(base64.b64decode(contents["blob"])) == VALUE


async def test_resource_content_meta_reaches_its_contents() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.text("x").withContentMeta({"example.org/source": "orders"})

    reply = await read(resource_server(handle, mime_type="text/plain"))
    assert reply["result"]["contents"] == [
        {"uri": "demo://r", "text": "x", "mimeType": "text/plain", "_meta": {"example.org/source": "orders"}}
    ]


@pytest.mark.parametrize(
    "response",
    [McpResponse.image(b"x", "image/png"), McpResponse.audio(b"x", "audio/wav")],
    ids=["image", "audio"],
)
async def test_resource_cannot_return_image_or_audio_blocks(response: McpResponse) -> None:
    async def handle(self: Any) -> Any:
        return response

    assert fails_internally(await read(resource_server(handle, mime_type="image/png")))


async def test_resource_returns_binary_content_as_bytes_with_its_mime_type() -> None:
    async def handle(self: Any) -> Any:
        return McpResponse.resource("demo://r", b"\x89PNG", "image/png")

    reply = await read(resource_server(handle, mime_type="image/png"))
    assert reply["result"]["contents"] == [{"uri": "demo://r", "blob": "iVBORw==", "mimeType": "image/png"}]


# -- served as a prompt -------------------------------------------------------------------------


async def test_prompt_makes_one_message_per_block_in_order_with_each_role() -> None:
    async def handle(self: Any) -> Any:
        return [
            McpResponse.text("question"),
            McpResponse.text("example answer").asAssistant(),
            McpResponse.image(b"x", "image/png").asUser(),
        ]

    reply = await get_prompt(prompt_server(handle))
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "question"}},
            {"role": "assistant", "content": {"type": "text", "text": "example answer"}},
            {"role": "user", "content": {"type": "image", "data": "eA==", "mimeType": "image/png"}},
        ],
    }


async def test_prompt_arguments_reach_the_handler_by_name() -> None:
    prompt = type(
        "P",
        (Prompt,),
        {
            "name": "p",
            "arguments": (PromptArgument(name="topic"),),
            "handle": lambda self, topic: McpResponse.text(f"About {topic}"),
        },
    )
    server = type("PromptArgsServer", (Server,), {"prompts": (prompt,)})
    reply = await call(server, "prompts/get", {"name": "p", "arguments": {"topic": "routing"}})
    assert reply["result"]["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "About routing"}}
    ]
