"""Tests for django_mcp.server.primitives: components and their value types.

Value types are checked on construction; how components behave is checked
on the wire, through the real dispatcher.
"""

import base64
import re
from typing import Any

import msgspec
import pytest

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
from django_mcp.inputs import input_required
from django_mcp.protocol.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS
from tests.wire import call

SERVER_INFO = {"io.modelcontextprotocol/serverInfo": {"name": "django-mcp", "version": "0.1.0"}}


def error_code(reply: Any) -> int | None:
    return None if "result" in reply else reply["error"]["code"]


# -- Icon ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "src",
    [
        "https://example.org/catalog.svg",
        "HTTPS://example.org/x.png",
        "https://example.org:8443/x.png?v=2#frag",
        "https://[2001:db8::1]/x.png",
        "data:image/png;base64,iVBORw0KGgo=",
        "data:image/svg+xml;charset=utf-8,%3Csvg%2F%3E",
        "data:;base64,iVBORw==",
        "data:,plain%20text",
        "DATA:image/png;BASE64,iVBORw==",
    ],
)
def test_icon_accepts_https_and_data_uris(src: str) -> None:
    assert Icon(src=src, mime_type="image/png").src == src


@pytest.mark.parametrize(
    "src",
    [
        "http://example.org/catalog.svg",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "/static/catalog.svg",
        "example.org/catalog.svg",
        "https:",
        "data:",
        "",
    ],
)
def test_icon_refuses_anything_but_https_and_data_uris(src: str) -> None:
    with pytest.raises(ValueError):
        Icon(src=src)


@pytest.mark.parametrize(
    "src",
    [
        "https://",
        "https:foo",
        "https:/example.org/x.png",
        "https:///x.png",
        "https://:443/x.png",
        "https://user@/x.png",
        "https://[::1/x.png",
        "https://example.org:99999/x.png",
        "https://example.org/a b.png",
    ],
)
def test_icon_refuses_an_https_uri_without_a_valid_host(src: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(src))):
        Icon(src=src)


@pytest.mark.parametrize(
    "src",
    [
        "data:image/png",
        "data:x",
        "data:image/png;base64",
        "data:image/png;base64,",
        "data:image/png,",
        "data:image/png;base64,not base64",
        "data:image/png;base64,iVBORw0KGgo",
        "data:image/png;base64,iVB*Rw==",
        "data:png;base64,iVBORw==",
        "data:image/png;charset;base64,iVBORw==",
    ],
    ids=[
        "no-comma",
        "no-mediatype-no-comma",
        "base64-no-comma",
        "empty-base64-payload",
        "empty-payload",
        "whitespace",
        "bad-padding",
        "bad-alphabet",
        "mediatype-without-subtype",
        "parameter-without-value",
    ],
)
def test_icon_refuses_a_data_uri_that_is_not_rfc_2397(src: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(src))):
        Icon(src=src)


def test_icon_encodes_as_a_published_reference() -> None:
    icon = Icon(src="https://example.org/catalog.svg", mime_type="image/svg+xml", sizes=("any",))
    assert msgspec.json.decode(msgspec.json.encode(icon)) == {
        "src": "https://example.org/catalog.svg",
        "mimeType": "image/svg+xml",
        "sizes": ["any"],
    }


# -- CacheHint ------------------------------------------------------------------------


def test_cache_hint_defaults_to_zero_ttl_and_private_scope() -> None:
    assert (CacheHint().ttl_ms, CacheHint().scope) == (0, "private")


@pytest.mark.parametrize("ttl_ms", [-1, 1.5, 30.0, True, "30000", None])
def test_cache_hint_refuses_a_ttl_that_is_not_a_non_negative_integer(ttl_ms: Any) -> None:
    with pytest.raises(ValueError):
        CacheHint(ttl_ms=ttl_ms)


@pytest.mark.parametrize("scope", ["shared", "PUBLIC", "", None])
def test_cache_hint_refuses_a_scope_other_than_private_or_public(scope: Any) -> None:
    with pytest.raises(ValueError):
        CacheHint(scope=scope)


class CatalogResource(Resource):
    uri = "catalog://public"
    mime_type = "text/plain"
    cache = CacheHint(ttl_ms=30_000, scope="public")

    async def handle(self) -> McpResponse:
        return McpResponse.text("catalog")


class CatalogTemplate(Resource):
    uri_template = "catalog://items/{item_id}"

    def handle(self, item_id: str) -> McpResponse:
        return McpResponse.text(item_id)


class PingTool(Tool):
    name = "ping"

    async def handle(self) -> McpResponse:
        return McpResponse.text("pong")


class HelloPrompt(Prompt):
    async def handle(self) -> McpResponse:
        return McpResponse.text("hello")


class CachedServer(Server):
    cache = CacheHint(ttl_ms=60_000, scope="public")
    tools = (PingTool,)
    resources = (CatalogResource, CatalogTemplate)
    prompts = (HelloPrompt,)


async def test_resource_read_carries_the_resource_cache_hint() -> None:
    reply = await call(CachedServer, "resources/read", {"uri": "catalog://public"})
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "contents": [{"uri": "catalog://public", "text": "catalog", "mimeType": "text/plain"}],
        "ttlMs": 30_000,
        "cacheScope": "public",
    }


async def test_resource_read_without_a_cache_hint_is_immediately_stale_and_private() -> None:
    reply = await call(CachedServer, "resources/read", {"uri": "catalog://items/7"})
    assert (reply["result"]["ttlMs"], reply["result"]["cacheScope"]) == (0, "private")


@pytest.mark.parametrize(
    "method", ["server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list"]
)
async def test_discovery_and_listings_carry_the_server_cache_hint(method: str) -> None:
    reply = await call(CachedServer, method)
    assert (reply["result"]["ttlMs"], reply["result"]["cacheScope"]) == (60_000, "public")


async def test_tool_call_results_carry_no_cache_hint() -> None:
    reply = await call(CachedServer, "tools/call", {"name": "ping"})
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "content": [{"type": "text", "text": "pong"}],
        "isError": False,
    }


class StatefulResource(Resource):
    uri = "catalog://stateful"
    cache = CacheHint(ttl_ms=30_000, scope="public")

    async def handle(self, request: McpRequest) -> Any:
        if request.request_state is None and not request.input_responses:
            return input_required(state={"step": 1})
        return McpResponse.text(f"state={request.request_state}")


class StatefulServer(Server):
    resources = (StatefulResource,)


async def test_continuation_read_with_request_state_is_forced_to_zero_ttl_and_private() -> None:
    first = await call(StatefulServer, "resources/read", {"uri": "catalog://stateful"})
    assert first["result"].keys() == {"resultType", "_meta", "requestState"}
    assert first["result"]["resultType"] == "input_required"

    state = first["result"]["requestState"]
    reply = await call(StatefulServer, "resources/read", {"uri": "catalog://stateful", "requestState": state})
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "contents": [{"uri": "catalog://stateful", "text": "state={'step': 1}"}],
        "ttlMs": 0,
        "cacheScope": "private",
    }


async def test_continuation_read_with_input_responses_is_forced_to_zero_ttl_and_private() -> None:
    params = {"uri": "catalog://stateful", "inputResponses": {"confirm": {"action": "accept", "content": {}}}}
    reply = await call(StatefulServer, "resources/read", params)
    assert (reply["result"]["ttlMs"], reply["result"]["cacheScope"]) == (0, "private")


async def test_tampered_request_state_is_refused() -> None:
    first = await call(StatefulServer, "resources/read", {"uri": "catalog://stateful"})
    state = first["result"]["requestState"] + "x"
    reply = await call(StatefulServer, "resources/read", {"uri": "catalog://stateful", "requestState": state})
    assert error_code(reply) == INVALID_PARAMS


# -- ToolAnnotations -----------------------------------------------------------------------


class ReadOnlyTool(Tool):
    annotations = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=False)

    async def handle(self) -> McpResponse:
        return McpResponse.text("ok")


class AnnotatedServer(Server):
    tools = (ReadOnlyTool,)


async def test_tool_annotations_are_published_as_hints() -> None:
    reply = await call(AnnotatedServer, "tools/list")
    assert reply["result"]["tools"] == [
        {
            "name": "read-only",
            "inputSchema": {"type": "object", "additionalProperties": False},
            "annotations": {
                "readOnlyHint": True,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": False,
            },
        }
    ]


@pytest.mark.parametrize("field", ["read_only", "destructive", "idempotent", "open_world"])
def test_tool_annotations_refuse_values_that_are_not_booleans(field: str) -> None:
    with pytest.raises(ValueError):
        ToolAnnotations(**{field: "yes"})


# -- Completion ------------------------------------------------------------------------------


def test_completion_accepts_at_most_100_values() -> None:
    values = tuple(f"v{i}" for i in range(100))
    assert Completion(values=values).values == values
    with pytest.raises(ValueError):
        Completion(values=(*values, "v100"))


def test_completion_refuses_values_that_are_not_strings() -> None:
    with pytest.raises(ValueError):
        Completion(values=("a", 1))  # type: ignore[arg-type]


def make_completing_server(result: Any) -> type[Server]:
    prompt = type(
        "TopicPrompt",
        (Prompt,),
        {
            "arguments": (PromptArgument(name="topic"),),
            "handle": lambda self, topic: McpResponse.text(topic),
            "complete": lambda self, argument, value: result,
        },
    )
    return type("CompletingServer", (Server,), {"prompts": (prompt,)})


async def complete(server: type[Server], argument: str = "topic") -> Any:
    params = {"ref": {"type": "ref/prompt", "name": "topic"}, "argument": {"name": argument, "value": "r"}}
    return await call(server, "completion/complete", params)


@pytest.mark.parametrize(
    "result",
    [Completion(values=("sessions", "routing")), ["sessions", "routing"], ("sessions", "routing")],
    ids=["Completion", "list", "tuple"],
)
async def test_complete_may_return_a_completion_or_a_list_or_tuple_of_strings(result: Any) -> None:
    reply = await complete(make_completing_server(result))
    assert reply["result"] == {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "completion": {"values": ["sessions", "routing"]},
    }


async def test_complete_returning_more_than_100_values_fails() -> None:
    reply = await complete(make_completing_server([f"v{i}" for i in range(101)]))
    assert error_code(reply) == INTERNAL_ERROR


async def test_completion_of_an_unknown_argument_is_invalid_params() -> None:
    reply = await complete(make_completing_server(["x"]), argument="nope")
    assert error_code(reply) == INVALID_PARAMS


async def test_completion_of_an_unknown_prompt_is_invalid_params() -> None:
    params = {"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "topic", "value": ""}}
    reply = await call(make_completing_server(["x"]), "completion/complete", params)
    assert error_code(reply) == INVALID_PARAMS


class CityResource(Resource):
    uri_template = "weather://{city}"

    def handle(self, city: str) -> McpResponse:
        return McpResponse.text(city)

    def complete(self, argument: str, value: str, request: McpRequest) -> list[str]:
        return [c for c in ("paris", "porto", "rome") if c.startswith(value)]


class CityServer(Server):
    resources = (CityResource,)


async def test_resource_template_completion_suggests_values_for_a_variable() -> None:
    params = {
        "ref": {"type": "ref/resource", "uri": "weather://{city}"},
        "argument": {"name": "city", "value": "p"},
    }
    reply = await call(CityServer, "completion/complete", params)
    assert reply["result"]["completion"] == {"values": ["paris", "porto"]}


async def test_resource_template_completion_of_an_unknown_template_is_invalid_params() -> None:
    params = {
        "ref": {"type": "ref/resource", "uri": "weather://x"},
        "argument": {"name": "city", "value": ""},
    }
    assert error_code(await call(CityServer, "completion/complete", params)) == INVALID_PARAMS


class ContextPrompt(Prompt):
    arguments = (PromptArgument(name="country"), PromptArgument(name="city"))

    def handle(self, country: str, city: str) -> McpResponse:
        return McpResponse.text(city)

    def complete(self, argument: str, value: str, request: McpRequest) -> list[str]:
        return [argument, value, request.params["ref"]["name"], request.arguments.get("country", "")]


class ContextServer(Server):
    prompts = (ContextPrompt,)


async def test_complete_receives_the_request_and_resolved_arguments_by_injection() -> None:
    params = {
        "ref": {"type": "ref/prompt", "name": "context"},
        "argument": {"name": "city", "value": "Po"},
        "context": {"arguments": {"country": "PT"}},
    }
    reply = await call(ContextServer, "completion/complete", params)
    assert reply["result"]["completion"] == {"values": ["city", "Po", "context", "PT"]}


async def test_resource_template_completion_of_an_unknown_variable_is_invalid_params() -> None:
    params = {
        "ref": {"type": "ref/resource", "uri": "weather://{city}"},
        "argument": {"name": "x", "value": ""},
    }
    assert error_code(await call(CityServer, "completion/complete", params)) == INVALID_PARAMS


# -- Prompt arguments ----------------------------------------------------------------------------


class GreetPrompt(Prompt):
    arguments = (PromptArgument(name="name", required=True), PromptArgument(name="tone"))

    def handle(self, name: str, tone: str = "warm") -> McpResponse:
        return McpResponse.text(f"Greet {name}, {tone}")


class GreetServer(Server):
    prompts = (GreetPrompt,)


async def test_prompt_optional_arguments_may_be_omitted() -> None:
    reply = await call(GreetServer, "prompts/get", {"name": "greet", "arguments": {"name": "Ada"}})
    assert reply["result"]["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Greet Ada, warm"}}
    ]


async def test_prompt_required_arguments_are_enforced() -> None:
    reply = await call(GreetServer, "prompts/get", {"name": "greet", "arguments": {"tone": "dry"}})
    assert error_code(reply) == INVALID_PARAMS


@pytest.mark.parametrize("value", [42, {"first": "Ada"}, ["Ada"], True])
async def test_prompt_arguments_must_be_strings(value: Any) -> None:
    reply = await call(GreetServer, "prompts/get", {"name": "greet", "arguments": {"name": value}})
    assert error_code(reply) == INVALID_PARAMS


async def test_prompt_arguments_are_published_with_their_required_flag() -> None:
    reply = await call(GreetServer, "prompts/list")
    assert reply["result"]["prompts"] == [
        {
            "name": "greet",
            "arguments": [{"name": "name", "required": True}, {"name": "tone", "required": False}],
        }
    ]


class DescribedResource(Resource):
    """Every order, as CSV."""

    uri = "orders://all.csv"
    name = "all-orders"
    title = "All orders"
    mime_type = "text/csv"
    size = 1024
    icons = (Icon(src="https://example.org/orders.svg"),)
    meta = {"com.example/owner": "sales"}
    annotations = ContentAnnotations(audience=("user",), priority=0.5)
    cache = CacheHint(ttl_ms=10, scope="public")

    def handle(self) -> McpResponse:
        return McpResponse.text("id\n1\n")


class DescribedServer(Server):
    resources = (DescribedResource,)


async def test_resource_catalog_attributes_are_published_by_resources_list() -> None:
    reply = await call(DescribedServer, "resources/list")
    assert reply["result"]["resources"] == [
        {
            "uri": "orders://all.csv",
            "name": "all-orders",
            "title": "All orders",
            "description": "Every order, as CSV.",
            "mimeType": "text/csv",
            "size": 1024,
            "icons": [{"src": "https://example.org/orders.svg"}],
            "annotations": {"audience": ["user"], "priority": 0.5},
            "_meta": {"com.example/owner": "sales"},
        }
    ]


# -- Resource templates and McpRequest ----------------------------------------------------------


class AccountResource(Resource):
    uri_template = "demo://accounts/{account_id}/orders/{order_id}"
    mime_type = "application/json"

    async def handle(self, order_id: str, request: McpRequest) -> McpResponse:
        return McpResponse.structured(
            {
                "order_id": order_id,
                "uri": request.uri,
                "uri_variables": dict(request.uri_variables),
                "params_uri": request.params["uri"],
                "method": request.method,
            }
        )


class AccountServer(Server):
    resources = (AccountResource,)


async def test_resource_handler_receives_variables_by_name_and_the_request() -> None:
    uri = "demo://accounts/a%201/orders/42"
    reply = await call(AccountServer, "resources/read", {"uri": uri})
    (contents,) = reply["result"]["contents"]
    assert msgspec.json.decode(contents["text"]) == {
        "order_id": "42",
        "uri": uri,
        "uri_variables": {"account_id": "a 1", "order_id": "42"},
        "params_uri": uri,
        "method": "resources/read",
    }


@pytest.mark.parametrize(
    "uri", ["demo://accounts/1/orders/42/extra", "demo://accounts/1/orders", "demo://other/1/orders/42"]
)
async def test_resource_template_refuses_a_partial_match(uri: str) -> None:
    reply = await call(AccountServer, "resources/read", {"uri": uri})
    assert error_code(reply) == INVALID_PARAMS
    assert reply["error"]["data"] == {"uri": uri}


# -- pagination ----------------------------------------------------------------------------------


def _tool(index: int) -> type[Tool]:
    return type(f"Page{index}Tool", (Tool,), {"handle": lambda self: McpResponse.text("x")})


def _prompt(index: int) -> type[Prompt]:
    return type(f"Page{index}Prompt", (Prompt,), {"handle": lambda self: McpResponse.text("x")})


def _resource(index: int) -> type[Resource]:
    return type(f"Page{index}Resource", (Resource,), {"uri": f"page://{index}", "handle": lambda self: None})


def _template(index: int) -> type[Resource]:
    attrs = {"uri_template": f"page://t{index}/{{x}}", "handle": lambda self, x: None}
    return type(f"Page{index}Template", (Resource,), attrs)


class PagedServer(Server):
    tools = tuple(_tool(i) for i in range(5))
    prompts = tuple(_prompt(i) for i in range(5))
    resources = (*(_resource(i) for i in range(5)), *(_template(i) for i in range(5)))


async def collect(method: str, key: str) -> list[list[str]]:
    pages, params = [], {}
    for _ in range(10):
        result = (await call(PagedServer, method, params))["result"]
        pages.append([item["name"] for item in result[key]])
        if "nextCursor" not in result:
            return pages
        assert isinstance(result["nextCursor"], str)
        params = {"cursor": result["nextCursor"]}
    raise AssertionError("pagination did not end")


@pytest.mark.parametrize(
    ("method", "key", "suffix"),
    [
        ("tools/list", "tools", ""),
        ("prompts/list", "prompts", ""),
        ("resources/list", "resources", ""),
        ("resources/templates/list", "resourceTemplates", "-template"),
    ],
)
async def test_listings_are_paged_with_cursors_until_exhausted(
    settings: Any, method: str, key: str, suffix: str
) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 2
    names = [f"page{i}{suffix}" for i in range(5)]
    assert await collect(method, key) == [names[0:2], names[2:4], names[4:]]


async def test_a_cursor_belongs_to_its_method(settings: Any) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 2
    cursor = (await call(PagedServer, "tools/list"))["result"]["nextCursor"]
    assert "result" in await call(PagedServer, "tools/list", {"cursor": cursor})
    assert error_code(await call(PagedServer, "prompts/list", {"cursor": cursor})) == INVALID_PARAMS


@pytest.mark.parametrize("cursor", ["2", base64.b64encode(b"2").decode(), 2, "garbage"])
async def test_a_cursor_the_server_did_not_issue_is_invalid_params(cursor: Any) -> None:
    assert error_code(await call(PagedServer, "tools/list", {"cursor": cursor})) == INVALID_PARAMS


async def test_a_served_cursor_is_refused_after_the_secret_key_changes(settings: Any) -> None:
    original = settings.SECRET_KEY
    settings.MCP_DEFAULT_PAGE_SIZE = 2
    cursor = (await call(PagedServer, "tools/list"))["result"]["nextCursor"]
    assert "result" in await call(PagedServer, "tools/list", {"cursor": cursor})  # now held as checked

    settings.SECRET_KEY = "another-secret-key-for-this-test-only-0123456789"
    assert error_code(await call(PagedServer, "tools/list", {"cursor": cursor})) == INVALID_PARAMS

    settings.SECRET_KEY_FALLBACKS = [original]
    assert "result" in await call(PagedServer, "tools/list", {"cursor": cursor})


async def test_encoded_pages_follow_the_page_size(settings: Any) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 2
    assert await collect("tools/list", "tools") == [["page0", "page1"], ["page2", "page3"], ["page4"]]
    settings.MCP_DEFAULT_PAGE_SIZE = 3
    assert await collect("tools/list", "tools") == [["page0", "page1", "page2"], ["page3", "page4"]]
