"""A project's DRF ViewSets as MCP tools, with their permissions and row scope.

``ViewSetTools(BookViewSet, prefix="api-book", actions=(...))`` returns a
tuple of ordinary ``Tool`` classes to list in a server's ``tools``::

    class ShelfServer(Server):
        tools = (*ViewSetTools(BookViewSet, actions=("list", "retrieve", "restock")),)

Actions: ``list``, ``retrieve``, ``create``, ``update``,
``partial_update``, ``destroy`` and any ``@action`` of the ViewSet by its
name; by default ``list`` and ``retrieve`` only. Tool names are
``<prefix>-<action>`` with ``_`` written as ``-``
(``api-book-partial-update``); the prefix defaults to the model name.

Each call runs the ViewSet's own code in-process, as the MCP caller
(``request.user``, and ``request.auth`` when one of the ViewSet's
authenticators recognises the caller's own credentials):

* A tool is visible (and callable) only when the ViewSet's
  ``permission_classes`` grant ``has_permission()`` for its action;
  otherwise it is absent from ``tools/list`` and answers like an unknown
  tool. Object permissions apply through ``get_object()``.
* Lists are ``filter_queryset(get_queryset())`` (``search`` is the search
  filter's parameter), cut with the server's signed cursors; objects are
  looked up through the same queryset, so a row outside it answers exactly
  like a missing one.
* Writes go through the action (``perform_create()``, ``perform_update()``,
  ``perform_destroy()``, an ``@action``'s method) in a transaction.
* Error responses (validation, not found, permission denied, throttled)
  become ``isError`` results naming each field and message, also as
  ``structuredContent`` ``{"errors": {"field": ["message"]}}``.
* Secrets stay home: credential fields (``django_mcp.contrib.secrets``),
  password inputs and ``hidden_fields`` never appear in a result;
  ``write_only`` fields are ``"writeOnly": true`` arguments.

Django REST framework is the ``drf`` extra
(``pip install 'django-mcp-toolkit[drf]'``); this module imports it only
when ``ViewSetTools`` is called. See ``docs/contrib.md``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from typing import Any, Final

from django.core.exceptions import ImproperlyConfigured

from django_mcp.server.primitives import Tool

__all__ = ["INSTALL_HINT", "ViewSetTools"]

INSTALL_HINT: Final = "pip install 'django-mcp-toolkit[drf]'"
"""The command that installs what ``ViewSetTools`` needs."""


def ViewSetTools(  # noqa: N802 - spelled like the classes it returns
    viewset_class: Any,
    *,
    prefix: str | None = None,
    actions: Iterable[str] = ("list", "retrieve"),
    hidden_fields: Iterable[str] = (),
) -> tuple[type[Tool[Any, Any]], ...]:
    """Return tools running ``actions`` of the DRF ViewSet ``viewset_class``.

    ``hidden_fields`` names fields no result shows, besides the credentials
    always hidden (``django_mcp.contrib.secrets``) and the serializer's
    password inputs; sent, they are ``"writeOnly": true`` arguments.

    Raises:
        ImproperlyConfigured: Django REST framework is not installed, the
            class is not a ViewSet, or an action is unknown.
    """
    if importlib.util.find_spec("rest_framework") is None:
        raise ImproperlyConfigured(f"ViewSetTools() needs Django REST framework: {INSTALL_HINT}")
    from django_mcp.contrib.drf._factory import build

    return build(viewset_class, prefix=prefix, actions=actions, hidden_fields=hidden_fields)
