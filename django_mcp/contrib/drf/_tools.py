"""The tools ``ViewSetTools`` generates: one ViewSet action each, run as the caller.

A call goes through the ViewSet exactly as a routed request would: the
view function ``as_view()`` returns for the action (what a router builds),
called with an in-process request. So ``initial()`` authenticates, checks
``permission_classes`` and throttles, the action method runs (``create``
-> ``perform_create``, ``partial_update`` -> ``perform_update``,
``destroy`` -> ``perform_destroy``, an ``@action`` -> its method), and the
project's exception handler turns ``ValidationError``, ``Http404`` and
``PermissionDenied`` into a response, which becomes an ``isError`` result.

**Identity.** The inner request is authenticated as the MCP caller, never
as someone else: DRF's forced authentication (what
``rest_framework.test.force_authenticate`` sets) makes ``request.user``
the caller, or ``AnonymousUser`` for an anonymous caller, whatever the
ViewSet's ``authentication_classes`` would make of the request. When the
MCP request carried an ``Authorization`` header, the ViewSet's
authenticators are asked first, and ``request.auth`` is what one of them
returns *for the same user* (a DRF or OAuth token, so scope permissions
work); otherwise it is None.

**Lists.** ``list`` runs the ViewSet's ``list()``, so ``get_queryset()``
and ``filter_queryset()`` (``search`` is the search filter's parameter)
apply; its page is cut by a paginator given for the call (the ViewSet's
``pagination_class`` initkwarg, as a router could), which uses the
server's signed cursors.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

import msgspec
from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, router, transaction
from rest_framework import exceptions
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from django_mcp.contrib._calls import (
    Page,
    bad_cursor,
    caller,
    field_errors,
    inner_request,
    json_value,
    read_page,
    schema_values,
    validation_errors,
)
from django_mcp.contrib.secrets import hidden_fields
from django_mcp.exceptions import InvalidParams
from django_mcp.field_errors import field_errors as grouped
from django_mcp.request import McpRequest
from django_mcp.response import McpResponse
from django_mcp.server.primitives import Tool

__all__ = ["McpPagination", "ViewSetTool", "errors_of"]

logger = logging.getLogger(__name__)


class McpPagination(BasePagination):  # type: ignore[misc]
    """Cut one page of a list with the server's cursors (the call's ``Page``)."""

    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> list[Any]:
        """Return the page's rows; one more is read to know whether a next page exists."""
        page: Page = request.mcp_page
        if getattr(queryset, "ordered", True) is False:
            # Offsets need a total order.
            queryset = queryset.order_by("pk")
        self.page = page
        self.rows = list(queryset[page.offset : page.offset + page.size + 1])
        return self.rows[: page.size]

    def get_paginated_response(self, data: Any) -> Response:
        """Return ``{"results": ..., "nextCursor": ...}``."""
        following = self.page.next_cursor() if len(self.rows) > self.page.size else None
        return Response({"results": data, "nextCursor": following})


class ViewSetTool(Tool):
    """A tool running one action of a ViewSet as the caller."""

    #: The ViewSet class.
    viewset: ClassVar[type[Any]]
    # What the system checks require installed (django_mcp.E025).
    _mcp_requires_app: ClassVar[str] = "rest_framework"
    #: The action (method name) and the HTTP method it is routed on.
    action: ClassVar[str]
    http_method: ClassVar[str]
    #: Whether the action works on one object (takes ``id``).
    detail: ClassVar[bool]
    #: The view function ``as_view()`` built for the action.
    view_function: ClassVar[Callable[..., Any]]
    #: What ``as_view()`` was given (``basename``, ``detail``, ``@action`` kwargs).
    initkwargs: ClassVar[Mapping[str, Any]]
    #: The ViewSet's lookup URL keyword argument (``pk`` by default).
    lookup: ClassVar[str]
    #: Whether the action is the paged ``list``.
    paged: ClassVar[bool] = False
    #: The ViewSet's model (which database writes go to), or None.
    db_model: ClassVar[Any] = None
    #: Result keys never shown: the serializer's fields over secret model
    #: fields or password inputs, and ``hidden_fields=``.
    hidden: ClassVar[frozenset[str]] = frozenset()
    #: Arguments a user model's ``password`` field is written from: a
    #: serializer that stores them unhashed is refused (nothing is saved).
    password_arguments: ClassVar[frozenset[str]] = frozenset()

    def authorize(self, request: McpRequest) -> bool:
        """Return whether the ViewSet's ``permission_classes`` let the caller in."""
        view = self.viewset(**self.initkwargs)
        view.action_map = {self.http_method.lower(): self.action}
        view.args, view.kwargs, view.format_kwarg = (), {}, None
        drf_request = view.initialize_request(self.inner(request))
        view.request = drf_request
        try:
            view.check_permissions(drf_request)
        except exceptions.APIException:
            return False
        return True

    def inner(self, request: McpRequest, body: Any = None, query: str = "") -> Any:
        """Return the inner request, authenticated as the caller."""
        data = b"" if body is None else json.dumps(json_value(body)).encode()
        inner = inner_request(
            request,
            self.http_method,
            body=data,
            content_type="application/json" if body is not None else "",
            query=query,
        )
        user = caller(request)
        # DRF's forced authentication (rest_framework.test.force_authenticate
        # sets the same two attributes): Request() then authenticates with
        # exactly this user and auth, never with the ViewSet's classes.
        inner._force_auth_token = self.credentials(inner, user)
        inner._force_auth_user = user
        return inner

    def credentials(self, inner: Any, user: Any) -> Any:
        """Return the ``request.auth`` one of the ViewSet's authenticators gives the caller, or None."""
        if not getattr(user, "is_authenticated", False) or "HTTP_AUTHORIZATION" not in inner.META:
            return None
        view = self.viewset(**self.initkwargs)
        view.action = self.action
        for authenticator in view.get_authenticators():
            try:
                found = authenticator.authenticate(Request(inner))
            except exceptions.APIException:
                continue
            if found is not None and getattr(found[0], "pk", None) == user.pk:
                return found[1]
        return None

    def handle(self, payload: Any, request: McpRequest) -> McpResponse:
        """Run the action through the ViewSet; error responses become tool errors."""
        arguments = schema_values(payload)
        kwargs: dict[str, str] = {}
        if self.detail:
            kwargs[self.lookup] = str(json_value(arguments.pop("id")))
        query = ""
        page = None
        if self.paged:
            search = str(arguments.pop("search", "") or "")
            try:
                page = read_page(
                    request,
                    str(self.name),
                    search,
                    arguments.pop("cursor", None),
                    arguments.pop("page_size", None),
                )
            except InvalidParams as exc:
                return bad_cursor(exc)
            if search:
                query = _urlencode({api_settings.SEARCH_PARAM: search})
        body = arguments if self.http_method in ("POST", "PUT", "PATCH") else None
        inner = self.inner(request, body, query)
        if page is not None:
            inner.mcp_page = page
        try:
            if self.http_method == "GET":
                return self.result(self.view_function(inner, **kwargs))
            database = DEFAULT_DB_ALIAS if self.db_model is None else router.db_for_write(self.db_model)
            # The answer is built and checked inside the transaction: a
            # write whose answer fails is rolled back, and an error
            # response leaves nothing behind.
            with transaction.atomic(using=database):
                result = self.result(self.view_function(inner, **kwargs))
                if not result.is_error and self._stored_unhashed(body or {}):
                    result = McpResponse.error(
                        "Nothing was saved: this API stores passwords as they are sent instead of hashing "
                        "them (its serializer should call set_password())."
                    )
                if result.is_error:
                    transaction.set_rollback(True, using=database)
                return result
        except ValidationError as exc:
            # Model validation in perform_create() & co.: DRF leaves it to Django.
            return field_errors(validation_errors(exc))

    def _stored_unhashed(self, sent: Mapping[str, Any]) -> bool:
        """Return whether a password sent in ``sent`` now stands in the user table as sent."""
        raw = [
            sent[name] for name in self.password_arguments if isinstance(sent.get(name), str) and sent[name]
        ]
        return bool(raw) and self.db_model._default_manager.filter(password__in=raw).exists()

    def result(self, response: Any) -> McpResponse:
        """Return the tool result of the view's response, secrets left out and checked.

        A response that does not fit the output schema is an error result
        (the write it answers is then rolled back).
        """
        status = getattr(response, "status_code", 500)
        data = getattr(response, "data", None)
        if status >= 400:
            errors = grouped(errors_of(data))
            return field_errors(errors or {"": [f"The request failed (HTTP {status})."]})
        if data is None:
            return McpResponse.text("Done." if status != 204 else "Deleted.")
        value = json_value(data)
        if not isinstance(value, dict):
            return McpResponse.text(json.dumps(value))
        value = self._without_secrets(value)
        if self.output is not None:
            try:
                msgspec.convert(value, self.output, strict=True)
            except msgspec.ValidationError:
                logger.exception("%s: the response does not fit the tool's output schema", self.name)
                return McpResponse.error(
                    "The result did not match this tool's output schema (the server log says why); "
                    "a write was not kept."
                )
        return McpResponse.structured(value)

    def _without_secrets(self, value: dict[str, Any]) -> dict[str, Any]:
        secrets = self.hidden
        if self.db_model is not None:
            secrets = secrets | hidden_fields(self.db_model)
        if self.paged and isinstance(value.get("results"), list):
            rows = [_drop(row, secrets) if isinstance(row, dict) else row for row in value["results"]]
            return {**value, "results": rows}
        return _drop(value, secrets)


def _drop(row: dict[str, Any], names: frozenset[str]) -> dict[str, Any]:
    if not names.intersection(row):
        return row
    return {key: item for key, item in row.items() if key not in names}


def _urlencode(values: Mapping[str, str]) -> str:
    from django.http import QueryDict

    query = QueryDict(mutable=True)
    query.update(values)
    return query.urlencode()


#: Keys of errors that belong to no field (with DRF's NON_FIELD_ERRORS_KEY).
_GENERAL = frozenset({"detail", "non_field_errors"})


def errors_of(data: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Yield ``(field path, message)`` for each error of a DRF error response's data.

    The path is empty for an error of no field (``detail``, non-field errors).
    """
    if isinstance(data, Mapping):
        # Read when used, so override_settings(REST_FRAMEWORK=...) applies.
        general = _GENERAL | {api_settings.NON_FIELD_ERRORS_KEY}
        for key, value in data.items():
            name = str(key)
            where = path if name in general else (f"{path}.{name}" if path else name)
            yield from errors_of(value, where)
    elif isinstance(data, list | tuple):
        for index, item in enumerate(data):
            # A list of messages, or a list of nested objects' errors.
            where = f"{path}[{index}]" if isinstance(item, Mapping) else path
            yield from errors_of(item, where)
    elif data is not None:
        yield path, " ".join(str(data).split())
