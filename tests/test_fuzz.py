"""Property-based fuzzing of the message parser, the envelope and every method's params.

Whatever bytes arrive, the server answers with one well-formed JSON-RPC
message (or nothing, for a notification): never an exception, never an
internal error caused by the input's shape, never exception text. Each
property runs a bounded number of examples so the suite stays fast; the
longer fuzz and soak against a live server is ``tests/bench/fuzz_soak.py``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from django_mcp.dispatcher import METHODS, Dispatcher
from django_mcp.dispatcher.codec import encode_error, parse_message
from django_mcp.dispatcher.context import modern_context
from django_mcp.exceptions import McpError
from django_mcp.protocol import jsonrpc
from testproject.conformance.mcp import ConformanceServer

EXAMPLES = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
# Words a real client uses, so generated params often reach deep checks.
names = st.sampled_from(["test_simple_text", "test_tool_with_progress", "nope", "", "a" * 200]) | st.text(
    max_size=10
)
# Mostly well-formed, so the checks behind the first ones are reached too.
refs = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["ref/prompt", "ref/resource"]),
        "name": st.one_of(
            names, st.lists(json_scalars, max_size=2), st.dictionaries(st.text(max_size=3), json_scalars)
        ),
        "uri": st.one_of(st.just("test://template/{id}/data"), json_values),
    }
)
completion_arguments = st.fixed_dictionaries({"name": names, "value": st.one_of(names, json_values)})
param_values = json_values | names | refs | completion_arguments
# What each kind of key may hold: valid-looking values as often as junk.
VALUES: dict[str, Any] = {
    "name": names | json_values,
    "arguments": st.dictionaries(st.text(max_size=5), json_values, max_size=3) | json_values,
    "uri": st.sampled_from(["test://static-text", "test://template/1/data", ""]) | json_values,
    "cursor": st.text(max_size=30) | json_values,
    "ref": refs | json_values,
    "argument": completion_arguments | json_values,
    "context": json_values,
    "requestState": st.text(max_size=30) | json_values,
    "inputResponses": json_values,
    "notifications": json_values,
    "level": st.sampled_from(["info", "nope"]) | json_values,
}
# The keys each method reads are always sent, so every check is reached.
READS: dict[str, tuple[str, ...]] = {
    "tools/call": ("name", "arguments"),
    "prompts/get": ("name", "arguments"),
    "resources/read": ("uri",),
    "resources/subscribe": ("uri",),
    "resources/unsubscribe": ("uri",),
    "completion/complete": ("ref", "argument"),
    "logging/setLevel": ("level",),
}


def params_for(method: str) -> st.SearchStrategy[dict[str, Any]]:
    """Return params for ``method``: the keys it reads, then any others."""
    reads = READS.get(method, ("cursor",))
    return st.fixed_dictionaries(
        {key: VALUES[key] for key in reads},
        optional={key: value for key, value in VALUES.items() if key not in reads},
    )


_dispatcher = Dispatcher(ConformanceServer.compiled())
# The codes a bad input may get: never -32603 (that means a server fault).
CLIENT_ERRORS = {
    jsonrpc.PARSE_ERROR,
    jsonrpc.INVALID_REQUEST,
    jsonrpc.METHOD_NOT_FOUND,
    jsonrpc.INVALID_PARAMS,
    jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY,
    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
}


def answer(raw: bytes) -> dict[str, Any] | None:
    """Serve ``raw`` as a transport would; return the decoded answer."""
    try:
        envelope = parse_message(raw)
        if envelope.kind != "request":
            return None
        ctx = modern_context(envelope)
        reply = asyncio.run(_dispatcher.respond(envelope, ctx))
        body = reply.body
    except McpError as error:
        body = encode_error(getattr(error, "request_id", None), error)
    decoded: dict[str, Any] = json.loads(body)
    return decoded


def check(message: dict[str, Any] | None) -> None:
    if message is None:
        return
    assert message["jsonrpc"] == "2.0"
    assert ("result" in message) != ("error" in message)
    if "error" in message:
        assert message["error"]["code"] in CLIENT_ERRORS, message
        assert "Traceback" not in message["error"]["message"]


@EXAMPLES
@given(st.binary(max_size=200))
def test_any_bytes_get_a_well_formed_answer(wire_schema: Any, raw: bytes) -> None:
    check(answer(raw))


@EXAMPLES
@given(st.text(max_size=200))
def test_any_text_gets_a_well_formed_answer(wire_schema: Any, raw: str) -> None:
    check(answer(raw.encode("utf-8", "surrogatepass")))


@EXAMPLES
@given(
    st.dictionaries(
        st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]) | st.text(max_size=5),
        json_values | st.sampled_from(["2.0", "tools/list", "tools/call"]),
        max_size=6,
    )
)
def test_any_envelope_gets_a_well_formed_answer(wire_schema: Any, envelope: dict[str, Any]) -> None:
    check(answer(json.dumps(envelope).encode()))


@pytest.mark.django_db
@pytest.mark.parametrize("method", sorted(name for name, row in METHODS.items() if row.handler is not None))
@EXAMPLES
@given(data=st.data())
def test_any_params_of_every_method_get_a_well_formed_answer(
    wire_schema: Any, method: str, data: Any
) -> None:
    body = data.draw(params_for(method))
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**body, "_meta": META}}
    check(answer(json.dumps(message).encode()))
