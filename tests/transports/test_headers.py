"""The MCP HTTP headers of 2026-07-28 requests, checked against the body.

Wire tests POST to the conformance fixture server; every refusal is HTTP
400 with ``-32020`` (HeaderMismatch) and the request id echoed. Unit tests
cover the decoding helpers of ``django_mcp.transports._headers``.
"""

from __future__ import annotations

import base64
from typing import Any
from unittest.mock import ANY

import pytest

from django_mcp.exceptions import HeaderMismatch
from django_mcp.protocol import jsonrpc
from django_mcp.server._tool_schemas import header_params
from django_mcp.transports._endpoint import validate_headers, validate_param_headers
from django_mcp.transports._headers import McpHeaders, declared_length, decode_value

MODERN = "2026-07-28"


def mismatch(request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": jsonrpc.HEADER_MISMATCH, "message": ANY}}


def b64(text: str) -> str:
    return f"=?base64?{base64.b64encode(text.encode()).decode()}?="


def region_call(wire: Any, arguments: dict[str, Any] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "test_x_mcp_header"}
    if arguments is not None:
        params["arguments"] = arguments
    return wire.request("tools/call", params)


def text_of(body: dict[str, Any]) -> str:
    return str(body["result"]["content"][0]["text"])


# ------------------------------------------------- MCP-Protocol-Version


async def test_missing_version_header_with_meta_is_a_header_mismatch(wire: Any) -> None:
    status, body = await wire.call(wire.request("tools/list"), drop=("MCP-Protocol-Version",))

    assert (status, body) == (400, mismatch())


@pytest.mark.parametrize("header", ["2025-11-25", "2025-06-18", "2099-01-01", "v999.0.0"])
async def test_version_header_different_from_meta_is_a_header_mismatch(wire: Any, header: str) -> None:
    status, body = await wire.call(wire.request("tools/list"), headers={"MCP-Protocol-Version": header})

    assert (status, body) == (400, mismatch())


async def test_header_mismatch_is_checked_before_version_support(wire: Any) -> None:
    meta = wire.meta()
    meta["io.modelcontextprotocol/protocolVersion"] = "v999.0.0"

    status, body = await wire.call(
        wire.request("tools/list", meta=meta), headers={"MCP-Protocol-Version": MODERN}
    )

    assert (status, body) == (400, mismatch())


async def test_version_header_name_is_case_insensitive(wire: Any) -> None:
    request = wire.request("tools/list")

    status, _ = await wire.call(
        request, drop=("MCP-Protocol-Version",), headers={"mcp-protocol-version": MODERN}
    )

    assert status == 200


@pytest.mark.parametrize("header", [f" {MODERN}", f"{MODERN}\t", f"  {MODERN}  "])
async def test_version_header_surrounding_whitespace_is_ignored(wire: Any, header: str) -> None:
    status, _ = await wire.call(wire.request("tools/list"), headers={"MCP-Protocol-Version": header})

    assert status == 200


async def test_duplicated_version_header_is_a_header_mismatch(wire: Any) -> None:
    request = wire.request("tools/list")

    response = await wire.post_raw_headers(
        request,
        [
            ("Accept", "application/json"),
            ("MCP-Protocol-Version", MODERN),
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/list"),
        ],
    )

    assert response.status_code == 400
    assert response.json() == mismatch()


# ----------------------------------------------------------- Mcp-Method


async def test_missing_method_header_is_a_header_mismatch(wire: Any) -> None:
    status, body = await wire.call(wire.request("tools/list"), drop=("Mcp-Method",))

    assert (status, body) == (400, mismatch())


async def test_method_header_surrounding_whitespace_is_ignored(wire: Any) -> None:
    status, _ = await wire.call(wire.request("tools/list"), headers={"Mcp-Method": " tools/list "})

    assert status == 200


@pytest.mark.parametrize("header", ["prompts/list", "TOOLS/LIST", "Tools/List", "tools/list/", "tools"])
async def test_method_header_different_from_body_is_a_header_mismatch(wire: Any, header: str) -> None:
    status, body = await wire.call(wire.request("tools/list"), headers={"Mcp-Method": header})

    assert (status, body) == (400, mismatch())


async def test_method_header_name_is_case_insensitive(wire: Any) -> None:
    status, _ = await wire.call(
        wire.request("tools/list"), drop=("Mcp-Method",), headers={"MCP-METHOD": "tools/list"}
    )

    assert status == 200


async def test_header_check_precedes_method_lookup(wire: Any) -> None:
    status, body = await wire.call(wire.request("unknown/method"), headers={"Mcp-Method": "tools/list"})

    assert (status, body) == (400, mismatch())


async def test_header_check_precedes_params_validation(wire: Any) -> None:
    status, body = await wire.call(
        wire.request("tools/call", {"name": "no_such_tool"}), headers={"Mcp-Name": "x"}
    )

    assert (status, body) == (400, mismatch())


# ------------------------------------------------------------- Mcp-Name


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tools/call", {"name": "test_simple_text"}),
        ("prompts/get", {"name": "test_simple_prompt"}),
        ("resources/read", {"uri": "test://static-text"}),
    ],
)
async def test_missing_name_header_is_a_header_mismatch(
    wire: Any, method: str, params: dict[str, Any]
) -> None:
    status, body = await wire.call(wire.request(method, params), drop=("Mcp-Name",))

    assert (status, body) == (400, mismatch())


@pytest.mark.parametrize(
    ("method", "params", "header"),
    [
        ("tools/call", {"name": "test_simple_text"}, "test_error_handling"),
        ("tools/call", {"name": "test_simple_text"}, "TEST_SIMPLE_TEXT"),
        ("prompts/get", {"name": "test_simple_prompt"}, "test_prompt_with_image"),
        ("resources/read", {"uri": "test://static-text"}, "test://static-binary"),
        ("resources/read", {"uri": "test://static-text"}, "static-text"),
    ],
)
async def test_name_header_different_from_body_is_a_header_mismatch(
    wire: Any, method: str, params: dict[str, Any], header: str
) -> None:
    status, body = await wire.call(wire.request(method, params), headers={"Mcp-Name": header})

    assert (status, body) == (400, mismatch())


@pytest.mark.parametrize("header", ["  test_simple_text  ", "\ttest_simple_text", "test_simple_text "])
async def test_name_header_surrounding_whitespace_is_ignored(wire: Any, header: str) -> None:
    status, body = await wire.call(
        wire.request("tools/call", {"name": "test_simple_text"}), headers={"Mcp-Name": header}
    )

    assert status == 200
    assert body["result"]["isError"] is False


async def test_base64_name_header_is_decoded(wire: Any) -> None:
    status, _ = await wire.call(
        wire.request("tools/call", {"name": "test_simple_text"}),
        headers={"Mcp-Name": b64("test_simple_text")},
    )

    assert status == 200


async def test_base64_uri_header_is_decoded(wire: Any) -> None:
    uri = "test://template/%C3%BC/data"

    status, body = await wire.call(
        wire.request("resources/read", {"uri": uri}), headers={"Mcp-Name": b64(uri)}
    )

    assert status == 200
    assert body["result"]["contents"][0]["uri"] == uri


async def test_base64_non_ascii_name_header_passes_the_header_check(wire: Any) -> None:
    uri = "test://nowhere/ünïcode"

    status, body = await wire.call(
        wire.request("resources/read", {"uri": uri}), headers={"Mcp-Name": b64(uri)}
    )

    # Past the header check: the URI itself names nothing.
    assert body["error"] == {"code": jsonrpc.INVALID_PARAMS, "message": ANY, "data": {"uri": uri}}


async def test_base64_name_header_decoding_to_another_name_is_a_mismatch(wire: Any) -> None:
    status, body = await wire.call(
        wire.request("tools/call", {"name": "test_simple_text"}),
        headers={"Mcp-Name": b64("test_error_handling")},
    )

    assert (status, body) == (400, mismatch())


async def test_name_header_with_invalid_characters_is_a_mismatch(wire: Any) -> None:
    response = await wire.post_raw_headers(
        wire.request("tools/call", {"name": "test_simple_text"}),
        [
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "test_simple_text\x7f"),
        ],
    )

    assert response.status_code == 400
    assert response.json() == mismatch()


async def test_name_header_is_not_needed_on_other_methods(wire: Any) -> None:
    status, _ = await wire.call(wire.request("tools/list"), headers={"Mcp-Name": "anything"})

    assert status == 200


# -------------------------------------------------------- Mcp-Param-*


async def test_param_header_equal_to_the_argument_is_accepted(wire: Any) -> None:
    status, body = await wire.call(
        region_call(wire, {"region": "us-west1"}), headers={"Mcp-Param-Region": "us-west1"}
    )

    assert status == 200
    assert text_of(body) == "region=us-west1"


async def test_param_header_name_is_case_insensitive(wire: Any) -> None:
    status, body = await wire.call(region_call(wire, {"region": "eu"}), headers={"mcp-param-region": "eu"})

    assert status == 200
    assert text_of(body) == "region=eu"


@pytest.mark.parametrize(
    ("argument", "header"),
    [
        ("Hello", "=?base64?SGVsbG8=?="),
        ("Grüße", b64("Grüße")),
        ("", "=?base64??="),
        # Values lacking the prefix or the suffix are literals.
        ("SGVsbG8=", "SGVsbG8="),
        ("=?base64?SGVsbG8=", "=?base64?SGVsbG8="),
        ("base64?SGVsbG8=?=", "base64?SGVsbG8=?="),
    ],
)
async def test_param_header_values_are_decoded_or_literal(wire: Any, argument: str, header: str) -> None:
    status, body = await wire.call(
        region_call(wire, {"region": argument}), headers={"Mcp-Param-Region": header}
    )

    assert status == 200
    assert text_of(body) == f"region={argument}"


@pytest.mark.parametrize(
    "header",
    [
        "=?base64?SGVsbG8?=",  # bad padding
        "=?base64?SGVs!!!bG8=?=",  # outside the alphabet
        "=?base64?SGVsbG8==?=",  # too much padding
        "=?base64?SGVs bG8=?=",  # embedded space
        "=?base64?/w==?=",  # not UTF-8
        "hello",  # plainly different
        "HELLO",  # values are case-sensitive
    ],
)
async def test_bad_or_different_param_header_is_a_mismatch(wire: Any, header: str) -> None:
    status, body = await wire.call(
        region_call(wire, {"region": "Hello"}), headers={"Mcp-Param-Region": header}
    )

    assert (status, body) == (400, mismatch())


async def test_missing_param_header_for_a_present_argument_is_a_mismatch(wire: Any) -> None:
    status, body = await wire.call(region_call(wire, {"region": "us-west1"}))

    assert (status, body) == (400, mismatch())


@pytest.mark.parametrize("arguments", [None, {}, {"region": None}])
async def test_param_header_for_an_absent_argument_is_a_mismatch(wire: Any, arguments: Any) -> None:
    status, body = await wire.call(region_call(wire, arguments), headers={"Mcp-Param-Region": "us-west1"})

    assert (status, body) == (400, mismatch())


@pytest.mark.parametrize("arguments", [None, {}])
async def test_absent_argument_needs_no_param_header(wire: Any, arguments: Any) -> None:
    status, body = await wire.call(region_call(wire, arguments))

    assert status == 200
    assert text_of(body) == "region=<none>"


async def test_null_argument_needs_no_param_header(wire: Any) -> None:
    status, body = await wire.call(region_call(wire, {"region": None}))

    # Headers pass; the null then fails the tool's own input schema.
    assert status == 200
    assert body["result"]["isError"] is True


async def test_duplicated_param_header_is_a_mismatch(wire: Any) -> None:
    response = await wire.post_raw_headers(
        region_call(wire, {"region": "eu"}),
        [
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "test_x_mcp_header"),
            ("Mcp-Param-Region", "eu"),
            ("mcp-param-region", "eu"),
        ],
    )

    assert response.status_code == 400
    assert response.json() == mismatch()


async def test_param_headers_of_unannotated_names_are_ignored(wire: Any) -> None:
    status, _ = await wire.call(
        wire.request("tools/call", {"name": "test_simple_text"}), headers={"Mcp-Param-Other": "x"}
    )

    assert status == 200


# ------------------------------------------------------------ helpers


def test_mcp_headers_are_case_insensitive_and_keep_duplicates() -> None:
    headers = McpHeaders([("Mcp-Method", "tools/list"), ("mcp-param-a", "1"), ("MCP-PARAM-A", "2")])

    assert headers.get("MCP-METHOD") == "tools/list"
    assert headers.get("absent") is None
    with pytest.raises(HeaderMismatch):
        headers.get("Mcp-Param-A")


def test_decode_value_rejects_control_characters() -> None:
    with pytest.raises(HeaderMismatch):
        decode_value("Mcp-Name", "a\nb")


def test_decode_value_only_decodes_the_exact_lowercase_sentinel() -> None:
    assert decode_value("X", "=?base64?aGk=?=") == "hi"
    assert decode_value("X", "=?BASE64?aGk=?=") == "=?BASE64?aGk=?="


def test_header_params_maps_lowercase_header_names_to_properties() -> None:
    schema = {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "plain": {"type": "string"},
        },
    }

    assert header_params(schema) == {"region": ("region", "string"), "count": ("count", "integer")}


def _check_param(kind: str, value: Any, header: str) -> None:
    headers = McpHeaders([("Mcp-Method", "tools/call"), ("Mcp-Param-X", header)])
    validate_param_headers(headers, {"x": value}, {"x": ("x", kind)})


@pytest.mark.parametrize(
    ("kind", "value", "header"),
    [
        ("integer", 42, "42"),
        ("integer", 42, "42.0"),
        ("boolean", True, "true"),
        ("boolean", False, "false"),
        ("string", "a", "a"),
    ],
)
def test_param_values_equal_by_json_type_are_accepted(kind: str, value: Any, header: str) -> None:
    _check_param(kind, value, header)


@pytest.mark.parametrize(
    ("kind", "value", "header"),
    [
        ("integer", 42, "43"),
        ("integer", 42, "forty-two"),
        ("integer", True, "1"),
        ("boolean", True, "True"),
        ("boolean", True, "1"),
        ("string", "a", "A"),
    ],
)
def test_param_values_different_by_json_type_are_refused(kind: str, value: Any, header: str) -> None:
    with pytest.raises(HeaderMismatch):
        _check_param(kind, value, header)


# ------------------------------------------------------- tasks extension

TASKS_EXTENSION = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
async def test_task_methods_need_the_task_id_in_the_name_header(wire: Any, method: str) -> None:
    request = wire.request(method, {"taskId": "abc", "inputResponses": {}}, meta=wire.meta(TASKS_EXTENSION))

    missing = await wire.call(request, drop=("Mcp-Name",))
    other = await wire.call(request, headers={"Mcp-Name": "abd"})
    matching = await wire.call(request)

    assert missing == (400, mismatch())
    assert other == (400, mismatch())
    assert matching[0] == 200
    assert matching[1]["error"]["code"] == jsonrpc.INVALID_PARAMS  # an unknown task, once the headers agree


def test_task_id_is_the_name_of_task_methods() -> None:
    headers = McpHeaders([("Mcp-Method", "tasks/get"), ("Mcp-Name", "=?base64?dC0x?=")])

    validate_headers(headers, method="tasks/get", params={"taskId": "t-1"})
    with pytest.raises(HeaderMismatch):
        validate_headers(headers, method="tasks/get", params={"taskId": "t-2"})


@pytest.mark.parametrize(
    ("value", "length"),
    [("12", 12), (None, None), ("", None), ("-1", None), ("1e3", None), ("\xb2", None), ("1\u0663", None)],
)
def test_only_a_plain_number_is_a_declared_length(value: str | None, length: int | None) -> None:
    assert declared_length(value) == length


# ------------------------------------------------ reading a request's headers

_ENVIRON = {
    "REQUEST_METHOD": "POST",
    "wsgi.url_scheme": "http",
    "HTTP_HOST": " example.com ",
    "CONTENT_TYPE": "Application/JSON; charset=utf-8",
    "CONTENT_LENGTH": "42",
    "HTTP_ACCEPT": "application/json, text/event-stream",
    "HTTP_MCP_PROTOCOL_VERSION": MODERN,
    "HTTP_MCP_METHOD": "tools/call",
    "HTTP_MCP_PARAM_REGION": "eu",
    "HTTP_COOKIE": "a=1; b=2",
}

_ASGI = [
    (b"host", b" example.com "),
    (b"content-type", b"Application/JSON; charset=utf-8"),
    (b"content-length", b"42"),
    (b"accept", b"application/json, text/event-stream"),
    (b"mcp-protocol-version", MODERN.encode()),
    (b"mcp-method", b"tools/call"),
    (b"mcp-param-region", b"eu"),
    (b"cookie", b"a=1; b=2"),
]


@pytest.mark.parametrize(
    "headers", [McpHeaders.from_environ(_ENVIRON), McpHeaders.from_asgi(_ASGI)], ids=["wsgi", "asgi"]
)
def test_an_environ_and_an_asgi_header_list_read_alike(headers: McpHeaders) -> None:
    assert (headers.host, headers.content_type, headers.content_length, headers.accept) == (
        "example.com",
        "application/json",
        42,
        "application/json, text/event-stream",
    )
    assert (headers.protocol_version, headers.session_id, headers.origin, headers.era_repeated) == (
        MODERN,
        None,
        None,
        False,
    )
    assert headers.get("Mcp-Method") == headers.joined("mcp-method") == "tools/call"
    assert headers.joined("Cookie", "; ") == "a=1; b=2"
    assert headers.get("Mcp-Name") is None
    assert headers.with_prefix("Mcp-Param-") == {"region": "eu"}
    assert headers.with_prefix("content-") == {"type": "Application/JSON; charset=utf-8", "length": "42"}


def test_an_empty_content_type_in_an_environ_is_no_header() -> None:
    headers = McpHeaders.from_environ({"CONTENT_TYPE": "", "CONTENT_LENGTH": "", "HTTP_ORIGIN": ""})

    assert (headers.content_type, headers.content_length, headers.get("Content-Type")) == ("", None, None)
    assert headers.origin == ""  # sent empty: present, and refused by the origin check
    assert headers.with_prefix("content-") == {}


def test_a_header_repeated_in_an_asgi_list_is_refused_where_one_value_is_needed() -> None:
    headers = McpHeaders.from_asgi([(b"mcp-session-id", b"a"), (b"Mcp-Session-Id", b"b")])

    assert headers.era_repeated is True
    with pytest.raises(HeaderMismatch, match="more than once"):
        headers.check_era_headers()
