"""The tools ``ModelAdminTools`` generates: one base class per kind of action.

Each runs the ModelAdmin's own code with an in-process request made by the
caller (``django_mcp.contrib._calls.inner_request``):

* visibility (``authorize``): the site's ``has_permission()`` (an active
  staff member), then ``has_view_or_change_permission()`` for ``list`` and
  ``get``, ``has_add_permission()``, ``has_change_permission()``,
  ``has_delete_permission()``, or, for an admin action, the action being
  among ``get_actions()`` (which applies its ``allowed_permissions``);
* rows: every lookup goes through ``get_queryset()`` (``get_object()`` for
  one object), so a row outside it answers exactly like a missing one;
  the object permission is then asked with the object;
* writes: ``get_form()`` and ``is_valid()``, ``save_form()``,
  ``save_model()``, ``save_related()``, ``delete_model()`` or the action's
  own function, in one transaction, each logged with ``log_addition()``,
  ``log_change()`` or ``log_deletions()`` under the caller (the object's
  History page shows it). The answer is built and checked against the
  tool's output schema inside that transaction: what fails before the
  answer rolls the write back. Messages the admin code sends with
  ``message_user()`` become the result's text.
* ``change`` is a partial update: the change form is validated with the
  stored values of the fields the caller left out, those fields are not
  required, and their stored values are put back before saving (a form
  round trip may lose precision, such as a date's microseconds); nothing
  is saved or logged when no sent field differs from its stored value.
* secrets: results leave out ``django_mcp.contrib.secrets``'s hidden
  fields; a password sent for an ``AbstractBaseUser``'s own ``password``
  field (a plain form that does not hash it) is hashed with
  ``set_password()``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

import msgspec
from django.contrib.admin import ModelAdmin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.messages.storage.base import BaseStorage, Message
from django.core.exceptions import FieldDoesNotExist, PermissionDenied, ValidationError
from django.db import models, router, transaction
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpResponse, QueryDict
from django.utils.html import strip_tags
from django.utils.text import capfirst

from django_mcp.contrib._calls import (
    Page,
    bad_cursor,
    field_errors,
    inner_request,
    pk_type,
    read_page,
    schema_values,
    validation_errors,
    with_next_cursor,
)
from django_mcp.contrib.admin._forms import form_data, model_fields, render, writes
from django_mcp.contrib.secrets import hidden_fields, stores_password
from django_mcp.exceptions import InvalidParams
from django_mcp.request import McpRequest
from django_mcp.response import McpResponse
from django_mcp.server.primitives import Tool

__all__ = [
    "AdminActionTool",
    "AdminAddTool",
    "AdminChangeTool",
    "AdminDeleteTool",
    "AdminGetTool",
    "AdminListTool",
    "AdminTool",
    "action_parts",
    "id_type",
    "maps_pk",
]

logger = logging.getLogger(__name__)

_DENIED = "You do not have permission to do this."


def maps_pk(model: type[models.Model]) -> bool:
    """Return whether ``model`` redefines ``pk`` (DRF's ``TokenProxy``: the user's ID, not the key)."""
    for cls in model.__mro__:
        if "pk" in cls.__dict__:
            return cls is not models.Model
    return False


def id_type(model: type[models.Model]) -> Any:
    """Return the JSON type of the ``id`` the admin names ``model``'s objects by."""
    return int | str if maps_pk(model) else pk_type(model)


def action_parts(action: Any) -> tuple[Callable[..., Any], str, str]:
    """Return the function, name and description of what ``get_action()``/``get_actions()`` give.

    Django 6.1 gives ``Action`` values, whose tuple indexing is deprecated;
    earlier releases give ``(function, name, description)`` tuples.
    """
    if hasattr(action, "func"):
        return action.func, action.name, action.description
    func, name, description = action
    return func, name, description


class _Messages(BaseStorage):
    """Message storage that keeps what the admin says for the tool's result."""

    def _get(self, *args: Any, **kwargs: Any) -> tuple[list[Message], bool]:
        return [], True

    def _store(self, messages: list[Message], response: Any, *args: Any, **kwargs: Any) -> list[Message]:
        return []

    def texts(self) -> list[str]:
        """Return the messages sent so far, as plain text."""
        return [strip_tags(str(message)) for message in self]


class AdminTool(Tool):
    """A tool running one action of a ModelAdmin as the caller."""

    #: The ModelAdmin instance whose code runs.
    model_admin: ClassVar[ModelAdmin[Any]]
    #: Fields no result shows besides the credentials always hidden
    #: (``hidden_fields=`` and the forms' password fields).
    hidden: ClassVar[frozenset[str]] = frozenset()
    # What the system checks require installed (django_mcp.E026).
    _mcp_requires_app: ClassVar[str] = "django.contrib.admin"
    #: The HTTP method of the inner request.
    http_method: ClassVar[str] = "GET"

    def inner(self, request: McpRequest) -> Any:
        """Return the inner request the admin code sees, with a message storage."""
        inner = inner_request(request, self.http_method)
        # What MessageMiddleware would attach: message_user() works and the
        # messages become the result's text.
        inner._messages = _Messages(inner)
        return inner

    def authorize(self, request: McpRequest) -> bool:
        """Return whether the caller may use the tool: what the admin requires."""
        inner = self.inner(request)
        if not self.model_admin.admin_site.has_permission(inner):
            return False
        return self.allowed(inner)

    def allowed(self, inner: Any) -> bool:
        """Return whether the admin lets the caller take this action (no object)."""
        raise NotImplementedError

    def handle(self, payload: Any, request: McpRequest) -> McpResponse:
        """Run the action as the caller; admin refusals become tool errors."""
        inner = self.inner(request)
        try:
            return self.run(inner, schema_values(payload), request)
        except PermissionDenied:
            return McpResponse.error(_DENIED)
        except Http404:
            return McpResponse.error("Not found.")
        except ValidationError as exc:
            # Raised by save_model() & co.: the transaction is rolled back.
            return field_errors(validation_errors(exc))

    def run(self, inner: Any, arguments: dict[str, Any], request: McpRequest) -> McpResponse:
        """Return the result of the action."""
        raise NotImplementedError

    # ---------------------------------------------------------- helpers

    @property
    def model(self) -> type[models.Model]:
        """Return the admin's model."""
        return self.model_admin.model

    def not_found(self, object_id: Any) -> McpResponse:
        """Return the answer for a row that is missing or outside the admin's queryset."""
        name = capfirst(self.model._meta.verbose_name)
        return McpResponse.error(f'{name} with ID "{object_id}" does not exist.')

    def lookup(self, inner: Any, object_id: Any) -> models.Model | None:
        """Return the object through the admin's ``get_queryset()``, or None."""
        return self.model_admin.get_object(inner, str(object_id))

    def shown(self, inner: Any, obj: models.Model) -> list[Any]:
        """Return the model fields of ``obj``'s change page a result may show (no secret)."""
        secrets = hidden_fields(self.model, self.hidden)
        fields = model_fields(self.model, self.model_admin.get_fields(inner, obj))
        return [field for field in fields if field.name not in secrets]

    def answer(self, obj: models.Model, fields: list[Any]) -> McpResponse:
        """Return ``obj`` as the result, checked against the tool's output schema.

        Raises:
            msgspec.ValidationError: the result does not fit the schema (a
                write in progress is then rolled back by its transaction).
        """
        value = render(obj, fields)
        if self.output is not None:
            msgspec.convert(value, self.output, strict=True)
        return McpResponse.structured(value)

    def atomic(self) -> Any:
        """Return the transaction every write runs in."""
        return transaction.atomic(using=router.db_for_write(self.model))


class AdminListTool(AdminTool):
    """List the admin's rows, searched and paged."""

    def allowed(self, inner: Any) -> bool:
        """Return whether the caller may see the change list."""
        return self.model_admin.has_view_or_change_permission(inner)

    def run(self, inner: Any, arguments: dict[str, Any], request: McpRequest) -> McpResponse:
        """Return one page of rows."""
        admin = self.model_admin
        search = str(arguments.get("search") or "")
        try:
            page = read_page(
                request, str(self.name), search, arguments.get("cursor"), arguments.get("page_size")
            )
        except InvalidParams as exc:
            return bad_cursor(exc)
        queryset = admin.get_queryset(inner)
        if search:
            found, duplicates = admin.get_search_results(inner, queryset, search)
            if duplicates:
                # What the change list does: one row per object, whatever the joins.
                found = admin.get_queryset(inner).filter(Exists(found.filter(pk=OuterRef("pk"))))
            queryset = found
        # The change view's fields (UserAdmin's, not its add form's), asked
        # once for the page with a new object as the tools' schemas are.
        fields = self.shown(inner, self.model())
        queryset = self._related(inner, queryset, fields)
        queryset = queryset.order_by(*self._ordering(inner))
        return self._page(queryset, page, fields)

    def _related(self, inner: Any, queryset: Any, fields: list[Any]) -> Any:
        related = self.model_admin.get_list_select_related(inner)
        if related is True:
            queryset = queryset.select_related()
        elif related:
            queryset = queryset.select_related(*related)
        many = [field.name for field in fields if field.many_to_many]
        return queryset.prefetch_related(*many) if many else queryset

    def _ordering(self, inner: Any) -> list[Any]:
        opts = self.model._meta
        ordering = list(self.model_admin.get_ordering(inner) or opts.ordering or ())
        names = {item.lstrip("-") for item in ordering if isinstance(item, str)}
        # Offsets need a total order, as the change list makes one.
        if not names & {"pk", opts.pk.name, opts.pk.attname}:
            ordering.append("-pk")
        return ordering

    def _page(self, queryset: Any, page: Page, fields: list[Any]) -> McpResponse:
        rows = list(queryset[page.offset : page.offset + page.size + 1])
        return with_next_cursor(page, rows, [render(obj, fields) for obj in rows[: page.size]])


class AdminGetTool(AdminTool):
    """Return one row as the admin's change page shows it."""

    def allowed(self, inner: Any) -> bool:
        """Return whether the caller may view objects."""
        return self.model_admin.has_view_or_change_permission(inner)

    def run(self, inner: Any, arguments: dict[str, Any], request: McpRequest) -> McpResponse:
        """Return the object, or the not-found answer."""
        obj = self.lookup(inner, arguments["id"])
        if obj is None:
            return self.not_found(arguments["id"])
        if not self.model_admin.has_view_or_change_permission(inner, obj):
            raise PermissionDenied
        return self.answer(obj, self.shown(inner, obj))


class _FormTool(AdminTool):
    """A write through the admin's form: ``add`` or ``change``."""

    http_method = "POST"
    adding: ClassVar[bool] = False
    idempotency_keys = True

    def save(self, inner: Any, obj: models.Model | None, given: dict[str, Any]) -> McpResponse:
        """Validate ``given`` with the admin's form and save it as the admin does."""
        admin = self.model_admin
        change = not self.adding
        form_class = admin.get_form(inner, obj, change=change)
        fields = form_class.base_fields
        refused = sorted(name for name in given if name not in fields or not writes(fields[name]))
        if refused:
            return field_errors({name: ["You may not set this field."] for name in refused})
        data = form_data(form_class(instance=obj), given)
        # Load the (empty) body first: reading FILES later would parse it
        # again and replace the POST data set here.
        inner.FILES  # noqa: B018
        inner.POST = data
        form: Any = form_class(inner.POST, inner.FILES, instance=obj)
        stored = _stored(obj) if obj is not None else {}
        if change:
            for name, field in form.fields.items():
                if name not in given:
                    field.required = False
        with self.atomic():
            if not form.is_valid():
                return field_errors(form.errors)
            if obj is not None:
                changed = self._keep_unsent(form, obj, stored, given)
                if not changed:
                    return self.answer(obj, self.shown(inner, obj))
                # What the LogEntry names: the fields that really changed.
                form.__dict__["changed_data"] = changed
            if "password" in given and stores_password(self.model) and _plain_password(fields):
                form.instance.set_password(given["password"])
            saved = admin.save_form(inner, form, change=change)
            admin.save_model(inner, saved, form, change)
            admin.save_related(inner, form, [], change)
            message = admin.construct_change_message(inner, form, [], self.adding)
            if self.adding:
                admin.log_addition(inner, saved, message)
            else:
                admin.log_change(inner, saved, message)
            try:
                return self.answer(saved, self.shown(inner, saved))
            except msgspec.ValidationError:
                transaction.set_rollback(True, using=router.db_for_write(self.model))
                logger.exception("%s: the saved object does not fit the tool's output schema", self.name)
                return McpResponse.error(
                    "Nothing was saved: the result did not match this tool's output schema "
                    "(the server log says why)."
                )

    def _keep_unsent(
        self, form: Any, obj: models.Model, stored: Mapping[str, Any], given: Mapping[str, Any]
    ) -> list[str]:
        """Put back the stored values of fields not sent; return the sent fields that change."""
        opts = self.model._meta
        instance = form.instance
        changed = []
        for name in form.fields:
            try:
                field: Any = opts.get_field(name)
            except FieldDoesNotExist:  # a form-only field (a password pair)
                if name in given:
                    changed.append(name)
                continue
            if field.many_to_many:
                if name not in given:
                    # save_m2m() writes only what cleaned_data holds.
                    form.cleaned_data.pop(name, None)
                elif {item.pk for item in form.cleaned_data.get(name) or ()} != set(
                    getattr(obj, name).values_list("pk", flat=True)
                ):
                    changed.append(name)
            elif field.concrete:
                if name not in given:
                    setattr(instance, field.attname, stored[field.attname])
                elif getattr(instance, field.attname) != stored[field.attname]:
                    changed.append(name)
        return changed


def _empty(obj: models.Model, name: str) -> bool:
    """Return whether ``obj``'s model field ``name`` holds no value (False for any other name)."""
    try:
        field: Any = obj._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    return bool(field.concrete) and getattr(obj, field.attname) in (None, "")


def _stored(obj: models.Model) -> dict[str, Any]:
    """Return ``obj``'s concrete field values by attribute name, before a form touches them."""
    return {field.attname: getattr(obj, field.attname) for field in obj._meta.concrete_fields}


def _plain_password(fields: Mapping[str, Any]) -> bool:
    """Return whether the form's ``password`` field takes a raw value it does not hash.

    ``UserAdmin``'s forms hash through ``set_password()`` themselves (the
    add form's password pair) or show the hash read-only.
    """
    field = fields.get("password")
    return field is not None and writes(field)


class AdminAddTool(_FormTool):
    """Add a row through the admin's add form."""

    adding = True

    def allowed(self, inner: Any) -> bool:
        """Return whether the caller may add objects."""
        return self.model_admin.has_add_permission(inner)

    def run(self, inner: Any, arguments: dict[str, Any], request: McpRequest) -> McpResponse:
        """Return the new object, or the form's errors."""
        if not self.model_admin.has_add_permission(inner):
            raise PermissionDenied
        return self.save(inner, None, arguments)


class AdminChangeTool(_FormTool):
    """Change some fields of a row through the admin's change form."""

    def allowed(self, inner: Any) -> bool:
        """Return whether the caller may change objects."""
        return self.model_admin.has_change_permission(inner)

    def run(self, inner: Any, arguments: dict[str, Any], request: McpRequest) -> McpResponse:
        """Return the changed object, or the form's errors."""
        object_id = arguments.pop("id")
        obj = self.lookup(inner, object_id)
        if obj is None:
            return self.not_found(object_id)
        if not self.model_admin.has_change_permission(inner, obj):
            raise PermissionDenied
        # null for a field the row leaves empty changes nothing: it is what
        # ``get`` shows, even where the form would require a value.
        sent = {
            name: value for name, value in arguments.items() if value is not None or not _empty(obj, name)
        }
        return self.save(inner, obj, sent)


class AdminDeleteTool(AdminTool):
    """Delete a row as the admin's delete page does."""

    http_method = "POST"
    idempotency_keys = True

    def allowed(self, inner: Any) -> bool:
        """Return whether the caller may delete objects."""
        return self.model_admin.has_delete_permission(inner)

    def run(self, inner: Any, arguments: dict[str, Any], request: McpRequest) -> McpResponse:
        """Delete the object (and what cascades), or say why not."""
        admin = self.model_admin
        obj = self.lookup(inner, arguments["id"])
        if obj is None:
            return self.not_found(arguments["id"])
        if not admin.has_delete_permission(inner, obj):
            raise PermissionDenied
        _, _, perms_needed, protected = admin.get_deleted_objects([obj], inner)
        opts = self.model._meta
        if protected:
            listed = "; ".join(strip_tags(str(item)) for item in _flat(protected))
            return McpResponse.error(
                f'Deleting the {opts.verbose_name} "{obj}" would require deleting these protected '
                f"related objects: {listed}"
            )
        if perms_needed:
            listed = ", ".join(sorted(str(name) for name in perms_needed))
            return McpResponse.error(
                f'Deleting the {opts.verbose_name} "{obj}" would delete related objects you may not '
                f"delete: {listed}"
            )
        shown = str(obj)
        with self.atomic():
            # A list, as the admin's own delete view passes.
            admin.log_deletions(inner, [obj])  # type: ignore[arg-type]
            admin.delete_model(inner, obj)
        return McpResponse.text(f'The {opts.verbose_name} "{shown}" was deleted successfully.')


def _flat(items: Any) -> Iterator[Any]:
    for item in items:
        if isinstance(item, list | tuple):
            yield from _flat(item)
        else:
            yield item


class AdminActionTool(AdminTool):
    """Run one of the admin's actions on the selected rows."""

    http_method = "POST"
    idempotency_keys = True
    #: The action's name in ``get_actions()``.
    action_name: ClassVar[str]

    def allowed(self, inner: Any) -> bool:
        """Return whether the action is among the caller's actions."""
        return self.model_admin.has_view_or_change_permission(inner) and self.action_name in (
            self.model_admin.get_actions(inner)
        )

    def run(self, inner: Any, arguments: dict[str, Any], request: McpRequest) -> McpResponse:
        """Run the action function on the rows of the admin's queryset."""
        admin = self.model_admin
        actions: dict[str, Any] = admin.get_actions(inner)
        if self.action_name not in actions:
            raise PermissionDenied
        func = action_parts(actions[self.action_name])[0]
        ids = [str(value) for value in dict.fromkeys(arguments["ids"])]
        # What the change list posts; "post" confirms intermediate pages
        # such as delete_selected's.
        data = QueryDict(mutable=True)
        data.update({"action": self.action_name, "index": "0", "post": "yes"})
        data.setlist(ACTION_CHECKBOX_NAME, ids)
        inner.FILES  # noqa: B018 - load the empty body before setting POST
        inner.POST = data
        queryset = admin.get_queryset(inner)
        pk = self.model._meta.pk
        found = {str(value) for value in queryset.filter(pk__in=ids).values_list("pk", flat=True)}
        for object_id in ids:
            if str(_to_python(pk, object_id)) not in found:
                return self.not_found(object_id)
        with self.atomic():
            response = func(admin, inner, queryset.filter(pk__in=ids))
        texts = inner._messages.texts()
        if isinstance(response, HttpResponse) and not 300 <= response.status_code < 400:
            return McpResponse.error(_page_text(response, texts))
        return McpResponse.text("\n".join(texts) or "Done.")


def _to_python(field: Any, value: str) -> Any:
    try:
        return field.to_python(value)
    except Exception:  # a malformed id matches nothing
        return value


def _page_text(response: HttpResponse, texts: list[str]) -> str:
    """Explain an action that answered with a page (a confirmation, a file) instead of acting."""
    context = getattr(response, "context_data", None) or {}
    lines = list(texts)
    if context.get("protected"):
        protected = "; ".join(strip_tags(str(item)) for item in _flat(context["protected"]))
        lines.append(f"These protected related objects prevent it: {protected}")
    if context.get("perms_lacking"):
        lacking = ", ".join(sorted(str(name) for name in context["perms_lacking"]))
        lines.append(f"It would delete related objects you may not delete: {lacking}")
    if not lines:
        lines.append("The action answered with a page this tool cannot show.")
    return "\n".join(lines)
