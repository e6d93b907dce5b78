"""Tests for django_mcp.server._call_plan: what a tool's call does, settled at compile time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from django_mcp import McpRequest, McpResponse, Server, Tool
from django_mcp.schemas import Schema, rule
from django_mcp.server._call_plan import CallPlan


class Point(Schema):
    x: int


class Ruled(Schema):
    x: int

    @rule
    def positive(self) -> None:
        if self.x <= 0:
            raise ValueError("must be positive")


RAW = {"type": "object", "properties": {"x": {"type": "integer"}}}


class AsyncPayload(Tool[Point, Point]):
    name = "async_payload"

    async def handle(self, payload: Point) -> McpResponse:
        return McpResponse.structured({"x": payload.x})


class SyncNothing(Tool):
    name = "sync_nothing"

    def handle(self) -> McpResponse:
        return McpResponse.text("x")


class WithRequest(Tool[Ruled, Ruled]):
    name = "with_request"

    def handle(self, payload: Ruled, request: McpRequest) -> McpResponse:
        return McpResponse.text("x")


class Streaming(Tool[Point]):
    name = "streaming"

    async def handle(self, payload: Point) -> AsyncIterator[McpResponse]:
        yield McpResponse.text("x")


class RawSchemas(Tool):
    name = "raw"
    input = RAW
    output = RAW

    def handle(self, arguments: dict[str, Any]) -> McpResponse:
        return McpResponse.structured(arguments)


class ListOutput(Tool[Point, list[int]]):
    name = "list_output"

    def handle(self, payload: Point) -> McpResponse:
        return McpResponse.structured([payload.x])


class Planned(Server):
    name = "planned"
    tools = (AsyncPayload, SyncNothing, WithRequest, Streaming, RawSchemas, ListOutput)


def plan(name: str) -> CallPlan:
    return Planned.compiled().tools[name].plan


def test_an_async_handler_taking_its_payload_is_called_directly_and_its_schemas_converted() -> None:
    assert plan("async_payload") == CallPlan(
        convert_to=Point,
        argument="payload",
        is_async=True,
        output_to=Point,
        output_plain=True,
        checks_output=True,
    )


def test_a_sync_handler_taking_nothing_is_called_directly_with_no_arguments() -> None:
    assert plan("sync_nothing") == CallPlan(argument="", is_async=False)


def test_rules_and_the_request_send_the_call_through_the_general_path() -> None:
    assert plan("with_request") == CallPlan(
        convert_to=None, argument=None, output_to=None, output_plain=True, checks_output=True
    )


def test_a_generator_handler_goes_through_the_general_call() -> None:
    assert (plan("streaming").argument, plan("streaming").convert_to) == (None, Point)


def test_raw_json_schemas_are_validated_by_their_compiled_validators() -> None:
    assert plan("raw") == CallPlan(argument="arguments", checks_output=True)


def test_an_output_that_is_not_a_schema_is_converted_as_it_is() -> None:
    assert (plan("list_output").output_to, plan("list_output").output_plain) == (list[int], False)
