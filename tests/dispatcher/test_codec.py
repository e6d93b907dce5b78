"""The JSON-RPC codec: parsing messages (ids, envelopes, repeated keys, depth) and encoding replies."""

from __future__ import annotations

import json
from typing import Any
from unittest.mock import ANY

import pytest

from django_mcp.dispatcher import codec
from django_mcp.dispatcher.codec import (
    encode_error,
    encode_notification,
    encode_request,
    encode_response,
    encoded_size,
    error_reply,
    is_valid_id,
    parse_message,
)
from django_mcp.exceptions import (
    InternalError,
    InvalidParams,
    InvalidRequest,
    ParseError,
)
from django_mcp.protocol import jsonrpc

# -------------------------------------------------------------- parsing


def test_parse_request_keeps_id_type_method_and_params() -> None:
    envelope = parse_message(b'{"jsonrpc":"2.0","id":"7","method":"tools/list","params":{"cursor":"c"}}')

    assert (envelope.kind, envelope.id, envelope.method, envelope.params) == (
        "request",
        "7",
        "tools/list",
        {"cursor": "c"},
    )


def test_parse_notification_and_response() -> None:
    notification = parse_message(
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}'
    )
    response = parse_message(b'{"jsonrpc":"2.0","id":3,"result":{"ok":true}}')

    assert (notification.kind, notification.id) == ("notification", None)
    assert (response.kind, response.id, response.result) == ("response", 3, {"ok": True})


@pytest.mark.parametrize(
    "raw", [b"", b"{", b"nope", b'{"a":NaN}', b'{"jsonrpc":"2.0","id":1,"method":"x",}', b"\xff\xfe"]
)
def test_invalid_json_raises_parse_error(raw: bytes) -> None:
    with pytest.raises(ParseError):
        parse_message(raw)


@pytest.mark.parametrize("raw", [b"[]", b"[{}]", b"3", b'"x"', b"null"])
def test_non_object_json_is_an_invalid_request(raw: bytes) -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse_message(raw)

    assert getattr(caught.value, "request_id", None) is None


@pytest.mark.parametrize("bad_id", ["true", "false", "1.5", "1e3", "null", "[1]", "{}"])
def test_bad_ids_are_invalid_requests_without_an_id(bad_id: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse_message(f'{{"jsonrpc":"2.0","id":{bad_id},"method":"tools/list"}}'.encode())

    assert getattr(caught.value, "request_id", None) is None


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id":1,"method":"tools/list"}',
        b'{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
        b'{"jsonrpc":2.0,"id":1,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":1}',
        b'{"jsonrpc":"2.0","id":1,"method":""}',
    ],
)
def test_bad_envelopes_keep_a_readable_id(raw: bytes) -> None:
    with pytest.raises(InvalidRequest) as caught:
        parse_message(raw)

    assert caught.value.request_id == 1  # type: ignore[attr-defined]


def test_params_must_be_an_object() -> None:
    with pytest.raises(InvalidParams) as caught:
        parse_message(b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":[]}')

    assert caught.value.request_id == 2  # type: ignore[attr-defined]


# ------------------------------------------------------------- encoding


@pytest.mark.parametrize(
    ("request_id", "echoed"), [(1, "yes"), ("1", "yes"), (0, "yes"), (None, "no"), (True, "no"), (1.5, "no")]
)
def test_encode_error_echoes_only_valid_ids(request_id: Any, echoed: str) -> None:
    body = json.loads(encode_error(request_id, InvalidParams("bad", data={"uri": "x"})))

    expected: dict[str, Any] = {"jsonrpc": "2.0"}
    if echoed == "yes":
        expected["id"] = request_id
    expected["error"] = {"code": jsonrpc.INVALID_PARAMS, "message": ANY, "data": {"uri": "x"}}
    assert body == expected
    assert ("id" in body) is (echoed == "yes")


def test_encode_notification_without_params_has_no_params_member() -> None:
    assert json.loads(encode_notification("notifications/tools/list_changed")) == {
        "jsonrpc": "2.0",
        "method": "notifications/tools/list_changed",
    }


# ------------------------------------------------------ ambiguous JSON input


@pytest.mark.parametrize(
    "raw",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"x":1,"x":2}}}',
        # Spaces before the colons, and colons inside strings, change no verdict.
        b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"x" : "a:b", "x" : "c:d"}}',
        # A colon spelt \u003a in a kept string cannot make up for a dropped key.
        b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":1,"x":2,"u":"\\u003a"}}',
        b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"k\\u003a":1,"k\\u003a":2}}',
        # Inside a member the message does not know, and inside a result.
        b'{"jsonrpc":"2.0","id":1,"method":"m","extra":{"a":1,"a":2}}',
        b'{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":2}}',
        b'{"jsonrpc":"2.0","id":1,"id":1,"method":"m"}',
    ],
)
def test_a_key_repeated_in_one_object_is_an_invalid_request(raw: bytes) -> None:
    with pytest.raises(InvalidRequest, match="appears twice") as caught:
        parse_message(raw)
    assert caught.value.code == jsonrpc.INVALID_REQUEST
    assert getattr(caught.value, "request_id", None) == 1


def test_the_same_key_in_different_objects_is_fine() -> None:
    envelope = parse_message(b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"name":1},"name":2}}')
    assert envelope.params == {"a": {"name": 1}, "name": 2}


@pytest.mark.parametrize(
    "raw",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"uri":"bench://items/1","at":"12:00"}}',
        b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"u":"\\u003a","v":"\\u00e9"}}',
        b'{"jsonrpc" : "2.0", "id" : 1, "method" : "m", "params" : {"a:b" : [{"c" : ":"}]}}',
        b'{"jsonrpc":"2.0","id":"a:b","method":"m","extra":{"a":1},"params":{}}',
    ],
)
def test_colons_in_strings_and_escapes_are_no_repeated_key(raw: bytes) -> None:
    assert parse_message(raw).method == "m"


class _CountingDecoder:
    """Stands in for the codec's decoder and counts its decodes."""

    def __init__(self, decoder: Any) -> None:
        self.decoder = decoder
        self.decodes = 0

    def decode(self, body: Any) -> Any:
        self.decodes += 1
        return self.decoder.decode(body)


def test_a_message_is_decoded_once_for_its_envelope_params_and_repeated_key_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counting = _CountingDecoder(codec._any_decoder)
    monkeypatch.setattr(codec, "_any_decoder", counting)
    monkeypatch.setattr(codec, "_message_decoder", None)  # the error path's: never reached here

    envelope = parse_message(
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a:b"}}}'
    )

    assert envelope.params == {"name": "echo", "arguments": {"text": "a:b"}}
    assert counting.decodes == 1


def test_a_number_out_of_range_with_a_bad_envelope_is_an_invalid_request() -> None:
    with pytest.raises(InvalidRequest, match="out of range") as caught:
        parse_message(b'{"jsonrpc":"1.0","id":3,"method":"tools/call","params":{"x":1e400}}')
    assert getattr(caught.value, "request_id", None) is None


def test_a_batch_holding_a_number_out_of_range_is_still_refused_as_a_batch() -> None:
    with pytest.raises(InvalidRequest, match="batches are not supported"):
        parse_message(b'[{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":1e400}}]')


def test_a_number_out_of_range_in_params_is_invalid_params_not_a_parse_error() -> None:
    with pytest.raises(InvalidParams, match="out of range") as caught:
        parse_message(b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"x":1e400}}')
    assert getattr(caught.value, "request_id", None) == 3


def test_a_number_out_of_range_in_the_envelope_says_so() -> None:
    with pytest.raises(InvalidRequest, match="out of range"):
        parse_message(b'{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}')


def test_an_id_is_a_string_or_an_integer_never_a_bool() -> None:
    assert [is_valid_id(value) for value in (0, "", True, None, 1.0)] == [True, True, False, False, False]


def test_a_message_nested_deeper_than_allowed_is_an_invalid_request_keeping_its_id() -> None:
    body = b'{"jsonrpc":"2.0","id":4,"method":"m","params":{"a":{"b":{"c":[1]}}}}'

    assert parse_message(body, max_depth=8).params == {"a": {"b": {"c": [1]}}}
    with pytest.raises(InvalidRequest) as caught:
        parse_message(body, max_depth=3)
    assert getattr(caught.value, "request_id", None) == 4


def test_responses_requests_and_sizes_encode_as_compact_json(wire_schema: Any) -> None:
    wire_schema.ignore()  # made-up methods, and a request only 2025-11-25 servers send
    assert encode_response(7, {"ok": True}) == b'{"jsonrpc":"2.0","id":7,"result":{"ok":true}}'
    assert (
        encode_request("s-1", "roots/list", {})
        == b'{"jsonrpc":"2.0","id":"s-1","method":"roots/list","params":{}}'
    )
    assert encode_notification("m", {"a": 1}) == b'{"jsonrpc":"2.0","method":"m","params":{"a":1}}'
    assert encoded_size({"a": "é"}) == len('{"a":"é"}'.encode())


def test_an_error_reply_carries_the_errors_http_status_and_the_error() -> None:
    error = InternalError()

    reply = error_reply(9, error)

    assert (reply.status, reply.error) == (error.http_status, error)
    assert json.loads(reply.body) == {
        "jsonrpc": "2.0",
        "id": 9,
        "error": {"code": jsonrpc.INTERNAL_ERROR, "message": error.message},
    }
