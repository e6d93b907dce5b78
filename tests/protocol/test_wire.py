"""Encoded wire types validate against the MCP 2026-07-28 JSON Schema.

Every content block and result type is encoded with msgspec (directly, and
as the dispatcher sends it) and checked against ``#/$defs/<Type>`` of the
pinned schema. The registry is empty: remote ``$ref``s are never fetched.

Schema quirk: ``JSONValue`` (``structuredContent``) allows neither
non-integer numbers nor null, so structured values here avoid both.
"""

import base64
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry

from django_mcp import (
    CacheHint,
    Completion,
    ContentAnnotations,
    Icon,
    McpRequest,
    McpResponse,
    Prompt,
    PromptArgument,
    Resource,
    Server,
    Tool,
    ToolAnnotations,
)
from django_mcp.inputs import elicit, input_required, list_roots
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
from django_mcp.protocol.content import Icon as WireIcon
from django_mcp.protocol.definitions import (
    Implementation,
    PromptArgumentDefinition,
    PromptDefinition,
    ResourceDefinition,
    ResourceTemplateDefinition,
    ServerCapabilities,
    ToolAnnotationsDefinition,
    ToolDefinition,
)
from django_mcp.protocol.results import (
    CallToolResult,
    CompleteResult,
    CompletionValues,
    DiscoverResult,
    EmptyResult,
    GetPromptResult,
    InputRequest,
    InputRequiredResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PromptMessage,
    ReadResourceResult,
)
from django_mcp.schemas import Schema
from tests.wire import call, modern_meta

# The pinned copy in tests/spec/ (see its README.md), read relative to this file.
SPEC_FILE = Path(__file__).resolve().parents[1] / "spec" / "schema-2026-07-28.json"
SPEC = json.loads(SPEC_FILE.read_text(encoding="utf-8"))


def errors(definition: str, instance: Any) -> list[str]:
    """Return why ``instance`` fails ``#/$defs/<definition>`` (empty when valid)."""
    validator = Draft202012Validator({**SPEC, "$ref": f"#/$defs/{definition}"}, registry=Registry())
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(instance)]


def encoded(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


def nulls(value: Any, path: str = "$") -> list[str]:
    """Return the paths of every JSON null inside ``value``."""
    if value is None:
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in nulls(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in nulls(v, f"{path}[{i}]")]
    return []


ANNOTATIONS = Annotations(audience=("user", "assistant"), priority=0.8, last_modified="2026-10-21T12:00:00Z")
META = {"com.example/trace": "t-1"}
ICON = WireIcon(src="https://example.org/i.svg", mime_type="image/svg+xml", sizes=("any",), theme="dark")
TEXT_CONTENTS = TextResourceContents(uri="demo://a", text="x", mime_type="text/plain", meta=META)
BLOB_CONTENTS = BlobResourceContents(
    uri="demo://b", blob="AAE=", mime_type="application/octet-stream", meta=META
)
BLOCKS = {
    "text": TextContent(text="hi"),
    "text-full": TextContent(text="hi", annotations=ANNOTATIONS, meta=META),
    "image": ImageContent(data="iVBORw==", mime_type="image/png", annotations=ANNOTATIONS, meta=META),
    "audio": AudioContent(data="UklGRg==", mime_type="audio/wav", annotations=ANNOTATIONS, meta=META),
    "link": ResourceLink(uri="demo://a", name="a"),
    "link-full": ResourceLink(
        uri="demo://a",
        name="a",
        title="A",
        description="The A.",
        mime_type="text/plain",
        size=12,
        icons=(ICON,),
        annotations=ANNOTATIONS,
        meta=META,
    ),
    "embedded-text": EmbeddedResource(resource=TEXT_CONTENTS, annotations=ANNOTATIONS, meta=META),
    "embedded-blob": EmbeddedResource(resource=BLOB_CONTENTS),
}
TYPE_OF = {
    TextContent: "TextContent",
    ImageContent: "ImageContent",
    AudioContent: "AudioContent",
    ResourceLink: "ResourceLink",
    EmbeddedResource: "EmbeddedResource",
}


# -- content blocks -----------------------------------------------------------------------


@pytest.mark.parametrize("block", BLOCKS.values(), ids=BLOCKS.keys())
def test_content_block_validates_as_its_type_and_as_a_content_block(block: Any) -> None:
    assert errors(TYPE_OF[type(block)], encoded(block)) == []
    assert errors("ContentBlock", encoded(block)) == []


@pytest.mark.parametrize(
    ("definition", "value"),
    [
        ("TextResourceContents", TEXT_CONTENTS),
        ("TextResourceContents", TextResourceContents(uri="demo://a", text="x")),
        ("BlobResourceContents", BLOB_CONTENTS),
        ("BlobResourceContents", BlobResourceContents(uri="demo://b", blob="AAE=")),
        ("Annotations", ANNOTATIONS),
        ("Annotations", ContentAnnotations(priority=0).to_wire()),
        ("Icon", ICON),
        ("Icon", Icon(src="data:image/png;base64,iVBORw==")),
    ],
)
def test_resource_contents_annotations_and_icons_validate(definition: str, value: Any) -> None:
    assert errors(definition, encoded(value)) == []


@pytest.mark.parametrize(
    "response",
    [
        McpResponse.text("hi"),
        McpResponse.structured({"a": [1, "b", True]}),
        McpResponse.image(b"\x89PNG", "image/png"),
        McpResponse.audio(b"RIFF", "audio/wav"),
        McpResponse.resource("demo://s", {"ready": True}, "application/json"),
        McpResponse.resource("demo://s", {"ready": True}, "application/msgpack"),
        McpResponse.resourceLink(
            "demo://s", "s", title="S", mime_type="application/json", size=3, icons=[ICON]
        ),
        McpResponse.error("failed"),
    ],
    ids=["text", "structured", "image", "audio", "json-resource", "msgpack-resource", "link", "error"],
)
def test_blocks_built_by_mcp_response_are_valid_content_blocks(response: McpResponse) -> None:
    annotated = response.withContentMeta(META).withAnnotations(
        ContentAnnotations(audience=("assistant",), priority=1, last_modified="2026-10-21T12:00:00Z")
    )
    for block in (*response.content, *annotated.content):
        assert errors("ContentBlock", encoded(block)) == []


def test_the_validator_rejects_an_invalid_block() -> None:
    # Guards every "== []" above against a schema that accepts anything.
    assert errors("TextContent", {"type": "text"}) != []
    assert errors("ContentBlock", {"type": "video", "data": "x"}) != []


# -- absent is not null -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (TextContent(text="hi"), {"type": "text", "text": "hi"}),
        (ResourceLink(uri="demo://a", name="a"), {"type": "resource_link", "uri": "demo://a", "name": "a"}),
        (TextResourceContents(uri="demo://a", text=""), {"uri": "demo://a", "text": ""}),
        (Annotations(priority=0.0), {"priority": 0.0}),
        (CallToolResult(), {"resultType": "complete", "content": [], "isError": False}),
        (ReadResourceResult(), {"resultType": "complete", "contents": []}),
        (GetPromptResult(), {"resultType": "complete", "messages": []}),
        (InputRequiredResult(request_state="s"), {"resultType": "input_required", "requestState": "s"}),
        (ListToolsResult(), {"resultType": "complete", "tools": []}),
        (EmptyResult(), {"resultType": "complete"}),
    ],
    ids=[
        "TextContent",
        "ResourceLink",
        "TextResourceContents",
        "Annotations",
        "CallToolResult",
        "ReadResourceResult",
        "GetPromptResult",
        "InputRequiredResult",
        "ListToolsResult",
        "EmptyResult",
    ],
)
def test_unset_fields_are_omitted_never_null(value: Any, expected: Any) -> None:
    assert encoded(value) == expected


# -- results, encoded directly ---------------------------------------------------------------

TOOL_DEFINITION = ToolDefinition(
    name="t",
    input_schema={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    title="T",
    description="A tool.",
    output_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
    annotations=ToolAnnotationsDefinition(
        title="T", read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    ),
    icons=(ICON,),
    meta=META,
)
RESOURCE_DEFINITION = ResourceDefinition(
    uri="demo://a",
    name="a",
    title="A",
    description="The A.",
    mime_type="text/plain",
    size=3,
    icons=(ICON,),
    annotations=ANNOTATIONS,
    meta=META,
)
TEMPLATE_DEFINITION = ResourceTemplateDefinition(
    uri_template="demo://users/{id}",
    name="user",
    title="User",
    description="A user.",
    mime_type="application/json",
    icons=(ICON,),
    annotations=ANNOTATIONS,
    meta=META,
)
PROMPT_DEFINITION = PromptDefinition(
    name="p",
    title="P",
    description="A prompt.",
    arguments=(PromptArgumentDefinition(name="topic", title="Topic", description="What.", required=True),),
    icons=(ICON,),
    meta=META,
)
IMPLEMENTATION = Implementation(
    name="s",
    version="1.0",
    title="S",
    description="A server.",
    website_url="https://example.org",
    icons=(ICON,),
)
CAPABILITIES = ServerCapabilities(
    tools={"listChanged": True},
    resources={"listChanged": True, "subscribe": True},
    prompts={"listChanged": True},
    completions={},
    logging={},
)
DIRECT = {
    "CallToolResult": CallToolResult(
        content=tuple(BLOCKS.values()), structuredContent={"n": 1, "tags": ["a"]}, isError=False, meta=META
    ),
    "ReadResourceResult": ReadResourceResult(
        contents=(TEXT_CONTENTS, BLOB_CONTENTS), ttl_ms=0, cache_scope="private", meta=META
    ),
    "GetPromptResult": GetPromptResult(
        messages=tuple(PromptMessage(role="user", content=b) for b in BLOCKS.values()),
        description="P",
        meta=META,
    ),
    "InputRequiredResult": InputRequiredResult(
        input_requests={
            "name": elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}),
            "roots": list_roots(),
        },
        request_state="opaque",
    ),
    "PromptMessage": PromptMessage(role="assistant", content=TextContent(text="x")),
    "CompleteResult": CompleteResult(completion=CompletionValues(values=("a", "b"), total=2, has_more=False)),
    "DiscoverResult": DiscoverResult(
        supported_versions=("2026-07-28",),
        capabilities=CAPABILITIES,
        instructions="Use it.",
        ttl_ms=0,
        cache_scope="private",
    ),
    "ListToolsResult": ListToolsResult(
        tools=(TOOL_DEFINITION,), next_cursor="c", ttl_ms=0, cache_scope="public"
    ),
    "ListResourcesResult": ListResourcesResult(
        resources=(RESOURCE_DEFINITION,), next_cursor="c", ttl_ms=5, cache_scope="private"
    ),
    "ListResourceTemplatesResult": ListResourceTemplatesResult(
        resource_templates=(TEMPLATE_DEFINITION,), ttl_ms=0, cache_scope="public"
    ),
    "ListPromptsResult": ListPromptsResult(prompts=(PROMPT_DEFINITION,), ttl_ms=0, cache_scope="private"),
    "EmptyResult": EmptyResult(),
    "Tool": TOOL_DEFINITION,
    "ToolAnnotations": TOOL_DEFINITION.annotations,
    "Resource": RESOURCE_DEFINITION,
    "ResourceTemplate": TEMPLATE_DEFINITION,
    "Prompt": PROMPT_DEFINITION,
    "PromptArgument": PROMPT_DEFINITION.arguments[0],  # type: ignore[index]
    "Implementation": IMPLEMENTATION,
    "ServerCapabilities": CAPABILITIES,
    "InputRequest": InputRequest(method="roots/list"),
}


@pytest.mark.parametrize(("definition", "value"), DIRECT.items(), ids=DIRECT.keys())
def test_wire_type_encodes_to_a_valid_schema_instance(definition: str, value: Any) -> None:
    assert errors(definition, encoded(value)) == []


# -- results, as the dispatcher sends them ------------------------------------------------------


class WireInput(Schema):
    order_id: int


class WireOutput(Schema):
    order_id: int
    status: str


ICONS = (Icon(src="https://example.org/i.svg", mime_type="image/svg+xml"),)


class EverythingTool(Tool[WireInput, WireOutput]):
    """Return one block of every kind."""

    title = "Everything"
    icons = ICONS
    meta = {"com.example/kind": "demo"}
    annotations = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=False)

    async def handle(self, payload: WireInput) -> list[McpResponse]:
        annotations = ContentAnnotations(
            audience=("assistant",), priority=0.8, last_modified="2026-10-21T12:00:00Z"
        )
        return [
            McpResponse.text("hi").withAnnotations(annotations).withContentMeta(META),
            McpResponse.image(b"\x89PNG", "image/png"),
            McpResponse.audio(b"RIFF", "audio/wav"),
            McpResponse.resourceLink("demo://a", "a", title="A", mime_type="text/plain", icons=ICONS),
            McpResponse.resource("demo://j", {"ready": True}, "application/json"),
            McpResponse.resource("demo://m", {"ready": True}, "application/msgpack"),
            McpResponse.structured({"order_id": payload.order_id, "status": "ready"}).withMeta(META),
        ]


class FailingTool(Tool):
    async def handle(self) -> McpResponse:
        return McpResponse.error("Order not found.")


class AskingTool(Tool):
    async def handle(self, request: McpRequest) -> Any:
        if request.input_responses:
            return McpResponse.text("thanks")
        ask = elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        return input_required({"name": ask}, state={"round": 1})


class TextResource(Resource):
    uri = "demo://text"
    title = "Text"
    description = "Some text."
    mime_type = "text/plain"
    size = 2
    icons = ICONS
    cache = CacheHint(ttl_ms=1000, scope="public")
    annotations = ContentAnnotations(audience=("user",), priority=0.5)

    async def handle(self) -> McpResponse:
        return McpResponse.text("hi")


class PackedResource(Resource):
    uri = "demo://packed"
    mime_type = "application/msgpack"

    async def handle(self) -> McpResponse:
        return McpResponse.structured({"ready": True})


class UserResource(Resource):
    uri_template = "demo://users/{user_id}"
    mime_type = "application/json"
    icons = ICONS

    async def handle(self, user_id: str) -> McpResponse:
        return McpResponse.structured({"id": user_id})

    def complete(self, argument: str, value: str) -> Completion:
        return Completion(values=("42", "43"), total=2, has_more=False)


class TopicPrompt(Prompt):
    """Explain a topic."""

    title = "Topic"
    icons = ICONS
    arguments = (PromptArgument(name="topic", title="Topic", description="What to explain.", required=True),)

    async def handle(self, topic: str) -> list[McpResponse]:
        return [
            McpResponse.text(f"Explain {topic}"),
            McpResponse.text("Sure.").asAssistant(),
            McpResponse.image(b"\x89PNG", "image/png"),
            McpResponse.resource("demo://j", {"ready": True}),
            McpResponse.resourceLink("demo://a", "a"),
        ]

    def complete(self, argument: str, value: str) -> list[str]:
        return ["routing", "sessions"]


class WireServer(Server):
    name = "wire"
    version = "1.2.3"
    title = "Wire"
    description = "Every wire type."
    website_url = "https://example.org"
    icons = ICONS
    instructions = "Use the tools."
    tools = (EverythingTool, FailingTool, AskingTool)
    resources = (TextResource, PackedResource, UserResource)
    prompts = (TopicPrompt,)


ELICITATION = {"elicitation": {"form": {}}}
SERVED = [
    ("server/discover", {}, None, "DiscoverResult"),
    ("tools/list", {}, None, "ListToolsResult"),
    ("tools/call", {"name": "everything", "arguments": {"order_id": 42}}, None, "CallToolResult"),
    ("tools/call", {"name": "failing"}, None, "CallToolResult"),
    ("tools/call", {"name": "everything", "arguments": {"order_id": "x"}}, None, "CallToolResult"),
    ("tools/call", {"name": "asking"}, ELICITATION, "InputRequiredResult"),
    ("resources/list", {}, None, "ListResourcesResult"),
    ("resources/templates/list", {}, None, "ListResourceTemplatesResult"),
    ("resources/read", {"uri": "demo://text"}, None, "ReadResourceResult"),
    ("resources/read", {"uri": "demo://packed"}, None, "ReadResourceResult"),
    ("resources/read", {"uri": "demo://users/42"}, None, "ReadResourceResult"),
    ("prompts/list", {}, None, "ListPromptsResult"),
    ("prompts/get", {"name": "topic", "arguments": {"topic": "routing"}}, None, "GetPromptResult"),
    (
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "topic"}, "argument": {"name": "topic", "value": "r"}},
        None,
        "CompleteResult",
    ),
    (
        "completion/complete",
        {
            "ref": {"type": "ref/resource", "uri": "demo://users/{user_id}"},
            "argument": {"name": "user_id", "value": ""},
        },
        None,
        "CompleteResult",
    ),
]


@pytest.mark.parametrize(
    ("method", "params", "capabilities", "definition"),
    SERVED,
    ids=[f"{m}-{d}-{i}" for i, (m, _, _, d) in enumerate(SERVED)],
)
async def test_served_result_validates_against_the_schema(
    method: str, params: dict[str, Any], capabilities: Any, definition: str
) -> None:
    reply = await call(WireServer, method, params, request_id=7, meta=modern_meta(capabilities))
    assert "error" not in reply
    assert errors(definition, reply["result"]) == []
    assert errors("JSONRPCResultResponse", reply) == []
    assert nulls(reply) == []


@pytest.mark.parametrize(
    ("method", "params", "response_definition"),
    [
        ("tools/call", {"name": "everything", "arguments": {"order_id": 1}}, "CallToolResultResponse"),
        ("resources/read", {"uri": "demo://text"}, "ReadResourceResultResponse"),
        ("prompts/get", {"name": "topic", "arguments": {"topic": "x"}}, "GetPromptResultResponse"),
        ("tools/list", {}, "ListToolsResultResponse"),
        ("server/discover", {}, "DiscoverResultResponse"),
    ],
)
async def test_served_response_validates_as_its_method_response(
    method: str, params: dict[str, Any], response_definition: str
) -> None:
    assert errors(response_definition, await call(WireServer, method, params, request_id=7)) == []


async def test_served_input_required_result_carries_a_string_request_state() -> None:
    reply = await call(
        WireServer, "tools/call", {"name": "asking"}, request_id=7, meta=modern_meta(ELICITATION)
    )
    assert isinstance(reply["result"]["requestState"], str)
    assert errors("CallToolResultResponse", reply) == []


@pytest.mark.parametrize(
    ("method", "params"),
    [("tools/call", {"name": "nope"}), ("resources/read", {"uri": "demo://nope"}), ("no/such", {})],
)
async def test_served_errors_validate_as_json_rpc_error_responses(
    method: str, params: dict[str, Any]
) -> None:
    reply = await call(WireServer, method, params, request_id=7)
    assert errors("JSONRPCErrorResponse", reply) == []
    assert nulls(reply) == []


async def test_a_messagepack_blob_on_the_wire_is_base64_of_the_packed_value() -> None:
    reply = await call(WireServer, "resources/read", {"uri": "demo://packed"}, request_id=7)
    (contents,) = reply["result"]["contents"]
    assert msgspec.msgpack.decode(base64.b64decode(contents["blob"])) == {"ready": True}
