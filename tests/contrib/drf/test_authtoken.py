"""Tests of django_mcp.contrib.drf.authtoken: DRF ``Token`` keys over HTTP.

They need Django REST framework importable and ``rest_framework.authtoken``
in ``INSTALLED_APPS`` (its model needs a table); otherwise they are skipped.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from unittest.mock import ANY

import pytest
from django.apps import apps
from django.contrib.auth.models import AbstractUser, User
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import path

pytest.importorskip("rest_framework", reason="Django REST framework is not installed (the drf extra)")
if not apps.is_installed("rest_framework.authtoken"):
    pytest.skip(
        "rest_framework.authtoken is not in INSTALLED_APPS of the test settings", allow_module_level=True
    )

from rest_framework.authtoken.models import Token  # noqa: E402

from django_mcp import McpRequest, McpResponse, Server, Tool  # noqa: E402
from django_mcp.contrib.drf.authtoken import AuthtokenAuthentication, InvalidToken  # noqa: E402
from django_mcp.protocol import jsonrpc  # noqa: E402
from tests.wire import modern_headers, modern_request, tool_request  # noqa: E402

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]

BACKEND = "django_mcp.contrib.drf.authtoken.AuthtokenAuthentication"
KEY = "0123456789abcdef0123456789abcdef01234567"


class WhoAmITool(Tool):
    """Name the caller; only signed-in callers see it."""

    name = "whoami"

    def authorize(self, request: McpRequest) -> bool:
        return bool(request.user.is_authenticated)

    def handle(self, request: McpRequest) -> McpResponse:
        return McpResponse.text(request.user.get_username())


class NotesServer(Server):
    name = "notes"
    tools = (WhoAmITool,)


urlpatterns = [path("mcp/notes", NotesServer.as_view())]


@pytest.fixture
def user() -> User:
    return User.objects.create_user("alice")


@pytest.fixture
def token(user: User) -> Any:
    return Token.objects.create(user=user, key=KEY)


@pytest.fixture
def configured(settings: Any) -> None:
    settings.MCP_AUTHENTICATION_BACKENDS = [BACKEND]


def post(body: dict[str, Any], authorization: str | None = None) -> HttpResponse:
    headers = modern_headers(body)
    if authorization is not None:
        headers["Authorization"] = authorization
    return Client().post(  # type: ignore[return-value]
        "/mcp/notes", json.dumps(body), content_type="application/json", headers=headers
    )


def listed(response: HttpResponse) -> list[str]:
    assert response.status_code == 200, response.content
    return [tool["name"] for tool in json.loads(response.content)["result"]["tools"]]


def _request(authorization: str | None = None) -> Any:
    headers = {} if authorization is None else {"authorization": authorization}
    return RequestFactory().post("/mcp/notes", headers=headers)


# ------------------------------------------------------------- over HTTP


def test_a_valid_token_calls_as_its_user(configured: None, token: Any) -> None:
    tools = post(modern_request("tools/list"), f"Token {KEY}")
    called = post(tool_request("whoami"), f"Token {KEY}")

    assert listed(tools) == ["whoami"]
    assert json.loads(called.content)["result"]["content"] == [{"type": "text", "text": "alice"}]


def test_an_unknown_token_is_answered_401_with_a_challenge_that_never_names_it(
    configured: None, token: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "f" * 40

    response = post(modern_request("tools/list"), f"Token {wrong}")

    assert response.status_code == 401
    body = json.loads(response.content)
    assert body == {"jsonrpc": "2.0", "error": {"code": jsonrpc.INVALID_REQUEST, "message": ANY}}
    assert response["WWW-Authenticate"].startswith('Bearer error="invalid_token"')
    metadata = "http://testserver/.well-known/oauth-protected-resource/mcp/notes"
    assert f'resource_metadata="{metadata}"' in response["WWW-Authenticate"]
    assert wrong not in response.content.decode() + response["WWW-Authenticate"] + caplog.text


def test_a_token_of_an_inactive_user_is_answered_401(configured: None, token: Any, user: User) -> None:
    user.is_active = False
    user.save()

    response = post(modern_request("tools/list"), f"Token {KEY}")

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith('Bearer error="invalid_token"')


def test_a_request_without_authorization_is_anonymous(configured: None, token: Any) -> None:
    assert listed(post(modern_request("tools/list"))) == []


def test_a_bearer_header_is_left_to_other_backends(configured: None, token: Any) -> None:
    # The key is valid, but only as a ``Token``: no backend claims it here.
    assert listed(post(modern_request("tools/list"), f"Bearer {KEY}")) == []


# ------------------------------------------------------------ the backend


@pytest.mark.parametrize("authorization", [None, "", f"Bearer {KEY}", "Basic YWxpY2U6cHc=", f"Tokens {KEY}"])
def test_other_credentials_are_not_this_backends(token: Any, authorization: str | None) -> None:
    assert AuthtokenAuthentication().authenticate(_request(authorization)) is None


def test_the_keyword_is_read_in_any_case(token: Any, user: User) -> None:
    assert AuthtokenAuthentication().authenticate(_request(f"token {KEY}")) == user
    assert AuthtokenAuthentication().authenticate(_request(f"TOKEN  {KEY} ")) == user


@pytest.mark.parametrize("authorization", ["Token", "Token ", f"Token {KEY} extra", "Token a\x00b"])
def test_a_malformed_token_header_is_invalid(token: Any, authorization: str) -> None:
    with pytest.raises(InvalidToken) as raised:
        AuthtokenAuthentication().authenticate(_request(authorization))

    assert (raised.value.status, raised.value.error) == (401, "invalid_token")
    assert KEY not in raised.value.message


def test_a_subclass_reads_its_own_keyword(token: Any, user: User) -> None:
    class KeyAuthentication(AuthtokenAuthentication):
        keyword = "Key"

    assert KeyAuthentication().authenticate(_request(f"Key {KEY}")) == user
    assert KeyAuthentication().authenticate(_request(f"Token {KEY}")) is None


def test_an_abstract_token_model_is_a_configuration_error() -> None:
    # What DRF's Token is without rest_framework.authtoken in INSTALLED_APPS.
    class Abstract(AuthtokenAuthentication):
        model = AbstractUser

    with pytest.raises(ImproperlyConfigured, match="rest_framework.authtoken"):
        Abstract().authenticate(_request(f"Token {KEY}"))
