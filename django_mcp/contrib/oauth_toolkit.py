"""Bearer-token authentication with django-oauth-toolkit (DOT) access tokens.

Install the extra (``pip install 'django-mcp-toolkit[oauth]'``), add
``"oauth2_provider"`` to ``INSTALLED_APPS`` and migrate, then::

    MCP_AUTHENTICATION_BACKENDS = [
        "django_mcp.contrib.oauth_toolkit.OAuthToolkitAuthentication",
    ]

A request is authenticated by ``Authorization: Bearer <token>`` only: a
token in the query string (``?access_token=``) or the body is never read
(MCP 2026-07-28 authorization, "Token Handling"). The token is checked by
DOT's own validator (``OAUTH2_PROVIDER["OAUTH2_VALIDATOR_CLASS"]``), so DOT's
introspection settings, checksum lookup and RFC 8707 audience check all
apply:

* no ``Authorization`` header, or another scheme -> ``None`` (the next
  backend, then the session, decide);
* a token that is unknown, expired, revoked, of an unusable application,
  meant for another resource, or whose user is inactive -> ``InvalidToken``
  (HTTP 401 with ``WWW-Authenticate: Bearer error="invalid_token"``);
* a valid token without the subclass's ``required_scopes`` ->
  ``InsufficientScope`` (HTTP 403, ``error="insufficient_scope"``);
* a valid token -> its user. A token without a user (client credentials
  grant) identifies no user and gives ``None``.

The audience: a token issued with RFC 8707 ``resource`` indicators is
accepted only for URLs they cover (DOT's
``RESOURCE_SERVER_TOKEN_RESOURCE_VALIDATOR``, by default a URL-prefix match
of the endpoint's absolute URL). MCP requires servers to accept only tokens
meant for them, so a token *without* indicators is refused too, unless a
subclass sets ``require_audience = False``.

Discovery is DOT's own when it is the authorization server of the same
project: since 3.4 it serves RFC 8414 authorization server metadata (with
``code_challenge_methods_supported``, and ``client_id_metadata_document_supported``
under ``CIMD_ENABLED``) and RFC 9728 protected resource metadata in the
path-inserted form the 401 challenge names, so ``include("oauth2_provider.urls")``
at the root replaces ``django_mcp.wellknown`` and ``MCP_RESOURCE_METADATA``
(docs/auth.md, "django-oauth-toolkit as the authorization server"). PKCE is
DOT's to enforce (``PKCE_REQUIRED``, ``COMPLIANT_BCP_RFC9700_PKCE_METHOD``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.http import HttpRequest
from oauth2_provider.settings import oauth2_settings
from oauthlib.common import Request as OauthlibRequest  # type: ignore[import-untyped]

from django_mcp.exceptions import AuthenticationFailed

__all__ = ["InsufficientScope", "InvalidToken", "OAuthToolkitAuthentication", "bearer_token"]


class InvalidToken(AuthenticationFailed):
    """The bearer token cannot be accepted: answer 401 ``invalid_token``."""


class InsufficientScope(InvalidToken):
    """The token is valid but lacks a required scope: answer 403."""

    status: ClassVar[int] = 403
    error: ClassVar[str] = "insufficient_scope"
    default_message: ClassVar[str] = "The access token does not have the required scope."


class OAuthToolkitAuthentication:
    """Authenticate MCP requests with DOT access tokens (``authenticate()`` is sync).

    Subclass to require scopes on every request, or to accept tokens
    issued without an RFC 8707 resource indicator::

        class McpTokenAuthentication(OAuthToolkitAuthentication):
            required_scopes = ("mcp",)
    """

    #: Scopes every token must carry (all of them); empty: none required.
    required_scopes: ClassVar[tuple[str, ...]] = ()
    #: Refuse tokens issued without RFC 8707 resource indicators.
    require_audience: ClassVar[bool] = True

    def authenticate(self, request: HttpRequest) -> Any:
        """Return the token's user, None without a bearer token, or raise.

        Raises:
            InvalidToken: the token is not valid for this resource.
            InsufficientScope: the token lacks ``required_scopes``.
        """
        token = bearer_token(request)
        if token is None:
            return None
        if not token or any(char.isspace() for char in token):
            raise InvalidToken("The Authorization header does not carry one bearer token.")
        validator = oauth2_settings.OAUTH2_VALIDATOR_CLASS()
        # Only the endpoint's URL goes to DOT (for the audience check); the
        # token is passed separately and never copied into a loggable object.
        oauth_request = OauthlibRequest(request.build_absolute_uri(request.path), http_method=request.method)
        if not validator.validate_bearer_token(token, list(self.required_scopes), oauth_request):
            error = getattr(oauth_request, "oauth2_error", None) or {}
            description = str(error.get("error_description") or "") or None
            if error.get("error") == "insufficient_scope":
                raise InsufficientScope(description, scope=" ".join(self.required_scopes))
            raise InvalidToken(description)
        access_token = oauth_request.access_token
        # DOT releases before RFC 8707 support have no ``resource`` field.
        if self.require_audience and not getattr(access_token, "resource", None):
            raise InvalidToken("The access token was not issued for this resource.")
        user = access_token.user
        if user is None:
            return None
        if not user.is_active:
            raise InvalidToken()
        return user


def bearer_token(request: HttpRequest) -> str | None:
    """Return the token of an ``Authorization: Bearer`` header.

    None means no bearer credentials at all (no header, or another scheme);
    "" means the scheme without a token. The query string is never read.
    """
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip()
