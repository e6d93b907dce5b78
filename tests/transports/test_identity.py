"""The fast paths find the caller's session as Django's middleware would.

``find_session`` reads the session cookie with the project's session
engine, only when the session and authentication middleware are both
installed (they would then run); the user is looked up later, once the
endpoint asks. The wire tests of the same behaviour through ``McpASGIApp``
and ``McpWSGIApp`` are in ``tests/test_asgi.py`` and ``tests/test_wsgi.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import AnonymousUser, User
from django.test import Client

from django_mcp.transports._body import ReadyBody
from django_mcp.transports._exchange import HttpExchange
from django_mcp.transports._headers import McpHeaders
from django_mcp.transports._identity import challenge, find_session

SESSION = "django.contrib.sessions.middleware.SessionMiddleware"
AUTH = "django.contrib.auth.middleware.AuthenticationMiddleware"


def _exchange(cookie: str | None) -> HttpExchange:
    headers = {"Host": "testserver"} if cookie is None else {"Host": "testserver", "Cookie": cookie}
    return HttpExchange(method="POST", path="/mcp", headers=McpHeaders(headers.items()), body=ReadyBody(b""))


def _signed_in_cookie(username: str) -> str:
    client = Client()
    client.force_login(User.objects.create_user(username))
    name = django_settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}"


@pytest.fixture
def session_middleware(settings: Any) -> None:
    settings.MIDDLEWARE = [SESSION, AUTH]


@pytest.mark.django_db(transaction=True)
async def test_a_session_cookie_leads_to_the_signed_in_user(session_middleware: None) -> None:
    from asgiref.sync import sync_to_async

    exchange = _exchange(await sync_to_async(_signed_in_cookie)("ada"))

    find_session(exchange)

    assert exchange.session is not None and exchange.session_user is not None
    assert (await exchange.session_user()).username == "ada"


@pytest.mark.django_db(transaction=True)
async def test_an_unknown_session_key_leads_to_the_anonymous_user(session_middleware: None) -> None:
    exchange = _exchange(f"{django_settings.SESSION_COOKIE_NAME}=no-such-session")

    find_session(exchange)

    assert exchange.session_user is not None
    assert isinstance(await exchange.session_user(), AnonymousUser)


@pytest.mark.parametrize("cookie", [None, "other=1", f"{django_settings.SESSION_COOKIE_NAME}="])
def test_without_a_session_cookie_no_session_is_looked_up(
    session_middleware: None, cookie: str | None
) -> None:
    exchange = _exchange(cookie)

    find_session(exchange)

    assert (exchange.session, exchange.session_user) == (None, None)


@pytest.mark.parametrize("middleware", [[], [SESSION], [AUTH]])
def test_without_both_middleware_the_cookie_is_not_read(settings: Any, middleware: list[str]) -> None:
    settings.MIDDLEWARE = middleware
    exchange = _exchange(f"{django_settings.SESSION_COOKIE_NAME}=abc")

    find_session(exchange)

    assert (exchange.session, exchange.session_user) == (None, None)


def test_the_challenge_names_the_metadata_at_the_scheme_the_client_used(settings: Any) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    headers = McpHeaders({"Host": "api.example.com", "X-Forwarded-Proto": "https"}.items())
    exchange = HttpExchange(method="POST", path="/mcp/", headers=headers, body=ReadyBody(b""), scheme="http")

    refused = challenge(exchange)

    assert refused.status == 401
    assert refused.header("WWW-Authenticate") == (
        'Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"'
    )
