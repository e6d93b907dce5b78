"""Tests for django_mcp.contrib.oauth_toolkit: DOT bearer-token authentication.

They need django-oauth-toolkit importable *and* ``oauth2_provider`` in
``INSTALLED_APPS`` (its models need tables); otherwise they are skipped.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.apps import apps
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.urls import include, path
from django.utils import timezone

pytest.importorskip("oauth2_provider", reason="django-oauth-toolkit is not installed (the oauth extra)")
if not apps.is_installed("oauth2_provider"):
    pytest.skip("oauth2_provider is not in INSTALLED_APPS of the test settings", allow_module_level=True)

from oauth2_provider.models import get_access_token_model, get_application_model  # noqa: E402

from django_mcp import McpResponse, Server, Tool, exceptions  # noqa: E402
from django_mcp.contrib.oauth_toolkit import (  # noqa: E402
    InsufficientScope,
    InvalidToken,
    OAuthToolkitAuthentication,
    bearer_token,
)

pytestmark = pytest.mark.django_db

ENDPOINT = "/mcp/notes"
RESOURCE = "http://testserver/mcp/notes"
BACKEND = "django_mcp.contrib.oauth_toolkit.OAuthToolkitAuthentication"


class NotesTool(Tool):
    name = "notes"

    def handle(self) -> McpResponse:
        return McpResponse.text("notes")


class PrivateServer(Server):
    name = "private"
    login_required = True
    tools = (NotesTool,)


class ScopedAuthentication(OAuthToolkitAuthentication):
    required_scopes = ("notes:read", "notes:write")


class AnyAudienceAuthentication(OAuthToolkitAuthentication):
    require_audience = False


@pytest.fixture
def user() -> Any:
    return get_user_model().objects.create_user(username="alice", password="pw-123456")


@pytest.fixture
def application(user: Any) -> Any:
    return get_application_model().objects.create(
        name="client",
        user=user,
        client_type="confidential",
        authorization_grant_type="authorization-code",
        redirect_uris="https://client.example/callback",
    )


@pytest.fixture
def make_token(user: Any, application: Any) -> Any:
    def make(
        token: str = "good-token",
        *,
        expires_in: int = 3600,
        scope: str = "notes:read",
        resource: list[str] | None = None,
        owner: Any = user,
    ) -> Any:
        return get_access_token_model().objects.create(
            token=token,
            user=owner,
            application=application,
            expires=timezone.now() + datetime.timedelta(seconds=expires_in),
            scope=scope,
            resource=[RESOURCE] if resource is None else resource,
        )

    return make


def _request(authorization: str | None = None, path: str = ENDPOINT) -> Any:
    headers = {} if authorization is None else {"authorization": authorization}
    return RequestFactory().post(path, headers=headers)


def test_valid_token_authenticates_its_user(make_token: Any, user: Any) -> None:
    make_token()

    assert OAuthToolkitAuthentication().authenticate(_request("Bearer good-token")) == user


def test_scheme_is_case_insensitive(make_token: Any, user: Any) -> None:
    make_token()

    assert OAuthToolkitAuthentication().authenticate(_request("bearer good-token")) == user


@pytest.mark.parametrize("authorization", [None, "Basic YWxpY2U6cHc=", "Token good-token"])
def test_requests_without_bearer_credentials_are_left_to_others(make_token: Any, authorization: Any) -> None:
    make_token()

    assert OAuthToolkitAuthentication().authenticate(_request(authorization)) is None


def test_tokens_in_the_query_string_are_ignored(make_token: Any) -> None:
    make_token()

    request = _request(path=f"{ENDPOINT}?access_token=good-token")

    assert OAuthToolkitAuthentication().authenticate(request) is None


@pytest.mark.parametrize("authorization", ["Bearer", "Bearer ", "Bearer good-token extra"])
def test_malformed_bearer_header_is_invalid(make_token: Any, authorization: str) -> None:
    make_token()

    with pytest.raises(InvalidToken):
        OAuthToolkitAuthentication().authenticate(_request(authorization))


def test_unknown_token_is_invalid(make_token: Any) -> None:
    make_token()

    with pytest.raises(InvalidToken) as info:
        OAuthToolkitAuthentication().authenticate(_request("Bearer other-token"))

    assert (info.value.status, info.value.error) == (401, "invalid_token")


def test_expired_token_is_invalid(make_token: Any) -> None:
    make_token(expires_in=-1)

    with pytest.raises(InvalidToken) as info:
        OAuthToolkitAuthentication().authenticate(_request("Bearer good-token"))

    assert type(info.value) is InvalidToken
    assert info.value.message == "The access token has expired."


def test_token_for_another_resource_is_invalid(make_token: Any) -> None:
    make_token(resource=["https://other.example.com/mcp"])

    with pytest.raises(InvalidToken):
        OAuthToolkitAuthentication().authenticate(_request("Bearer good-token"))


def test_token_for_the_resource_covers_its_endpoint_only(make_token: Any, user: Any) -> None:
    make_token()

    assert (
        OAuthToolkitAuthentication().authenticate(_request("Bearer good-token", path=f"{ENDPOINT}/")) == user
    )
    with pytest.raises(InvalidToken):
        OAuthToolkitAuthentication().authenticate(_request("Bearer good-token", path="/mcp/other"))


def test_token_without_resource_indicator_is_refused_unless_allowed(make_token: Any, user: Any) -> None:
    make_token(resource=[])

    with pytest.raises(InvalidToken, match="not issued for this resource"):
        OAuthToolkitAuthentication().authenticate(_request("Bearer good-token"))
    assert AnyAudienceAuthentication().authenticate(_request("Bearer good-token")) == user


def test_missing_required_scope_is_insufficient(make_token: Any) -> None:
    make_token(scope="notes:read")

    with pytest.raises(InsufficientScope) as info:
        ScopedAuthentication().authenticate(_request("Bearer good-token"))

    assert (info.value.status, info.value.error) == (403, "insufficient_scope")
    assert info.value.scope == "notes:read notes:write"


def test_required_scopes_held_authenticate(make_token: Any, user: Any) -> None:
    make_token(scope="notes:read notes:write profile")

    assert ScopedAuthentication().authenticate(_request("Bearer good-token")) == user


def test_inactive_user_is_invalid(make_token: Any, user: Any) -> None:
    make_token()
    user.is_active = False
    user.save()

    with pytest.raises(InvalidToken):
        OAuthToolkitAuthentication().authenticate(_request("Bearer good-token"))


def test_token_without_user_identifies_nobody(make_token: Any) -> None:
    make_token(owner=None)

    assert OAuthToolkitAuthentication().authenticate(_request("Bearer good-token")) is None


def test_bearer_token_reads_the_header_only() -> None:
    assert bearer_token(_request("Bearer  abc  ")) == "abc"
    assert bearer_token(_request("Bearer")) == ""
    assert bearer_token(_request("Basic abc")) is None
    assert bearer_token(_request(path="/?access_token=abc")) is None


async def authenticate(request: Any, server: Any) -> tuple[Any, Any]:
    """Identify ``request``'s caller as the endpoint does; a refusal as Django's response."""
    from django_mcp._serving import serving
    from django_mcp.transports.http import _exchange_of, response_of

    user, denied = await serving.endpoint(server).caller(_exchange_of(request))
    return user, (response_of(denied) if denied is not None else None)


# These run django_mcp's async authenticate() from sync tests: async_to_sync
# sends the backend's sync_to_async(thread_sensitive=True) call back to this
# thread, whose database connection holds the test's transaction.


def test_backend_authenticates_requests_through_django_mcp(settings: Any, make_token: Any, user: Any) -> None:
    make_token()
    settings.MCP_AUTHENTICATION_BACKENDS = [BACKEND]

    authenticated, denied = async_to_sync(authenticate)(_request("Bearer good-token"), PrivateServer)

    assert denied is None
    assert authenticated == user


@pytest.mark.skipif(
    not hasattr(exceptions, "AuthenticationFailed"),
    reason="needs django_mcp.exceptions.AuthenticationFailed (core integration pending)",
)
@pytest.mark.parametrize(
    ("authorization", "status", "error"),
    [("Bearer expired-token", 401, "invalid_token"), ("Bearer unknown", 401, "invalid_token")],
)
def test_invalid_token_is_answered_with_a_challenge(
    settings: Any, make_token: Any, authorization: str, status: int, error: str
) -> None:
    make_token("expired-token", expires_in=-1)
    settings.MCP_AUTHENTICATION_BACKENDS = [BACKEND]

    authenticated, denied = async_to_sync(authenticate)(_request(authorization), PrivateServer)

    assert authenticated is None
    assert denied.status_code == status
    assert f'error="{error}"' in denied["WWW-Authenticate"]
    assert (
        'resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp/notes"'
        in (denied["WWW-Authenticate"])
    )


# ---------------------------------------- DOT 3.4's own discovery documents

#: DOT as the authorization server of the project that serves MCP: its URLs
#: at the root (so its RFC 8414 and RFC 9728 documents sit at the origin's
#: well-known paths), the MCP endpoints under mcp/.
urlpatterns = [
    path("", include("oauth2_provider.urls")),
    path("mcp/", include("django_mcp.urls")),
]
#: What MCP authorization asks of the authorization server: PKCE with S256
#: only, and client ID metadata documents.
MCP_READY_DOT = {"PKCE_REQUIRED": True, "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True, "CIMD_ENABLED": True}


@pytest.mark.urls(__name__)
def test_dot_serves_the_resource_metadata_the_challenge_points_at(
    settings: Any, client: Any, make_token: Any
) -> None:
    settings.MCP_AUTHENTICATION_BACKENDS = [BACKEND]
    _, denied = async_to_sync(authenticate)(_request("Bearer unknown"), PrivateServer)
    (metadata_url,) = re.findall(r'resource_metadata="([^"]+)"', denied["WWW-Authenticate"])

    response = client.get(metadata_url.removeprefix("http://testserver"))

    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    document = response.json()
    # RFC 9728 section 3.3: the resource is the URL the document was asked for.
    assert document["resource"] == RESOURCE
    assert document["authorization_servers"] == ["http://testserver"]
    assert document["bearer_methods_supported"] == ["header"]


@pytest.mark.urls(__name__)
def test_dot_authorization_server_metadata_offers_what_mcp_clients_need(settings: Any, client: Any) -> None:
    settings.OAUTH2_PROVIDER = {**getattr(settings, "OAUTH2_PROVIDER", {}), **MCP_READY_DOT}

    document = client.get("/.well-known/oauth-authorization-server").json()

    assert document["issuer"] == "http://testserver"
    assert document["authorization_endpoint"] == "http://testserver/authorize/"
    assert document["token_endpoint"] == "http://testserver/token/"
    # MCP clients refuse an authorization server that does not list S256.
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["client_id_metadata_document_supported"] is True


@pytest.mark.urls(__name__)
def test_dot_refuses_an_authorization_request_without_pkce(
    settings: Any, client: Any, user: Any, application: Any
) -> None:
    settings.OAUTH2_PROVIDER = {**getattr(settings, "OAUTH2_PROVIDER", {}), **MCP_READY_DOT}
    client.force_login(user)
    query = {
        "response_type": "code",
        "client_id": application.client_id,
        "redirect_uri": "https://client.example/callback",
        "resource": RESOURCE,
    }

    refused = client.get("/authorize/", query)
    with_s256 = client.get(
        "/authorize/", {**query, "code_challenge": "x" * 43, "code_challenge_method": "S256"}
    )

    assert refused.status_code == 302
    assert refused["Location"].startswith("https://client.example/callback?error=invalid_request")
    assert with_s256.status_code == 200  # the consent form
