"""Build the tool classes of one ViewSet (imports Django REST framework)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

import msgspec
from django.core.exceptions import FieldDoesNotExist, ImproperlyConfigured
from django.db import models
from rest_framework.filters import SearchFilter
from rest_framework.viewsets import ViewSetMixin

from django_mcp.contrib._calls import (
    REQUIRED,
    build_schema,
    caller,
    class_name,
    inner_request,
    list_of,
    page_fields,
    pk_type,
    tool_name,
)
from django_mcp.contrib.drf._serializers import input_type, is_secret, output_type, readable, writable
from django_mcp.contrib.drf._tools import McpPagination, ViewSetTool
from django_mcp.contrib.secrets import hidden_fields, stores_password
from django_mcp.request import McpRequest
from django_mcp.schemas import Schema
from django_mcp.server.primitives import Tool, ToolAnnotations

__all__ = ["STANDARD_ACTIONS", "build"]

#: The standard actions: HTTP method and whether they work on one object.
STANDARD_ACTIONS: dict[str, tuple[str, bool]] = {
    "list": ("get", False),
    "retrieve": ("get", True),
    "create": ("post", False),
    "update": ("put", True),
    "partial_update": ("patch", True),
    "destroy": ("delete", True),
}

_READ = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=False)
_ANNOTATIONS = {
    "get": _READ,
    "post": ToolAnnotations(read_only=False, destructive=False, idempotent=False, open_world=False),
    "put": ToolAnnotations(read_only=False, destructive=False, idempotent=True, open_world=False),
    "patch": ToolAnnotations(read_only=False, destructive=False, idempotent=True, open_world=False),
    "delete": ToolAnnotations(read_only=False, destructive=True, idempotent=True, open_world=False),
}
_TITLES = {
    "list": "List {plural}",
    "retrieve": "Get {verbose}",
    "create": "Create {verbose}",
    "update": "Replace {verbose}",
    "partial_update": "Update {verbose}",
    "destroy": "Delete {verbose}",
}
_DESCRIPTIONS = {
    "list": "List {plural} one page at a time{search}.",
    "retrieve": "Return one {verbose} by its ID.",
    "create": "Create a {verbose}.",
    "update": "Replace a {verbose}: give its ID and every field.",
    "partial_update": "Update a {verbose}: give its ID and only the fields to change; the others keep "
    "their values.",
    "destroy": "Delete a {verbose} by its ID.",
}
_BODY_METHODS = ("post", "put", "patch")


def build(
    viewset: Any, *, prefix: str | None, actions: Iterable[str], hidden_fields: Iterable[str] = ()
) -> tuple[type[Tool[Any, Any]], ...]:
    """Return the tools of ``actions`` of ``viewset`` (see ``ViewSetTools``)."""
    label = f"ViewSetTools({getattr(viewset, '__qualname__', repr(viewset))})"
    if not (isinstance(viewset, type) and issubclass(viewset, ViewSetMixin)):
        raise ImproperlyConfigured(f"ViewSetTools() needs a ViewSet class, got {viewset!r}")
    if isinstance(actions, str):
        raise ImproperlyConfigured(f"{label}: actions must be a tuple of names, not a string")
    names = tuple(actions)
    if len(set(names)) != len(names):
        raise ImproperlyConfigured(f"{label}: an action is listed twice")
    if isinstance(hidden_fields, str):
        raise ImproperlyConfigured(f"{label}: hidden_fields must be a tuple of names, not a string")
    factory = _Factory(viewset, prefix, label, frozenset(hidden_fields))
    return tuple(factory.tool(action) for action in names)


def _model_of(viewset: Any) -> type[models.Model] | None:
    queryset = getattr(viewset, "queryset", None)
    if queryset is not None:
        return queryset.model  # type: ignore[no-any-return]
    serializer = getattr(viewset, "serializer_class", None)
    meta = getattr(serializer, "Meta", None)
    return getattr(meta, "model", None)


class _Factory:
    def __init__(self, viewset: Any, prefix: str | None, label: str, hidden: frozenset[str]) -> None:
        self.viewset = viewset
        self.label = label
        self.hidden = hidden
        self.model = _model_of(viewset)
        if prefix is None:
            if self.model is None:
                raise ImproperlyConfigured(
                    f"{label}: the ViewSet names no model (queryset or serializer Meta.model); "
                    "pass prefix=..."
                )
            prefix = self.model._meta.model_name
        self.prefix = str(prefix)
        self.module = viewset.__module__
        self.basename = self.model._meta.model_name if self.model is not None else self.prefix
        self.extra = {func.__name__: func for func in viewset.get_extra_actions()}
        opts = self.model._meta if self.model is not None else None
        self.verbose = str(opts.verbose_name) if opts else self.prefix
        self.plural = str(opts.verbose_name_plural) if opts else self.prefix

    def tool(self, action: Any) -> type[Tool[Any, Any]]:
        if not isinstance(action, str):
            raise ImproperlyConfigured(f"{self.label}: action names are strings, got {action!r}")
        if action in STANDARD_ACTIONS:
            method, detail = STANDARD_ACTIONS[action]
            if not callable(getattr(self.viewset, action, None)):
                raise ImproperlyConfigured(f"{self.label}: the ViewSet has no {action}() action")
            handler = action
            initkwargs: dict[str, Any] = {
                "basename": self.basename,
                "detail": detail,
                "suffix": "Instance" if detail else "List",
            }
            title = _TITLES[action].format(verbose=self.verbose, plural=self.plural)
            searched = self._searched()
            description = _DESCRIPTIONS[action].format(
                verbose=self.verbose,
                plural=self.plural,
                search=f"; search looks in {searched}" if searched else "",
            )
        elif action in self.extra:
            func = self.extra[action]
            mapping = dict(func.mapping)
            method = "post" if "post" in mapping else next(iter(mapping))
            handler = mapping[method]
            detail = bool(func.detail)
            initkwargs = {"basename": self.basename, "detail": detail, **func.kwargs}
            title = str(func.kwargs.get("name") or action)
            description = " ".join((func.__doc__ or title).split())
        else:
            choices = ", ".join(STANDARD_ACTIONS)
            raise ImproperlyConfigured(
                f"{self.label}: unknown action {action!r}: use {choices} or the name of one of the "
                "ViewSet's @action methods"
            )
        name = tool_name(self.prefix, action)
        cls = class_name(name)
        paged = action == "list"
        serializer = self._serializer(initkwargs, method, handler)
        secrets = self._secrets(serializer)
        view_kwargs = dict(initkwargs)
        if paged and hasattr(self.viewset, "pagination_class"):
            view_kwargs["pagination_class"] = McpPagination
        attrs: dict[str, Any] = {
            "name": name,
            "title": title,
            "description": description,
            "__doc__": description,
            "__module__": self.module,
            "__qualname__": cls,
            "annotations": _ANNOTATIONS[method],
            "input": self._input(f"{cls}Input", action, method, serializer, secrets, detail=detail),
            "output": self._output(cls, action, serializer, secrets),
            "viewset": self.viewset,
            "action": handler,
            "http_method": method.upper(),
            "detail": detail,
            "view_function": staticmethod(self.viewset.as_view({method: handler}, **view_kwargs)),
            "initkwargs": initkwargs,
            "lookup": getattr(self.viewset, "lookup_url_kwarg", None) or self._lookup_field(),
            "paged": paged,
            "db_model": self.model,
            "hidden": secrets,
            "password_arguments": self._password_arguments(serializer),
            "idempotency_keys": method != "get",
        }
        return type(cls, (ViewSetTool,), attrs)

    def _password_arguments(self, serializer: Any) -> frozenset[str]:
        """Return the serializer's fields that write a user model's password hash."""
        if self.model is None or not stores_password(self.model) or serializer is None:
            return frozenset()
        return frozenset(
            name
            for name, field in writable(serializer)
            if str(getattr(field, "source", "") or name) == "password"
        )

    def _secrets(self, serializer: Any) -> frozenset[str]:
        """Return the serializer's fields no result shows (``django_mcp.contrib.secrets``)."""
        model_secrets = hidden_fields(self.model, self.hidden) if self.model is not None else self.hidden
        fields = getattr(serializer, "fields", {}) if serializer is not None else {}
        return self.hidden | {name for name, field in fields.items() if is_secret(field, model_secrets)}

    def _searched(self) -> str:
        backends = getattr(self.viewset, "filter_backends", ()) or ()
        fields = getattr(self.viewset, "search_fields", None)
        if fields and any(isinstance(b, type) and issubclass(b, SearchFilter) for b in backends):
            return ", ".join(str(field).lstrip("^=@$") for field in fields)
        return ""

    def _serializer(self, initkwargs: dict[str, Any], method: str, handler: str) -> Any:
        """Return the serializer the action would use for an anonymous caller, or None."""
        view = self.viewset(**initkwargs)
        if not hasattr(view, "get_serializer"):
            return None
        view.action_map = {method: handler}
        view.args, view.kwargs, view.format_kwarg = (), {}, None
        anonymous = McpRequest(
            method="tools/list", params={}, meta={}, protocol_version="", client_capabilities={}
        )
        inner = inner_request(anonymous, method.upper())
        inner._force_auth_user = caller(anonymous)
        view.request = view.initialize_request(inner)
        try:
            return view.get_serializer()
        except Exception as exc:  # get_serializer_class() asserts, user code may raise anything
            raise ImproperlyConfigured(
                f"{self.label}: cannot build the serializer of {handler}(): {exc}"
            ) from None

    def _lookup_field(self) -> str:
        # A plain ViewSet (no GenericAPIView) routes its detail actions on pk.
        return str(getattr(self.viewset, "lookup_field", "pk"))

    def _id(self) -> tuple[str, Any, Any]:
        lookup = self._lookup_field()
        kind: Any = str
        if self.model is not None:
            if lookup in ("pk", self.model._meta.pk.name):
                kind = pk_type(self.model)
            else:
                try:
                    field = self.model._meta.get_field(lookup)
                except FieldDoesNotExist:
                    field = None
                kind = int if isinstance(field, models.IntegerField) else str
        described = msgspec.Meta(description=f"The {self.verbose}'s {'ID' if lookup == 'pk' else lookup}.")
        return ("id", Annotated[kind, described], REQUIRED)

    def _input(
        self, name: str, action: str, method: str, serializer: Any, secrets: frozenset[str], *, detail: bool
    ) -> type[Schema]:
        fields: list[tuple[str, Any, Any]] = []
        if action == "list":
            fields += page_fields(search=bool(self._searched()))
        if detail:
            fields.append(self._id())
        if method in _BODY_METHODS and serializer is not None:
            partial = method == "patch"
            for field_name, field in writable(serializer):
                kind = input_type(field, secret=field_name in secrets)
                if kind is None or (detail and field_name == "id"):
                    continue
                if field.required and not partial:
                    fields.append((field_name, kind, REQUIRED))
                else:
                    fields.append((field_name, kind | msgspec.UnsetType, msgspec.UNSET))
        return build_schema(name, module=self.module, doc=None, fields=fields)

    def _output(self, cls: str, action: str, serializer: Any, secrets: frozenset[str]) -> type[Schema] | None:
        if serializer is None or action not in ("list", "retrieve", "create", "update", "partial_update"):
            return None
        item = build_schema(
            f"{cls}Result",
            module=self.module,
            doc=f"A {self.verbose} as the API shows it.",
            fields=[
                (field_name, output_type(field), None)
                for field_name, field in readable(serializer)
                if field_name not in secrets
            ],
            closed=False,
        )
        if action != "list":
            return item
        return build_schema(
            f"{cls}Page",
            module=self.module,
            doc=f"One page of {self.plural}.",
            fields=[("results", list_of(item), REQUIRED), ("nextCursor", str | None, None)],
        )
