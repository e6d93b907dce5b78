"""Build the tool classes of one ModelAdmin (``ModelAdminTools``; see the package)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

import msgspec
from django.contrib import admin
from django.contrib.admin.utils import model_format_dict
from django.core.exceptions import ImproperlyConfigured
from django.db import models

from django_mcp.contrib._calls import (
    REQUIRED,
    build_schema,
    class_name,
    inner_request,
    list_of,
    page_fields,
    pk_type,
    tool_name,
)
from django_mcp.contrib.admin._forms import input_type, model_fields, output_type, writes
from django_mcp.contrib.admin._tools import (
    AdminActionTool,
    AdminAddTool,
    AdminChangeTool,
    AdminDeleteTool,
    AdminGetTool,
    AdminListTool,
    AdminTool,
    action_parts,
    id_type,
    maps_pk,
)
from django_mcp.contrib.secrets import hidden_fields as secret_fields
from django_mcp.contrib.secrets import is_secret_form_field
from django_mcp.request import McpRequest
from django_mcp.schemas import Schema
from django_mcp.server.primitives import Tool, ToolAnnotations

__all__ = ["STANDARD_ACTIONS", "ModelAdminTools", "article"]

#: The admin views a tool can stand for, besides the admin's own actions.
STANDARD_ACTIONS = ("list", "get", "add", "change", "delete")

_READ = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=False)
_ANNOTATIONS = {
    "list": _READ,
    "get": _READ,
    "add": ToolAnnotations(read_only=False, destructive=False, idempotent=False, open_world=False),
    "change": ToolAnnotations(read_only=False, destructive=False, idempotent=True, open_world=False),
    "delete": ToolAnnotations(read_only=False, destructive=True, idempotent=True, open_world=False),
}
# Admin actions work on many rows at once: the playground asks first.
_BULK = ToolAnnotations(read_only=False, destructive=True, idempotent=False, open_world=False)


def ModelAdminTools(  # noqa: N802 - spelled like the classes it returns
    admin_class: type[admin.ModelAdmin[Any]],
    *,
    prefix: str | None = None,
    actions: Iterable[str] = ("list", "get"),
    site: admin.AdminSite | None = None,
    model: type[models.Model] | None = None,
    hidden_fields: Iterable[str] = (),
) -> tuple[type[Tool[Any, Any]], ...]:
    """Return tools running ``actions`` of the ModelAdmin ``admin_class``.

    The instance registered on ``site`` (default ``django.contrib.admin.site``)
    is used; ``model`` picks one when the class is registered for several
    models, or names the model to instantiate the class for when it is not
    registered. ``hidden_fields`` names model fields no result shows, besides
    the credentials always hidden (``django_mcp.contrib.secrets``).

    Raises:
        ImproperlyConfigured: the admin cannot be found, an action is
            unknown, its forms cannot be built, or its primary key is a
            secret.
    """
    site = admin.site if site is None else site
    model_admin = _model_admin(admin_class, site, model)
    opts = model_admin.model._meta
    prefix = opts.model_name if prefix is None else prefix
    if isinstance(actions, str):
        raise ImproperlyConfigured(
            f"ModelAdminTools({admin_class.__qualname__}): actions must be a tuple of names, not a string"
        )
    names = tuple(actions)
    if len(set(names)) != len(names):
        raise ImproperlyConfigured(f"ModelAdminTools({admin_class.__qualname__}): an action is listed twice")
    if isinstance(hidden_fields, str):
        raise ImproperlyConfigured(
            f"ModelAdminTools({admin_class.__qualname__}): hidden_fields must be a tuple of names, "
            "not a string"
        )
    factory = _Factory(model_admin, admin_class, prefix, frozenset(hidden_fields))
    return tuple(factory.tool(action) for action in names)


def _model_admin(
    admin_class: Any, site: admin.AdminSite, model: type[models.Model] | None
) -> admin.ModelAdmin[Any]:
    label = getattr(admin_class, "__qualname__", repr(admin_class))
    if not (isinstance(admin_class, type) and issubclass(admin_class, admin.ModelAdmin)):
        raise ImproperlyConfigured(f"ModelAdminTools() needs a ModelAdmin subclass, got {admin_class!r}")
    # AdminSite has no public way to list its ModelAdmins by class.
    registered = [instance for instance in site._registry.values() if type(instance) is admin_class]
    if model is not None:
        registered = [instance for instance in registered if instance.model is model]
        return registered[0] if registered else admin_class(model, site)
    if len(registered) == 1:
        return registered[0]
    if not registered:
        raise ImproperlyConfigured(
            f"ModelAdminTools({label}): {label} is not registered on the {site.name!r} admin site; "
            "register it first (import its admin module) or pass model=..."
        )
    raise ImproperlyConfigured(
        f"ModelAdminTools({label}): {label} is registered for several models; pass model=..."
    )


class _EveryPermission:
    """The user the published schemas are built for: one holding every permission.

    Schemas are the same for every caller, so they show the richest form:
    the change form of a user without the change permission has no fields
    at all (``ModelAdmin.get_form()``). Each call still validates with the
    caller's own form, which refuses the fields it lacks.
    """

    pk = id = None
    is_active = is_staff = is_superuser = is_authenticated = True
    is_anonymous = False

    def get_username(self) -> str:
        """Return no name: this user is nobody."""
        return ""

    def has_perm(self, perm: str, obj: Any = None) -> bool:
        """Return True: every permission."""
        return True

    def has_perms(self, perm_list: Any, obj: Any = None) -> bool:
        """Return True: every permission."""
        return True

    def has_module_perms(self, app_label: str) -> bool:
        """Return True: every app."""
        return True


def _schema_request() -> Any:
    """Return the request forms are built with for the published schemas."""
    request = McpRequest(method="tools/list", params={}, meta={}, protocol_version="", client_capabilities={})
    inner = inner_request(request, "GET")
    inner.user = _EveryPermission()
    return inner


class _Factory:
    """Build the tool classes of one ModelAdmin."""

    def __init__(
        self, model_admin: admin.ModelAdmin[Any], admin_class: type[Any], prefix: str, hidden: frozenset[str]
    ) -> None:
        self.model_admin = model_admin
        self.model = model_admin.model
        self.opts = self.model._meta
        self.module = admin_class.__module__
        self.label = f"ModelAdminTools({admin_class.__qualname__})"
        self.prefix = prefix
        request = _schema_request()
        # The change view's shape is asked with an unsaved object: admins
        # test ``obj is None`` (UserAdmin's fieldsets, django-oauth-toolkit's
        # hidden token) to tell the add view from the change view.
        blank = self.model()
        try:
            self.add_form = model_admin.get_form(request, None, change=False)
            self.change_form = model_admin.get_form(request, blank, change=True)
            shown = model_admin.get_fields(request, blank)
        except Exception as exc:  # the admin's own code, any failure
            raise ImproperlyConfigured(
                f"{self.label}: cannot build the admin's forms to publish its tools' schemas "
                f"({type(exc).__name__}: {exc}); exclude it or pass model=..."
            ) from exc
        # What the forms treat as secrets (password inputs and hashes) is
        # hidden in results too, whoever calls.
        self.hidden = hidden | {
            name
            for form in (self.add_form, self.change_form)
            for name, field in form.base_fields.items()
            if is_secret_form_field(field)
        }
        self.secrets = secret_fields(self.model, self.hidden)
        if self.opts.pk.name in self.secrets and not maps_pk(self.model):
            raise ImproperlyConfigured(
                f"{self.label}: the primary key of {self.opts.label} ({self.opts.pk.name}) is a secret, "
                "and every answer names its object by it; publish a proxy whose pk is not"
            )
        self.fields = [field for field in model_fields(self.model, shown) if field.name not in self.secrets]

    def tool(self, action: Any) -> type[Tool[Any, Any]]:
        """Return the tool class for ``action``."""
        if not isinstance(action, str):
            raise ImproperlyConfigured(f"{self.label}: action names are strings, got {action!r}")
        name = tool_name(self.prefix, action)
        cls = class_name(name)
        verbose, plural = str(self.opts.verbose_name), str(self.opts.verbose_name_plural)
        some = f"{article(verbose)} {verbose}"
        item = self._output(f"{cls}Result")
        attrs: dict[str, Any]
        if action == "list":
            base: type[AdminTool] = AdminListTool
            search = bool(self.model_admin.search_fields)
            searched = ", ".join(str(field) for field in self.model_admin.search_fields)
            attrs = {
                "title": f"List {plural}",
                "description": f"List {plural} as the admin shows them, one page at a time"
                + (f"; search looks in {searched}." if search else "."),
                "input": self._schema(f"{cls}Input", page_fields(search=search)),
                "output": build_schema(
                    f"{cls}Page",
                    module=self.module,
                    doc=f"One page of {plural}.",
                    fields=[("results", list_of(item), REQUIRED), ("nextCursor", str | None, None)],
                ),
            }
        elif action == "get":
            base = AdminGetTool
            attrs = {
                "title": f"Get {verbose}",
                "description": f"Return one {verbose} by its ID, as its admin change page shows it.",
                "input": self._schema(f"{cls}Input", [self._id()]),
                "output": item,
            }
        elif action == "add":
            base = AdminAddTool
            attrs = {
                "title": f"Add {verbose}",
                "description": f"Add {some} through its admin form.",
                "input": self._schema(f"{cls}Input", self._form_fields(self.add_form, partial=False)),
                "output": item,
            }
        elif action == "change":
            base = AdminChangeTool
            attrs = {
                "title": f"Change {verbose}",
                "description": f"Change {some} through its admin form: give its ID and only the "
                "fields to change; the others keep their values.",
                "input": self._schema(
                    f"{cls}Input", [self._id(), *self._form_fields(self.change_form, partial=True)]
                ),
                "output": item,
            }
        elif action == "delete":
            base = AdminDeleteTool
            attrs = {
                "title": f"Delete {verbose}",
                "description": f"Delete {some} by its ID, with what the admin deletes along with it.",
                "input": self._schema(f"{cls}Input", [self._id()]),
            }
        else:
            base, attrs = AdminActionTool, self._action(action, cls)
        attrs.setdefault("annotations", _ANNOTATIONS.get(action, _BULK))
        attrs.update(
            name=name,
            model_admin=self.model_admin,
            hidden=self.hidden,
            __module__=self.module,
            __qualname__=cls,
            __doc__=attrs["description"],
        )
        return type(cls, (base,), attrs)

    def _action(self, action: str, cls: str) -> dict[str, Any]:
        found = self.model_admin.get_action(action)
        if found is None:
            choices = ", ".join(STANDARD_ACTIONS)
            raise ImproperlyConfigured(
                f"{self.label}: unknown action {action!r}: use {choices} or the name of one of the "
                "admin's actions"
            )
        description = str(action_parts(found)[2]) % model_format_dict(self.opts)
        plural = str(self.opts.verbose_name_plural)
        ids = list_of(pk_type(self.model))
        return {
            "title": description,
            "description": f"{description} (the admin action {action!r}) for the {plural} with the "
            "given IDs.",
            "input": self._schema(f"{cls}Input", [("ids", _min_one(ids), REQUIRED)]),
            "action_name": action,
        }

    def _id(self) -> tuple[str, Any, Any]:
        return ("id", id_type(self.model), REQUIRED)

    def _form_fields(self, form_class: Any, *, partial: bool) -> list[tuple[str, Any, Any]]:
        fields = []
        form = form_class()
        for name, field in form_class.base_fields.items():
            if not writes(field) or (partial and name == "id"):
                continue
            # A change takes null for every field: a row may hold an empty
            # value its form requires (see AdminChangeTool), and a client
            # sends back what ``get`` showed.
            kind = input_type(field, secret=name in self.secrets, nullable=partial)
            if partial:
                default: Any = msgspec.UNSET
                kind = kind | msgspec.UnsetType
            elif field.required and form.get_initial_for_field(field, name) in (None, "", [], ()):
                default = REQUIRED
            else:
                default = msgspec.UNSET
                kind = kind | msgspec.UnsetType
            fields.append((name, kind, default))
        return fields

    def _output(self, name: str) -> type[Schema]:
        verbose = str(self.opts.verbose_name)
        fields: list[tuple[str, Any, Any]] = [("id", id_type(self.model), REQUIRED)]
        fields += [(field.name, output_type(field), None) for field in self.fields if field.name != "id"]
        # Open: the change page's fields may depend on the object and the
        # caller (get_fieldsets(request, obj)); these are an anonymous
        # caller's on a new object, each optional.
        return build_schema(
            name, module=self.module, doc=f"A {verbose} as the admin shows it.", fields=fields, closed=False
        )

    def _schema(self, name: str, fields: list[tuple[str, Any, Any]]) -> type[Schema]:
        return build_schema(name, module=self.module, doc=None, fields=fields)


def article(noun: str) -> str:
    """Return "a" or "an" for ``noun`` as it is spoken ("an order", "a user", "an update")."""
    word = noun.lower()
    if word[:1] in ("a", "e", "i", "o"):
        return "an"
    # "u" sounds like "you" before a consonant and a vowel ("user", "unit").
    if word[:1] == "u" and not (len(word) > 2 and word[1] not in "aeiou" and word[2] in "aeiouy"):
        return "an"
    return "a"


def _min_one(kind: Any) -> Any:
    return Annotated[kind, msgspec.Meta(min_length=1)]
