"""The official MCP Python SDK client against the live server, on both eras.

``mcp==2.3.0`` (a test-only dependency) speaks both protocol eras, and its
``Client(url, mode=...)`` picks one:

* ``mode="auto"`` (its default) probes ``server/discover`` and adopts
  2026-07-28 when the server offers it, so against this server it selects
  the stateless 2026-07-28 era: every request carries its own ``_meta``, and
  an ``InputRequiredResult`` is answered by the SDK's multi round trip
  driver, which feeds each embedded request to the same elicitation and
  sampling callbacks and retries the call with ``inputResponses``.
* ``mode="legacy"`` runs the ``initialize`` handshake offering 2025-11-25
  (the SDK's newest handshake version; it cannot offer an older one from
  ``Client``), gets an ``Mcp-Session-Id``, and answers server-to-client
  ``elicitation/create`` and ``sampling/createMessage`` requests arriving on
  the POST's SSE stream through the same callbacks.
* ``mode="2026-07-28"`` pins the modern era without probing.

Each test connects to the conformance fixture server
(testproject/conformance/mcp.py) served by uvicorn, so the whole HTTP stack
is exercised; every wait is bounded by ``anyio.fail_after``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError

from django_mcp.protocol.jsonrpc import INVALID_PARAMS, LEGACY_RESOURCE_NOT_FOUND
from tests.conftest import LIVE_SERVERS

MODERN = "2026-07-28"
LEGACY = "2025-11-25"

#: The SDK's connection mode that selects each era against this server.
CONNECT_MODE = {MODERN: "auto", LEGACY: "legacy"}

#: Seconds any single test may take, connection included.
TIMEOUT = 30

SERVER_NAME = "django-mcp-conformance"


@pytest.fixture(params=[MODERN, LEGACY])
def era(request: pytest.FixtureRequest) -> str:
    """Return the protocol version the test runs on."""
    return str(request.param)


@pytest.fixture(params=LIVE_SERVERS)
def endpoint(request: pytest.FixtureRequest) -> str:
    """Return the URL of the conformance fixture server, served each of the four ways."""
    return f"{request.getfixturevalue(request.param)}/conformance/mcp"


@asynccontextmanager
async def connect(endpoint: str, era: str, **callbacks: Any) -> AsyncIterator[Client]:
    """Connect an SDK client on ``era``; check the negotiated version."""
    async with Client(endpoint, mode=CONNECT_MODE[era], read_timeout_seconds=TIMEOUT, **callbacks) as client:
        assert client.protocol_version == era
        yield client


def text_of(blocks: list[Any]) -> str:
    """Return the text of a one-text-block content list."""
    assert len(blocks) == 1
    assert isinstance(blocks[0], types.TextContent | types.TextResourceContents)
    return blocks[0].text


class Recorder:
    """Answer elicitation and sampling requests, remembering each one."""

    def __init__(self, *, elicit_content: dict[str, Any] | None = None, sample_text: str = "") -> None:
        self.elicit_content = elicit_content or {}
        self.sample_text = sample_text
        self.requests: list[tuple[Any, Any]] = []

    async def elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        self.requests.append((context.request_id, params))
        return types.ElicitResult(action="accept", content=self.elicit_content)

    async def sample(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.requests.append((context.request_id, params))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=self.sample_text),
            model="test-model",
        )


async def test_client_negotiates_each_era_and_names_the_server(endpoint: str, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, era) as client:
            assert client.server_info is not None
            assert (client.server_info.name, client.server_info.version) == (SERVER_NAME, "0.1.0")
            capabilities = client.server_capabilities
            assert capabilities.tools is not None
            assert capabilities.resources is not None
            assert capabilities.prompts is not None
            assert capabilities.completions is not None


async def test_pinned_modern_version_works_without_discovery(endpoint: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with Client(endpoint, mode=MODERN, read_timeout_seconds=TIMEOUT) as client:
            version = client.protocol_version
            result = await client.call_tool("test_simple_text", {})

    assert version == MODERN
    assert result.content == [
        types.TextContent(type="text", text="This is a simple text response for testing.")
    ]


async def test_lists_tools_and_calls_the_simple_text_tool(endpoint: str, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, era) as client:
            listing = await client.list_tools()
            result = await client.call_tool("test_simple_text", {})

    assert listing.tools[0].name == "test_simple_text"
    assert {"test_simple_text", "test_tool_with_progress", "test_elicitation"} <= {
        t.name for t in listing.tools
    }
    assert result.is_error is False
    assert result.content == [
        types.TextContent(type="text", text="This is a simple text response for testing.")
    ]


async def test_progress_callback_receives_three_increasing_updates(endpoint: str, era: str) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, era) as client:
            result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)

    assert updates == [(0, 100, "Starting"), (50, 100, "Halfway"), (100, 100, "Done")]
    assert result.is_error is False
    assert text_of(result.content).startswith("Progress test completed for token ")


async def test_reads_the_static_text_resource(endpoint: str, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, era) as client:
            listing = await client.list_resources()
            result = await client.read_resource("test://static-text")

    assert listing.resources[0].uri == "test://static-text"
    assert result.contents == [
        types.TextResourceContents(
            uri="test://static-text",
            mime_type="text/plain",
            text="This is the content of the static text resource.",
        )
    ]


async def test_reads_a_templated_resource_with_its_variable_filled_in(endpoint: str, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, era) as client:
            templates = await client.list_resource_templates()
            result = await client.read_resource("test://template/123/data")

    assert [t.uri_template for t in templates.resource_templates] == ["test://template/{id}/data"]
    assert [(c.uri, c.mime_type) for c in result.contents] == [
        ("test://template/123/data", "application/json")
    ]
    assert json.loads(text_of(result.contents)) == {
        "id": "123",
        "templateTest": True,
        "data": "Data for ID: 123",
    }


async def test_reading_an_unknown_resource_raises_the_eras_error_code(endpoint: str, era: str) -> None:
    expected_code = INVALID_PARAMS if era == MODERN else LEGACY_RESOURCE_NOT_FOUND
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, era) as client:
            with pytest.raises(MCPError) as raised:
                await client.read_resource("test://unknown")

    assert (raised.value.code, raised.value.data) == (expected_code, {"uri": "test://unknown"})


async def test_lists_prompts_and_gets_the_prompt_with_arguments(endpoint: str, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, era) as client:
            listing = await client.list_prompts()
            result = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})

    prompts = {p.name: p for p in listing.prompts}
    assert prompts["test_prompt_with_arguments"] == types.Prompt(
        name="test_prompt_with_arguments",
        description="A prompt with two required arguments.",
        arguments=[
            types.PromptArgument(name="arg1", description="First argument", required=True),
            types.PromptArgument(name="arg2", description="Second argument", required=True),
        ],
    )
    assert result.messages == [
        types.PromptMessage(
            role="user",
            content=types.TextContent(type="text", text="Prompt with arguments: arg1='a', arg2='b'"),
        )
    ]


async def test_completes_a_prompt_argument(endpoint: str, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, era) as client:
            result = await client.complete(
                types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
                {"name": "arg1", "value": "te"},
            )

    assert result.completion == types.Completion(values=["test", "testing", "test-value"])


@pytest.mark.parametrize(
    ("tool", "arguments", "key", "question", "content", "answer"),
    [
        pytest.param(
            "test_elicitation",
            {"message": "Who?"},
            "user",
            "Who?",
            {"username": "u", "email": "e@example.com"},
            'User response: action=accept, content={"username":"u","email":"e@example.com"}',
            id="test_elicitation",
        ),
        pytest.param(
            "test_input_required_result_elicitation",
            {},
            "user_name",
            "What is your name?",
            {"name": "Ada"},
            "Hello, Ada!",
            id="test_input_required_result_elicitation",
        ),
    ],
)
async def test_elicitation_callback_answers_the_tools_question(
    endpoint: str,
    era: str,
    tool: str,
    arguments: dict[str, Any],
    key: str,
    question: str,
    content: dict[str, Any],
    answer: str,
) -> None:
    recorder = Recorder(elicit_content=content)
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, era, elicitation_callback=recorder.elicit) as client:
            result = await client.call_tool(tool, arguments)

    assert result.is_error is False
    assert text_of(result.content) == answer
    [(request_id, params)] = recorder.requests
    assert isinstance(params, types.ElicitRequestFormParams)
    assert params.message == question
    assert set(params.requested_schema["properties"]) == set(content)
    # The SDK's multi round trip driver hands the callback the inputRequests
    # key as the request id; a 2025-11-25 elicitation/create arrives as a
    # JSON-RPC request with the server's own id instead.
    assert (request_id == key) is (era == MODERN)


async def test_sampling_callback_answers_the_tools_prompt(endpoint: str, era: str) -> None:
    recorder = Recorder(sample_text="Paris")
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, era, sampling_callback=recorder.sample) as client:
            result = await client.call_tool("test_sampling", {"prompt": "What is the capital of France?"})

    assert result.is_error is False
    assert result.content == [types.TextContent(type="text", text="LLM response: Paris")]
    [(_, params)] = recorder.requests
    assert params.max_tokens == 100
    assert params.messages == [
        types.SamplingMessage(
            role="user", content=types.TextContent(type="text", text="What is the capital of France?")
        )
    ]
