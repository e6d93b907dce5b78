"""Token authentication with Django REST framework's ``authtoken`` keys.

Install the extra (``pip install 'django-mcp-toolkit[drf]'``), add
``"rest_framework"`` and ``"rest_framework.authtoken"`` to ``INSTALLED_APPS``
and migrate, then::

    MCP_AUTHENTICATION_BACKENDS = [
        "django_mcp.contrib.drf.authtoken.AuthtokenAuthentication",
    ]

The keys DRF's ``TokenAuthentication`` accepts (``Token.objects.create(user=...)``,
``manage.py drf_create_token alice``, DRF's ``obtain_auth_token`` view) then
authenticate MCP requests too, sent as DRF reads them:
``Authorization: Token <key>`` (the keyword in any case):

* no ``Authorization`` header, or another scheme (``Bearer``, ``Basic``) ->
  ``None`` (the next backend, then the session, decide);
* the keyword without a key, or with more than one word after it ->
  ``InvalidToken``;
* a key no ``Token`` has, or whose user is inactive -> ``InvalidToken``
  (HTTP 401 with django_mcp's challenge, ``WWW-Authenticate: Bearer
  error="invalid_token", ...``, which is what MCP clients read; DRF itself
  would send ``WWW-Authenticate: Token``);
* a known key of an active user -> that user.

The key is looked up in the database (by primary key, as DRF does); the
query string and the body are never read. The key is never written to a
log line or an error message. A key stays valid until it is deleted: DRF's
tokens do not expire and carry no audience or scope, so they suit trusted
clients of one project, not third-party MCP clients (use
``django_mcp.contrib.oauth_toolkit`` for those).

This module imports Django REST framework; it is imported only when
``MCP_AUTHENTICATION_BACKENDS`` names it. Without ``rest_framework.authtoken``
in ``INSTALLED_APPS`` (DRF then declares ``Token`` abstract, with no table)
every request it sees raises ``ImproperlyConfigured``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest
from rest_framework.authtoken.models import Token

from django_mcp.exceptions import AuthenticationFailed

__all__ = ["AuthtokenAuthentication", "InvalidToken"]


class InvalidToken(AuthenticationFailed):
    """The ``Token`` credentials cannot be accepted: answer 401 ``invalid_token``."""

    default_message: ClassVar[str] = "Invalid token."


class AuthtokenAuthentication:
    """Authenticate MCP requests with DRF ``authtoken`` keys (``authenticate()`` is sync).

    Subclass to read another keyword or a token model of your own (with a
    ``key`` and a ``user``), as with DRF's ``TokenAuthentication``::

        class McpTokenAuthentication(AuthtokenAuthentication):
            keyword = "Key"
    """

    #: The ``Authorization`` scheme that carries a key (compared in any case).
    keyword: ClassVar[str] = "Token"
    #: The model the keys are looked up in.
    model: ClassVar[Any] = Token

    def authenticate(self, request: HttpRequest) -> Any:
        """Return the key's user, None without ``keyword`` credentials, or raise.

        Raises:
            InvalidToken: a malformed header, an unknown key or an inactive
                user.
            ImproperlyConfigured: the model has no table (DRF's ``Token``
                without ``rest_framework.authtoken`` in ``INSTALLED_APPS``).
        """
        words = request.headers.get("Authorization", "").split()
        if not words or words[0].lower() != self.keyword.lower():
            return None
        if len(words) == 1:
            raise InvalidToken("Invalid token header. No credentials provided.")
        if len(words) > 2:
            raise InvalidToken("Invalid token header. Token string should not contain spaces.")
        key = words[1]
        if not key.isprintable():
            raise InvalidToken("Invalid token header. Token string should not contain invalid characters.")
        if self.model._meta.abstract:
            # DRF declares Token abstract, with no manager, when its app is
            # not installed (rest_framework/authtoken/models.py).
            raise ImproperlyConfigured(
                f"{type(self).__name__} needs 'rest_framework.authtoken' in INSTALLED_APPS."
            )
        try:
            token = self.model.objects.select_related("user").get(key=key)
        except self.model.DoesNotExist:
            raise InvalidToken() from None
        if not token.user.is_active:
            # The same answer as an unknown key: a refused caller learns
            # nothing about which keys exist.
            raise InvalidToken()
        return token.user
