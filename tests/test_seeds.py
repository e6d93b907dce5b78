"""Worked examples of McpResponse in tools, resources and prompts, run as written.

The examples use the builders exactly as an application would (they were
first written for ``orionis.mcp``, whose builder names McpResponse keeps; only
the import path changed). Components are also served through the real
dispatcher and their replies compared whole with the expected results.

``BrandAssetsTool`` reads its two files concurrently from in-memory bytes and
keeps the rest; a second test serves the same handler through
``django_mcp.storage`` with a "local" alias in a temporary directory (the
import stays inside that test so the others never depend on it).
"""

import asyncio
import base64
from typing import Any

import msgspec

from django_mcp import (
    CacheHint,
    Completion,
    ContentAnnotations,
    Icon,
    McpResponse,
    Prompt,
    PromptArgument,
    Resource,
    Server,
    Tool,
    ToolAnnotations,
)
from django_mcp.protocol.content import TextContent
from django_mcp.protocol.jsonrpc import INVALID_PARAMS
from django_mcp.protocol.results import CallToolResult
from django_mcp.schemas import Schema
from django_mcp.server.compiler import compile_server
from tests.wire import call


def server_info(name: str = "django-mcp") -> dict[str, Any]:
    return {"io.modelcontextprotocol/serverInfo": {"name": name, "version": "0.1.0"}}


def ok(result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "result": result}


# -- "Text and multiple blocks" ---------------------------------------------------------


class ReportSummaryTool(Tool):
    name = "report-summary"
    description = "Describe the latest report and link to its source."

    async def handle(self) -> list[McpResponse]:
        return [
            McpResponse.text("The latest report contains 12 completed orders."),
            McpResponse.resourceLink(
                "reports://latest",
                "latest-report",
                title="Latest report",
                description="Read the complete report.",
                mime_type="application/json",
            ),
        ]


# -- "JSON and output schemas" ----------------------------------------------------------


class OrderSummaryInput(Schema):
    order_id: int


class OrderSummaryOutput(Schema):
    order_id: int
    status: str
    total: float


class OrderSummaryTool(Tool[OrderSummaryInput, OrderSummaryOutput]):
    name = "order-summary"
    description = "Return a typed order summary."

    async def handle(self, payload: OrderSummaryInput) -> McpResponse:
        return McpResponse.structured(
            {
                "order_id": payload.order_id,
                "status": "ready",
                "total": 42.5,
            }
        )


# -- "Images and audio" (Storage replaced by in-memory bytes) ---------------------------

BRAND_FILES = {
    "brand/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "brand/welcome.wav": b"RIFF$\x00\x00\x00WAVEfmt ",
}


async def read_brand_file(path: str) -> bytes:
    return BRAND_FILES[path]


class BrandAssetsTool(Tool):
    name = "brand-assets"
    description = "Return the bundled logo and welcome audio."

    async def handle(self) -> list[McpResponse]:
        logo, audio = await asyncio.gather(
            read_brand_file("brand/logo.png"),
            read_brand_file("brand/welcome.wav"),
        )
        return [
            McpResponse.image(logo, "image/png"),
            McpResponse.audio(audio, "audio/wav"),
        ]


# -- "Prompt messages" ------------------------------------------------------------------


class ReviewOrderPrompt(Prompt):
    name = "review-order"
    arguments = (PromptArgument(name="summary", required=True),)

    async def handle(self, summary: str) -> list[McpResponse]:
        return [
            McpResponse.text("Summarize the order and identify missing data.").asUser(),
            McpResponse.text("I will check totals, status and delivery details.").asAssistant(),
            McpResponse.text(summary).asUser(),
        ]


# -- "Expected failures and protocol errors" --------------------------------------------


class OrderLookupInput(Schema):
    order_id: int


class FindOrderTool(Tool[OrderLookupInput]):
    name = "find-order"

    async def handle(self, payload: OrderLookupInput) -> McpResponse:
        if payload.order_id != 42:
            return McpResponse.error("Order not found.")
        return McpResponse.structured({"order_id": 42, "status": "ready"})


# -- "Metadata and content annotations", served -----------------------------------------


class AnnotatedOrderTool(Tool):
    name = "annotated-order"

    async def handle(self) -> McpResponse:
        original = McpResponse.structured({"order_id": 42, "status": "ready"})
        return (
            original.withMeta({"example.org/trace": "order-42"})
            .withContentMeta({"example.org/source": "orders"})
            .withAnnotations(
                ContentAnnotations(
                    audience=("assistant",),
                    priority=0.8,
                    last_modified="2026-10-21T12:00:00Z",
                )
            )
        )


# -- "Tool annotations, icons and caching" ----------------------------------------------


class StoreHoursTool(Tool):
    name = "store-hours"
    annotations = ToolAnnotations(
        read_only=True,
        destructive=False,
        idempotent=True,
        open_world=False,
    )

    async def handle(self) -> McpResponse:
        return McpResponse.text("Monday to Friday, 09:00–17:00 UTC.")


class PublicCatalogResource(Resource):
    name = "public-catalog"
    uri = "catalog://public"
    mime_type = "application/json"
    cache = CacheHint(ttl_ms=30_000, scope="public")
    icons = (Icon(src="https://example.org/catalog.svg", mime_type="image/svg+xml"),)

    async def handle(self) -> McpResponse:
        return McpResponse.structured({"categories": ["books", "music"]})


# -- "Explicit protocol results" --------------------------------------------------------


class ExplicitResultTool(Tool):
    name = "explicit-result"

    async def handle(self) -> CallToolResult:
        return CallToolResult(
            content=(TextContent(text="Ready"),),
            structuredContent={"ready": True},
            isError=False,
            meta={"example.org/source": "integration"},
        )


class ResponsesServer(Server):
    tools = (
        ReportSummaryTool,
        OrderSummaryTool,
        BrandAssetsTool,
        FindOrderTool,
        AnnotatedOrderTool,
        StoreHoursTool,
        ExplicitResultTool,
    )
    resources = (PublicCatalogResource,)
    prompts = (ReviewOrderPrompt,)


# -- served: responses and content ------------------------------------------------------


async def test_report_summary_tool_returns_text_and_a_link_it_does_not_read() -> None:
    reply = await call(ResponsesServer, "tools/call", {"name": "report-summary"})
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info(),
            "content": [
                {"type": "text", "text": "The latest report contains 12 completed orders."},
                {
                    "type": "resource_link",
                    "uri": "reports://latest",
                    "name": "latest-report",
                    "title": "Latest report",
                    "description": "Read the complete report.",
                    "mimeType": "application/json",
                },
            ],
            "isError": False,
        }
    )
    # The link neither registers nor reads its target.
    unread = await call(ResponsesServer, "resources/read", {"uri": "reports://latest"})
    assert unread["error"]["code"] == INVALID_PARAMS


async def test_order_summary_tool_returns_the_documented_result() -> None:
    params = {"name": "order-summary", "arguments": {"order_id": 42}}
    reply = await call(ResponsesServer, "tools/call", params)
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info(),
            "content": [{"type": "text", "text": '{"order_id":42,"status":"ready","total":42.5}'}],
            "structuredContent": {"order_id": 42, "status": "ready", "total": 42.5},
            "isError": False,
        }
    )


async def test_order_summary_tool_publishes_its_input_and_output_schemas() -> None:
    tools = (await call(ResponsesServer, "tools/list"))["result"]["tools"]
    (listed,) = [t for t in tools if t["name"] == "order-summary"]
    assert listed == {
        "name": "order-summary",
        "description": "Return a typed order summary.",
        "inputSchema": OrderSummaryInput.json_schema(),
        "outputSchema": OrderSummaryOutput.json_schema(),
    }


async def test_brand_assets_tool_returns_image_and_audio_encoded_once() -> None:
    reply = await call(ResponsesServer, "tools/call", {"name": "brand-assets"})
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info(),
            "content": [
                {
                    "type": "image",
                    "data": base64.b64encode(BRAND_FILES["brand/logo.png"]).decode(),
                    "mimeType": "image/png",
                },
                {
                    "type": "audio",
                    "data": base64.b64encode(BRAND_FILES["brand/welcome.wav"]).decode(),
                    "mimeType": "audio/wav",
                },
            ],
            "isError": False,
        }
    )


async def test_brand_assets_tool_reads_both_files_from_the_local_storage(
    settings: Any, tmp_path: Any
) -> None:
    from django_mcp import storage

    class StoredBrandAssetsTool(Tool):
        name = "brand-assets"
        description = "Return the bundled logo and welcome audio."

        async def handle(self) -> list[McpResponse]:
            disk = storage.disk("local")
            logo, audio = await asyncio.gather(
                disk.file("brand/logo.png").read(),
                disk.file("brand/welcome.wav").read(),
            )
            return [
                McpResponse.image(logo, "image/png"),
                McpResponse.audio(audio, "audio/wav"),
            ]

    class StoredBrandServer(Server):
        tools = (StoredBrandAssetsTool,)

    (tmp_path / "brand").mkdir()
    for path, raw in BRAND_FILES.items():
        (tmp_path / path).write_bytes(raw)
    settings.STORAGES = {
        **settings.STORAGES,
        "local": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path)},
        },
    }
    reply = await call(StoredBrandServer, "tools/call", {"name": "brand-assets"})
    logo, audio = (base64.b64encode(raw).decode() for raw in BRAND_FILES.values())
    assert reply["result"]["content"] == [
        {"type": "image", "data": logo, "mimeType": "image/png"},
        {"type": "audio", "data": audio, "mimeType": "audio/wav"},
    ]


def test_resource_example_encodes_json_msgpack_and_csv() -> None:
    value = {"ready": True, "count": 2}
    json_resource = McpResponse.resource(
        "reports://status",
        value,
        "application/json",
    )
    packed_resource = McpResponse.resource(
        "reports://status",
        value,
        "application/msgpack",
    )
    csv_resource = McpResponse.resource(
        "reports://orders.csv",
        "id,status\n42,ready\n",
        "text/csv",
    )

    assert msgspec.json.decode(json_resource.content[0].resource.text) == value
    assert (
        msgspec.msgpack.decode(
            base64.b64decode(packed_resource.content[0].resource.blob),
        )
        == value
    )
    assert csv_resource.content[0].resource.text.startswith("id,status")


async def test_review_order_prompt_makes_one_message_per_block_with_its_role() -> None:
    params = {"name": "review-order", "arguments": {"summary": "Order 42: 2 items."}}
    reply = await call(ResponsesServer, "prompts/get", params)
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info(),
            "messages": [
                {
                    "role": "user",
                    "content": {"type": "text", "text": "Summarize the order and identify missing data."},
                },
                {
                    "role": "assistant",
                    "content": {"type": "text", "text": "I will check totals, status and delivery details."},
                },
                {"role": "user", "content": {"type": "text", "text": "Order 42: 2 items."}},
            ],
        }
    )


async def test_review_order_prompt_requires_its_summary() -> None:
    reply = await call(ResponsesServer, "prompts/get", {"name": "review-order"})
    assert reply["error"]["code"] == INVALID_PARAMS


async def test_find_order_tool_reports_a_missing_order_as_a_tool_error() -> None:
    reply = await call(ResponsesServer, "tools/call", {"name": "find-order", "arguments": {"order_id": 7}})
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info(),
            "content": [{"type": "text", "text": "Order not found."}],
            "isError": True,
        }
    )


async def test_find_order_tool_returns_the_order() -> None:
    reply = await call(ResponsesServer, "tools/call", {"name": "find-order", "arguments": {"order_id": 42}})
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info(),
            "content": [{"type": "text", "text": '{"order_id":42,"status":"ready"}'}],
            "structuredContent": {"order_id": 42, "status": "ready"},
            "isError": False,
        }
    )


async def test_find_order_tool_reports_invalid_arguments_as_a_tool_error() -> None:
    reply = await call(ResponsesServer, "tools/call", {"name": "find-order", "arguments": {"order_id": "x"}})
    result = reply["result"]
    assert (result["isError"], len(result["content"]), result["content"][0]["type"]) == (True, 1, "text")
    # docs/responses.md names this prefix: it is the rule, not an incidental detail.
    assert result["content"][0]["text"].startswith("Invalid tool arguments")


def test_metadata_example_keeps_the_original_and_annotates_a_copy() -> None:
    original = McpResponse.structured({"order_id": 42, "status": "ready"})
    annotated = (
        original.withMeta({"example.org/trace": "order-42"})
        .withContentMeta({"example.org/source": "orders"})
        .withAnnotations(
            ContentAnnotations(
                audience=("assistant",),
                priority=0.8,
                last_modified="2026-10-21T12:00:00Z",
            )
        )
    )

    assert original.meta == {}
    assert annotated.meta["example.org/trace"] == "order-42"
    assert annotated.content[0].meta["example.org/source"] == "orders"


async def test_metadata_example_reaches_result_meta_and_every_block_on_the_wire() -> None:
    reply = await call(ResponsesServer, "tools/call", {"name": "annotated-order"})
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": {"example.org/trace": "order-42", **server_info()},
            "content": [
                {
                    "type": "text",
                    "text": '{"order_id":42,"status":"ready"}',
                    "annotations": {
                        "audience": ["assistant"],
                        "priority": 0.8,
                        "lastModified": "2026-10-21T12:00:00Z",
                    },
                    "_meta": {"example.org/source": "orders"},
                }
            ],
            "structuredContent": {"order_id": 42, "status": "ready"},
            "isError": False,
        }
    )


async def test_store_hours_tool_publishes_its_annotations_as_hints() -> None:
    tools = (await call(ResponsesServer, "tools/list"))["result"]["tools"]
    (listed,) = [t for t in tools if t["name"] == "store-hours"]
    assert listed == {
        "name": "store-hours",
        "inputSchema": {"type": "object", "additionalProperties": False},
        "annotations": {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    }


async def test_store_hours_tool_result_carries_no_cache_hint() -> None:
    reply = await call(ResponsesServer, "tools/call", {"name": "store-hours"})
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info(),
            "content": [{"type": "text", "text": "Monday to Friday, 09:00–17:00 UTC."}],
            "isError": False,
        }
    )


async def test_public_catalog_resource_is_listed_with_its_icon() -> None:
    reply = await call(ResponsesServer, "resources/list")
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info(),
            "ttlMs": 0,
            "cacheScope": "private",
            "resources": [
                {
                    "uri": "catalog://public",
                    "name": "public-catalog",
                    "mimeType": "application/json",
                    "icons": [{"src": "https://example.org/catalog.svg", "mimeType": "image/svg+xml"}],
                }
            ],
        }
    )


async def test_public_catalog_resource_read_carries_its_public_cache_hint() -> None:
    reply = await call(ResponsesServer, "resources/read", {"uri": "catalog://public"})
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info(),
            "contents": [
                {
                    "uri": "catalog://public",
                    "text": '{"categories":["books","music"]}',
                    "mimeType": "application/json",
                }
            ],
            "ttlMs": 30_000,
            "cacheScope": "public",
        }
    )


async def test_explicit_result_tool_is_published_as_returned() -> None:
    reply = await call(ResponsesServer, "tools/call", {"name": "explicit-result"})
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": {"example.org/source": "integration", **server_info()},
            "content": [{"type": "text", "text": "Ready"}],
            "structuredContent": {"ready": True},
            "isError": False,
        }
    )


# -- content, serialization and metadata ------------------------------------------------


def test_structured_example_keeps_data_and_block_metadata() -> None:
    result = (
        McpResponse.structured({"status": "ok", "count": 2})
        .withMeta({"example.org/trace": "docs"})
        .withContentMeta({"example.org/source": "catalog"})
        .withAnnotations(ContentAnnotations(audience=("assistant",), priority=0.8))
    )
    assert result.structured_content == {"status": "ok", "count": 2}
    assert result.content[0].meta["example.org/source"] == "catalog"


def test_json_or_messagepack_resource_example_round_trips_the_value() -> None:
    value = {"ready": True, "count": 2}
    json_result = McpResponse.resource("demo://status", value, "application/json")
    packed = McpResponse.resource("demo://status", value, "application/msgpack")
    assert msgspec.json.decode(json_result.content[0].resource.text) == value
    assert msgspec.msgpack.decode(base64.b64decode(packed.content[0].resource.blob)) == value


# -- resources, URI templates and prompts -----------------------------------------------


class UserResource(Resource):
    uri_template = "demo://users/{user_id}"
    mime_type = "application/json"

    def handle(self, user_id: str) -> McpResponse:
        return McpResponse.structured({"id": user_id})


class DirectoryServer(Server):
    name = "Directory"
    resources = (UserResource,)


def test_directory_server_compiles_one_template() -> None:
    assert len(compile_server(DirectoryServer).templates) == 1


async def test_reading_a_user_resource_returns_its_uri_variable() -> None:
    reply = await call(DirectoryServer, "resources/read", {"uri": "demo://users/42"})
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info("Directory"),
            "contents": [{"uri": "demo://users/42", "text": '{"id":"42"}', "mimeType": "application/json"}],
            "ttlMs": 0,
            "cacheScope": "private",
        }
    )
    assert msgspec.json.decode(reply["result"]["contents"][0]["text"]) == {"id": "42"}


async def test_directory_server_lists_its_template() -> None:
    reply = await call(DirectoryServer, "resources/templates/list")
    assert reply["result"]["resourceTemplates"] == [
        {"uriTemplate": "demo://users/{user_id}", "name": "user", "mimeType": "application/json"}
    ]


class ExplainPrompt(Prompt):
    arguments = (PromptArgument(name="topic", required=True),)

    def handle(self, topic: str) -> McpResponse:
        return McpResponse.text(f"Explain {topic}").asUser()

    def complete(self) -> Completion:
        return Completion(values=("sessions", "routing"))


class GuideServer(Server):
    name = "Guide"
    prompts = (ExplainPrompt,)


def test_guide_server_compiles_the_explain_prompt() -> None:
    assert "explain" in compile_server(GuideServer).prompts


async def test_explain_prompt_produces_one_user_message() -> None:
    reply = await call(GuideServer, "prompts/get", {"name": "explain", "arguments": {"topic": "routing"}})
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info("Guide"),
            "messages": [{"role": "user", "content": {"type": "text", "text": "Explain routing"}}],
        }
    )


async def test_explain_prompt_completes_its_topic() -> None:
    params = {"ref": {"type": "ref/prompt", "name": "explain"}, "argument": {"name": "topic", "value": ""}}
    reply = await call(GuideServer, "completion/complete", params)
    assert reply == ok(
        {
            "resultType": "complete",
            "_meta": server_info("Guide"),
            "completion": {"values": ["sessions", "routing"]},
        }
    )
