"""django_mcp.exceptions: the JSON-RPC code, message and HTTP status of each error."""

from __future__ import annotations

import pytest

from django_mcp.exceptions import (
    AnswerNotDelivered,
    AuthenticationFailed,
    HeaderMismatch,
    ImproperlyConfigured,
    InternalError,
    InvalidParams,
    InvalidRequest,
    McpError,
    MethodNotFound,
    MissingClientCapability,
    MissingMeta,
    NotificationsUnavailable,
    ParseError,
    ResourceNotFound,
    SchemaValidationError,
    ServerBusy,
    SessionBusy,
    SkillError,
    SkillProblem,
    TaskCancelled,
    ToolNotFound,
    TooManyStreams,
    UnsupportedProtocolVersion,
)
from django_mcp.protocol import jsonrpc


@pytest.mark.parametrize(
    ("error", "code", "status"),
    [
        (ParseError, jsonrpc.PARSE_ERROR, 400),
        (InvalidRequest, jsonrpc.INVALID_REQUEST, 400),
        (MethodNotFound, jsonrpc.METHOD_NOT_FOUND, 404),
        (InvalidParams, jsonrpc.INVALID_PARAMS, 200),
        (ResourceNotFound, jsonrpc.INVALID_PARAMS, 200),
        (ToolNotFound, jsonrpc.INVALID_PARAMS, 200),
        (MissingMeta, jsonrpc.INVALID_PARAMS, 400),
        (InternalError, jsonrpc.INTERNAL_ERROR, 200),
        (ServerBusy, jsonrpc.INTERNAL_ERROR, 503),
        (TooManyStreams, jsonrpc.INTERNAL_ERROR, 503),
        (NotificationsUnavailable, jsonrpc.INTERNAL_ERROR, 503),
        (AnswerNotDelivered, jsonrpc.INTERNAL_ERROR, 503),
        (SessionBusy, jsonrpc.INTERNAL_ERROR, 200),
        (HeaderMismatch, jsonrpc.HEADER_MISMATCH, 400),
        (MissingClientCapability, jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY, 400),
        (UnsupportedProtocolVersion, jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, 400),
    ],
)
def test_each_error_answers_its_code_and_http_status(error: type[McpError], code: int, status: int) -> None:
    raised = error()

    assert (raised.code, raised.http_status) == (code, status)
    assert raised.message == error.default_message == str(raised)
    assert raised.data is None


def test_the_json_rpc_codes_are_those_of_the_specifications() -> None:
    codes = [
        ParseError.code,
        InvalidRequest.code,
        MethodNotFound.code,
        InvalidParams.code,
        InternalError.code,
        HeaderMismatch.code,
        MissingClientCapability.code,
        UnsupportedProtocolVersion.code,
    ]

    assert codes == [-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022]


def test_a_message_and_data_given_replace_the_default_message_and_are_kept() -> None:
    error = ResourceNotFound("No such shelf", data={"uri": "shelf://9"})

    assert (error.message, error.data, str(error)) == ("No such shelf", {"uri": "shelf://9"}, "No such shelf")
    assert repr(error) == "ResourceNotFound(code=-32602, message='No such shelf', data={'uri': 'shelf://9'})"


def test_busy_errors_say_when_to_retry() -> None:
    assert ServerBusy().retry_after == 1
    assert NotificationsUnavailable(retry_after=7.5).retry_after == 7.5
    assert NotificationsUnavailable().message == NotificationsUnavailable.default_message


def test_a_schema_validation_error_joins_its_paths_and_messages() -> None:
    error = SchemaValidationError([("$.age", "Expected `int`"), ("", "Object missing field `name`")])

    assert isinstance(error, ValueError)
    assert str(error) == "$.age: Expected `int`; Object missing field `name`"
    assert error.errors == [("$.age", "Expected `int`"), ("", "Object missing field `name`")]


def test_a_cancelled_task_is_not_caught_by_except_exception() -> None:
    caught: list[str] = []

    def handler() -> None:
        try:
            raise TaskCancelled
        except Exception:  # noqa: BLE001 - what a careless handler writes
            caught.append("handler")

    with pytest.raises(TaskCancelled):
        handler()
    assert caught == []
    assert repr(TaskCancelled()) == "TaskCancelled()"


def test_authentication_failed_defaults_to_an_invalid_token_and_keeps_the_scope() -> None:
    class Forbidden(AuthenticationFailed):
        status = 403
        error = "insufficient_scope"

    plain = AuthenticationFailed()
    scoped = Forbidden("Needs more", scope="books:write")

    assert (plain.status, plain.error, plain.message, plain.scope) == (
        401,
        "invalid_token",
        "The access token is invalid.",
        None,
    )
    assert (scoped.status, scoped.error, str(scoped), scoped.scope) == (
        403,
        "insufficient_scope",
        "Needs more",
        "books:write",
    )
    assert repr(scoped) == "Forbidden('Needs more', scope='books:write')"


def test_a_skill_error_is_improperly_configured_and_lists_each_problem() -> None:
    problems = [
        SkillProblem("django_mcp.E029", "skill 'a' has no SKILL.md", "Add one."),
        SkillProblem("django_mcp.E030", "skill 'b' is named twice", "Rename one."),
    ]

    error = SkillError("shop.mcp.ShopServer", problems)

    assert isinstance(error, ImproperlyConfigured)
    assert error.problems == tuple(problems)
    assert str(error) == "shop.mcp.ShopServer: skill 'a' has no SKILL.md; skill 'b' is named twice"
