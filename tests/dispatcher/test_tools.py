"""Tool calls: django_mcp/dispatcher/tools.py, arguments that do not fit.

A ``tools/call`` whose arguments do not fit the tool's input answers one
``isError`` result listing every failing field, as text lines and as
``structuredContent`` ``{"errors": ...}``, never quoting a value. The
requests go through a real ``Dispatcher`` (``tests.wire``); every message
is checked against the spec schemas by the wire-schema fixture.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import msgspec
import pytest

from django_mcp import McpResponse, Server, Tool
from django_mcp.dispatcher import tools
from django_mcp.exceptions import SchemaValidationError
from django_mcp.field_errors import field_errors_result
from django_mcp.schemas import Schema, rule
from tests.wire import META_SERVER_INFO, call

SECRET = "hunter2-do-not-echo"


class Address(Schema):
    street: str
    zip_code: Annotated[str, msgspec.Meta(pattern="^[0-9]{5}$")]


class Signup(Schema, rename="camel"):
    user_name: Annotated[str, msgspec.Meta(min_length=3)]
    age: Annotated[int, msgspec.Meta(ge=18)]
    plan: Literal["free", "pro"] = "free"
    address: Address | None = None


class SignupTool(Tool[Signup]):
    name = "signup"

    def handle(self, payload: Signup) -> McpResponse:
        return McpResponse.text(f"Welcome, {payload.user_name}.")


class Booking(Schema):
    room: int
    nights: int

    @rule(field="nights")
    def at_most_a_month(self) -> None:
        if self.nights > 30:
            raise ValueError("at most 30 nights")

    @rule
    def not_room_13(self) -> None:
        if self.room == 13:
            raise ValueError("room 13 cannot be booked")


class BookingTool(Tool[Booking]):
    name = "book"

    def handle(self, payload: Booking) -> McpResponse:
        return McpResponse.text("Booked.")


class Receipt(Schema):
    total: int


class PayTool(Tool[Signup, Receipt]):
    name = "pay"

    def handle(self, payload: Signup) -> McpResponse:
        if payload.user_name == "broke":
            # The output schema does not apply to an isError result.
            return field_errors_result({"age": ["too young to pay"]}, prefix="Payment refused:")
        return McpResponse.structured({"total": 5})


CONTACT_SCHEMA = {
    "type": "object",
    "properties": {
        "method": {"enum": ["phone", "email"]},
        "phone": {"type": "string", "pattern": "^[0-9]+$"},
        "count": {"type": "integer", "minimum": 1},
    },
    "required": ["method", "phone"],
    "additionalProperties": False,
}


class ContactTool(Tool):
    name = "contact"
    input = CONTACT_SCHEMA

    def handle(self, arguments: dict[str, Any]) -> McpResponse:
        return McpResponse.text(f"Contacting by {arguments['method']}.")


class SignupServer(Server):
    name = "signups"
    tools = (SignupTool, BookingTool, PayTool, ContactTool)


SERVER_INFO = {META_SERVER_INFO: {"name": "signups", "version": "0.1.0"}}


async def answer(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Return the whole decoded ``tools/call`` reply's ``result``."""
    reply = await call(SignupServer, "tools/call", {"name": name, "arguments": arguments})
    result: dict[str, Any] = reply["result"]
    return result


def refused(
    lines: list[str], errors: dict[str, list[str]], *, first: str = "Invalid tool arguments:"
) -> dict:
    """Return the result refusing a call: text lines plus ``{"errors": ...}``."""
    return {
        "resultType": "complete",
        "_meta": SERVER_INFO,
        "content": [{"type": "text", "text": "\n".join([first, *lines])}],
        "structuredContent": {"errors": errors},
        "isError": True,
    }


# -------------------------------------------------------------- on the wire


async def test_three_bad_fields_answer_three_lines_and_three_keys() -> None:
    result = await answer("signup", {"userName": "al", "age": 12, "plan": "gold"})

    assert result == refused(
        [
            "- userName: expected str of length >= 3",
            "- age: expected int >= 18",
            "- plan: invalid enum value",
        ],
        {
            "userName": ["expected str of length >= 3"],
            "age": ["expected int >= 18"],
            "plan": ["invalid enum value"],
        },
    )


async def test_missing_wrong_type_and_unknown_fields_are_answered_together() -> None:
    result = await answer("signup", {"zeta": 1, "userName": 5, "alpha": True})

    assert result == refused(
        [
            "- userName: expected str, got int",
            "- age: required field is missing",
            "- alpha: unknown field",
            "- zeta: unknown field",
        ],
        {
            "userName": ["expected str, got int"],
            "age": ["required field is missing"],
            "alpha": ["unknown field"],
            "zeta": ["unknown field"],
        },
    )


async def test_a_nested_schema_reports_its_first_error_under_its_field() -> None:
    result = await answer("signup", {"userName": "ada", "age": "36", "address": {"street": 1}})

    assert result == refused(
        ["- age: expected int, got str", "- address.street: expected str, got int"],
        {"age": ["expected int, got str"], "address.street": ["expected str, got int"]},
    )


async def test_every_rule_failure_is_answered_after_the_structure_passes() -> None:
    structure = await answer("book", {"room": "13", "nights": "40"})
    rules = await answer("book", {"room": 13, "nights": 40})

    assert structure == refused(
        ["- room: expected int, got str", "- nights: expected int, got str"],
        {"room": ["expected int, got str"], "nights": ["expected int, got str"]},
    )
    # A whole-object rule's problem has the path "": a line without a path.
    assert rules == refused(
        ["- nights: at most 30 nights", "- room 13 cannot be booked"],
        {"nights": ["at most 30 nights"], "": ["room 13 cannot be booked"]},
    )


async def test_a_raw_json_schema_tool_answers_every_problem_without_values() -> None:
    result = await answer("contact", {"method": SECRET, "count": SECRET, "extra": SECRET})

    assert result == refused(
        [
            "- count: expected integer, got string",
            "- extra: unknown field",
            "- method: invalid enum value",
            "- phone: required field is missing",
        ],
        {
            "count": ["expected integer, got string"],
            "extra": ["unknown field"],
            "method": ["invalid enum value"],
            "phone": ["required field is missing"],
        },
    )


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("signup", {"userName": SECRET, "age": SECRET, "plan": SECRET, "address": {"zip_code": SECRET}}),
        ("signup", {"userName": 1, "age": 20, "plan": SECRET}),
        ("contact", {"method": SECRET, "phone": SECRET, "count": SECRET}),
        ("contact", {"method": "phone", "phone": SECRET}),
    ],
)
async def test_a_secret_argument_value_never_appears_in_the_answer(name: str, arguments: dict) -> None:
    result = await answer(name, arguments)

    assert result["isError"] is True
    assert SECRET not in json.dumps(result)
    assert SECRET[:7] not in json.dumps(result)


async def test_valid_arguments_still_run_the_tool() -> None:
    signup = await answer(
        "signup", {"userName": "ada", "age": 36, "address": {"street": "x", "zip_code": "12345"}}
    )
    contact = await answer("contact", {"method": "phone", "phone": "0123"})

    text = {"resultType": "complete", "_meta": SERVER_INFO, "isError": False}
    assert signup == {**text, "content": [{"type": "text", "text": "Welcome, ada."}]}
    assert contact == {**text, "content": [{"type": "text", "text": "Contacting by phone."}]}


async def test_a_tool_with_an_output_schema_answers_field_errors_unchecked() -> None:
    invalid = await answer("pay", {"userName": "ada"})
    refused_by_handler = await answer("pay", {"userName": "broke", "age": 20})
    paid = await answer("pay", {"userName": "ada", "age": 20})

    assert invalid == refused(["- age: required field is missing"], {"age": ["required field is missing"]})
    assert refused_by_handler == refused(
        ["- age: too young to pay"], {"age": ["too young to pay"]}, first="Payment refused:"
    )
    assert paid["structuredContent"] == {"total": 5}


# ---------------------------------------------------------------- payload_for


def entry(name: str) -> Any:
    return SignupServer.compiled().tools[name]


async def test_payload_for_raises_every_failing_field() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        await tools.payload_for(entry("signup"), {"userName": None, "age": None, "x": 0})

    assert excinfo.value.errors == [
        ("userName", "expected str, got null"),
        ("age", "expected int, got null"),
        ("x", "unknown field"),
    ]


async def test_payload_for_validates_valid_arguments_with_one_msgspec_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[Any] = []
    convert = msgspec.convert

    def counting(value: Any, tp: Any, **kwargs: Any) -> Any:
        calls.append(tp)
        return convert(value, tp, **kwargs)

    monkeypatch.setattr(msgspec, "convert", counting)
    payload = await tools.payload_for(entry("signup"), {"userName": "ada", "age": 36})

    assert payload == Signup(user_name="ada", age=36)
    assert calls == [Signup]


async def test_payload_for_a_raw_schema_rewords_jsonschema_messages_without_values() -> None:
    with pytest.raises(SchemaValidationError) as excinfo:
        await tools.payload_for(entry("contact"), {"method": "phone", "phone": SECRET})

    assert excinfo.value.errors == [("phone", "expected string matching regex '^[0-9]+$'")]
