"""Signed requestState and input-request checks of multi round-trip requests.

The state a handler returns is signed and bound to the server, the method,
the component, the arguments and the caller (an anonymous one by client
address); a retry presenting it anywhere else, later than
MCP_REQUEST_STATE_MAX_AGE, a second time, or modified, is refused with
-32602. Input requests may only use kinds the client declared (-32021).
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any
from unittest import mock

import msgspec
import pytest
from django.test import RequestFactory

from django_mcp import McpResponse, Server, Tool
from django_mcp.dispatcher import Dispatcher
from django_mcp.dispatcher.codec import parse_message
from django_mcp.dispatcher.context import modern_context
from django_mcp.dispatcher.continuation import check_input_requests, seal_state, unseal_state
from django_mcp.exceptions import InvalidParams, MissingClientCapability
from django_mcp.inputs import elicit, elicit_url, input_required, list_roots, sample
from django_mcp.protocol import jsonrpc
from django_mcp.protocol.results import InputRequest, InputRequiredResult
from django_mcp.request import McpRequest
from tests.wire import modern_meta, modern_request

ALICE = SimpleNamespace(is_authenticated=True, pk=1)
BOB = SimpleNamespace(is_authenticated=True, pk=2)
BINDING: dict[str, Any] = {
    "server": "testproject.library.LibraryServer",
    "method": "tools/call",
    "target": "book",
    "arguments": {"isbn": "1"},
    "user": ALICE,
}


def test_state_round_trips_for_the_same_request_and_caller() -> None:
    token = seal_state({"step": 2, "name": "Ana"}, **BINDING)
    assert isinstance(token, str)
    assert unseal_state(token, **BINDING) == {"step": 2, "name": "Ana"}


@pytest.mark.parametrize(
    "change",
    [
        {"method": "prompts/get"},
        {"target": "other-tool"},
        {"arguments": {"isbn": "2"}},
        {"user": BOB},
        {"user": SimpleNamespace(is_authenticated=False, pk=None)},
    ],
    ids=["method", "component", "arguments", "other-user", "anonymous"],
)
def test_state_presented_on_another_request_or_by_another_caller_is_refused(change: dict[str, Any]) -> None:
    token = seal_state("s", **BINDING)
    with pytest.raises(InvalidParams) as info:
        unseal_state(token, **{**BINDING, **change})
    assert info.value.code == jsonrpc.INVALID_PARAMS


def test_tampered_state_is_refused() -> None:
    token = seal_state("s", **BINDING)
    with pytest.raises(InvalidParams):
        unseal_state(token + "-TAMPERED", **BINDING)
    with pytest.raises(InvalidParams):
        unseal_state(12345, **BINDING)


def test_expired_state_is_refused() -> None:
    token = seal_state("s", **BINDING)
    later = time.time() + 61
    with mock.patch("django.core.signing.time.time", return_value=later):
        assert unseal_state(token, **BINDING, max_age=62) == "s"
        with pytest.raises(InvalidParams, match="Expired"):
            unseal_state(token, **BINDING, max_age=60)


def test_argument_order_does_not_change_the_binding() -> None:
    token = seal_state("s", **{**BINDING, "arguments": {"a": 1, "b": 2}})
    assert unseal_state(token, **{**BINDING, "arguments": {"b": 2, "a": 1}}) == "s"


def _request(capabilities: dict[str, Any]) -> McpRequest:
    return McpRequest(
        method="tools/call",
        params={},
        meta={},
        protocol_version="2026-07-28",
        client_capabilities=capabilities,
    )


SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}}


@pytest.mark.parametrize(
    ("request_", "capabilities", "needed"),
    [
        (elicit("Name?", SCHEMA), {"sampling": {}}, {"elicitation": {"form": {}}}),
        (elicit_url("Pay", "https://pay.example.com"), {"elicitation": {}}, {"elicitation": {"url": {}}}),
        (sample("Hi", max_tokens=5), {"elicitation": {}}, {"sampling": {}}),
        (list_roots(), {}, {"roots": {}}),
    ],
    ids=["form", "url-needs-url-mode", "sampling", "roots"],
)
def test_input_requests_need_the_declared_client_capability(
    request_: InputRequest, capabilities: dict[str, Any], needed: dict[str, Any]
) -> None:
    with pytest.raises(MissingClientCapability) as info:
        check_input_requests(input_required({"k": request_}), _request(capabilities))
    assert info.value.code == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert info.value.data == {"requiredCapabilities": needed}


def test_declared_capabilities_allow_every_kind() -> None:
    capabilities = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}
    result = input_required(
        {
            "a": elicit("Name?", SCHEMA),
            "b": elicit_url("Pay", "https://pay.example.com"),
            "c": sample("Hi", max_tokens=5),
            "d": list_roots(),
        }
    )
    check_input_requests(result, _request(capabilities))


def test_an_empty_elicitation_capability_means_form_mode() -> None:
    check_input_requests(input_required({"a": elicit("Name?", SCHEMA)}), _request({"elicitation": {}}))


def test_unknown_input_methods_and_empty_results_are_developer_errors() -> None:
    with pytest.raises(ValueError, match="unsupported method"):
        check_input_requests(
            InputRequiredResult(input_requests={"x": InputRequest(method="tasks/get")}), _request({})
        )
    with pytest.raises(ValueError, match="input_requests or request_state"):
        check_input_requests(InputRequiredResult(), _request({}))
    with pytest.raises(ValueError):
        input_required()


# ------------------------------------------ binding and single use, end to end


class AskTool(Tool):
    name = "ask"

    def handle(self, request: McpRequest) -> McpResponse | InputRequiredResult:
        answer = request.input_responses.get("name")
        if answer is None or answer.get("action") != "accept":
            return input_required({"name": elicit("Name?", SCHEMA)}, state={"step": 1})
        return McpResponse.text(f"Hello {answer['content']['name']}")


class FirstServer(Server):
    name = "first"
    tools = (AskTool,)


class SecondServer(Server):
    name = "second"
    tools = (AskTool,)


ACCEPT = {"name": {"action": "accept", "content": {"name": "Ana"}}}
DECLINE = {"name": {"action": "decline"}}


async def _ask(
    server: type[Server],
    *,
    responses: dict[str, Any] | None = None,
    state: str | None = None,
    user: Any = None,
    address: str | None = None,
) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "ask", "arguments": {}}
    if responses is not None:
        params["inputResponses"] = responses
    if state is not None:
        params["requestState"] = state
    body = modern_request("tools/call", params, meta=modern_meta({"elicitation": {}}))
    envelope = parse_message(msgspec.json.encode(body))
    ctx = modern_context(envelope, http=_Peer(address) if address else None, user=user)
    reply = await Dispatcher(server.compiled()).respond(envelope, ctx)
    return msgspec.json.decode(reply.body)  # type: ignore[no-any-return]


class _Peer:
    """An HTTP source seen from ``address``."""

    def __init__(self, address: str) -> None:
        self.client = address

    def django_request(self) -> Any:
        return RequestFactory().post("/mcp", REMOTE_ADDR=self.client)


def _state(answer: dict[str, Any]) -> str:
    assert answer["result"]["resultType"] == "input_required", answer
    return answer["result"]["requestState"]  # type: ignore[no-any-return]


async def test_state_minted_by_another_server_is_refused() -> None:
    state = _state(await _ask(FirstServer))

    elsewhere = await _ask(SecondServer, responses=ACCEPT, state=state)
    home = await _ask(FirstServer, responses=ACCEPT, state=state)

    assert elsewhere["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert home["result"]["content"] == [{"type": "text", "text": "Hello Ana"}]


async def test_anonymous_state_is_bound_to_the_client_address() -> None:
    state = _state(await _ask(FirstServer, address="10.0.0.1"))

    other_address = await _ask(FirstServer, responses=ACCEPT, state=state, address="10.0.0.2")
    no_address = await _ask(FirstServer, responses=ACCEPT, state=state)
    same_address = await _ask(FirstServer, responses=ACCEPT, state=state, address="10.0.0.1")

    assert other_address["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert no_address["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert same_address["result"]["content"] == [{"type": "text", "text": "Hello Ana"}]


async def test_a_users_state_follows_the_user_across_addresses() -> None:
    state = _state(await _ask(FirstServer, user=ALICE, address="10.0.0.1"))

    moved = await _ask(FirstServer, responses=ACCEPT, state=state, user=ALICE, address="10.0.0.2")

    assert moved["result"]["content"] == [{"type": "text", "text": "Hello Ana"}]


async def test_state_is_single_use() -> None:
    state = _state(await _ask(FirstServer))

    first = await _ask(FirstServer, responses=ACCEPT, state=state)
    replayed = await _ask(FirstServer, responses=ACCEPT, state=state)

    assert first["result"]["content"] == [{"type": "text", "text": "Hello Ana"}]
    assert replayed["error"]["code"] == jsonrpc.INVALID_PARAMS


async def test_state_refused_for_another_caller_is_not_spent() -> None:
    state = _state(await _ask(FirstServer, user=ALICE))

    stolen = await _ask(FirstServer, responses=ACCEPT, state=state, user=BOB)
    owner = await _ask(FirstServer, responses=ACCEPT, state=state, user=ALICE)

    assert stolen["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert owner["result"]["content"] == [{"type": "text", "text": "Hello Ana"}]


async def test_a_handler_may_ask_again_with_the_same_state() -> None:
    # Sealing the same state twice in one second must not give the same,
    # already spent, token.
    first = _state(await _ask(FirstServer))
    second = _state(await _ask(FirstServer, responses=DECLINE, state=first))

    done = await _ask(FirstServer, responses=ACCEPT, state=second)

    assert second != first
    assert done["result"]["content"] == [{"type": "text", "text": "Hello Ana"}]
