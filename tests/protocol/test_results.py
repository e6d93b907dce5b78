"""django_mcp.protocol.results: the members each result encodes, and the defaults it keeps."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from django_mcp.protocol.content import TextContent
from django_mcp.protocol.results import (
    CallToolResult,
    CompleteResult,
    CompletionValues,
    EmptyResult,
    GetPromptResult,
    InputRequest,
    InputRequiredResult,
    ListToolsResult,
    PromptMessage,
    ReadResourceResult,
)


def wire(result: Any) -> Any:
    return json.loads(msgspec.json.encode(result))


def test_every_result_says_it_is_complete_and_keeps_its_empty_defaults() -> None:
    assert wire(EmptyResult()) == {"resultType": "complete"}
    assert wire(CallToolResult()) == {"resultType": "complete", "content": [], "isError": False}
    assert wire(ReadResourceResult()) == {"resultType": "complete", "contents": []}
    assert wire(GetPromptResult()) == {"resultType": "complete", "messages": []}
    assert wire(ListToolsResult()) == {"resultType": "complete", "tools": []}


def test_members_are_spelt_in_camel_case_and_unset_ones_are_left_out() -> None:
    listed = ListToolsResult(next_cursor="c2", ttl_ms=60_000, cache_scope="private", meta={"k": 1})

    assert wire(listed) == {
        "resultType": "complete",
        "_meta": {"k": 1},
        "ttlMs": 60_000,
        "cacheScope": "private",
        "tools": [],
        "nextCursor": "c2",
    }


def test_a_tool_result_carries_its_content_and_structured_content() -> None:
    result = CallToolResult(
        content=(TextContent(text="3 books"),), structuredContent={"count": 3}, isError=True
    )

    assert wire(result) == {
        "resultType": "complete",
        "content": [{"type": "text", "text": "3 books"}],
        "structuredContent": {"count": 3},
        "isError": True,
    }


def test_an_input_required_result_names_its_requests_and_state() -> None:
    result = InputRequiredResult(
        input_requests={"roots": InputRequest(method="roots/list")},
        request_state="signed",
    )

    assert wire(result) == {
        "resultType": "input_required",
        "inputRequests": {"roots": {"method": "roots/list"}},
        "requestState": "signed",
    }


def test_a_prompt_message_and_completion_values_encode_every_member_given() -> None:
    prompt = GetPromptResult(
        messages=(PromptMessage(role="user", content=TextContent(text="Define it.")),), description="Define"
    )
    complete = CompleteResult(completion=CompletionValues(values=("py", "pyx"), total=2, has_more=False))

    assert wire(prompt)["messages"] == [{"role": "user", "content": {"type": "text", "text": "Define it."}}]
    assert wire(prompt)["description"] == "Define"
    assert wire(complete) == {
        "resultType": "complete",
        "completion": {"values": ["py", "pyx"], "total": 2, "hasMore": False},
    }
    assert wire(CompleteResult()) == {"resultType": "complete", "completion": {"values": []}}
