"""The admin's list of MCP tasks: status, owner, age, lease, and what is stuck.

``McpTaskAdmin`` shows ``McpTask`` rows read-only (they change only through
``tasks/store.py``); staff with the model's delete permission may
delete them. The "stuck" filter finds working tasks whose lease lapsed (no
reader has settled them yet: ``mcp_prune_tasks`` does) and tasks queued for
longer than ``STUCK_QUEUED`` with no worker taking them.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from django.apps import apps
from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.timesince import timesince
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from django_mcp._admin.framing import DenyFraming
from django_mcp.models import McpTask

__all__ = ["STUCK_QUEUED", "McpTaskAdmin", "StuckFilter", "lease_state", "owner_names"]

if TYPE_CHECKING:
    _ModelAdmin = admin.ModelAdmin[McpTask]
else:
    _ModelAdmin = admin.ModelAdmin

STUCK_QUEUED: Final = datetime.timedelta(minutes=10)
"""How long a task may wait for a worker before the admin calls it stuck."""


def lease_state(task: McpTask, now: datetime.datetime | None = None) -> str:
    """Return where the task's lease stands, in a few words."""
    now = now or timezone.now()
    if task.status != McpTask.Status.WORKING:
        return "—"
    if task.lease_expires_at is None:
        return gettext("queued, no lease") if not task.running else gettext("running, no lease")
    what = gettext("running") if task.running else gettext("queued in process")
    holder = gettext(" by {holder}").format(holder=task.lease_holder) if task.lease_holder else ""
    if task.lease_expires_at <= now:
        return gettext("LAPSED {since} ago ({what}{holder})").format(
            since=timesince(task.lease_expires_at, now), what=what, holder=holder
        )
    return gettext("{what}{holder}, renewed until {time}").format(
        what=what, holder=holder, time=f"{timezone.localtime(task.lease_expires_at):%H:%M:%S}"
    )


def owner_names(owners: Iterable[str]) -> dict[str, str]:
    """Return how to show each task owner: a user's name, "anonymous (address)", or as stored.

    ``user:<pk>`` owners are looked up in one query; a user deleted since
    keeps its stored form with "(deleted)".
    """
    owners = set(owners)
    names = {owner: owner for owner in owners}
    for owner in owners:
        if owner.startswith("anonymous:"):
            address = owner.removeprefix("anonymous:")
            names[owner] = (
                gettext("anonymous ({address})").format(address=address) if address else gettext("anonymous")
            )
    pks = {owner.removeprefix("user:") for owner in owners if owner.startswith("user:")}
    if not pks or not apps.is_installed("django.contrib.auth"):
        return names
    model = get_user_model()
    found = {
        str(user.pk): user.get_username()
        for user in model._default_manager.filter(pk__in=_valid_pks(model, pks))
    }
    for pk in pks:
        names[f"user:{pk}"] = found.get(pk) or gettext("user:{pk} (deleted)").format(pk=pk)
    return names


def _valid_pks(model: Any, pks: set[str]) -> list[Any]:
    """Return the ``pks`` the user model's primary key accepts (others match nobody)."""
    field = model._meta.pk
    valid = []
    for pk in pks:
        try:
            valid.append(field.to_python(pk))
        except Exception:  # noqa: BLE001, S112 - a malformed stored owner matches no user
            continue
    return valid


class StuckFilter(admin.SimpleListFilter):
    """Filter working tasks whose worker is gone, or that no worker takes."""

    title = _("stuck")
    parameter_name = "stuck"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        """Offer the two kinds of stuck task."""
        return [
            ("lapsed", gettext("Lease lapsed (worker gone)")),
            (
                "queued",
                gettext("Queued over {minutes} minutes").format(
                    minutes=int(STUCK_QUEUED.total_seconds() // 60)
                ),
            ),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[McpTask]) -> QuerySet[McpTask]:
        """Keep only the chosen kind of stuck task."""
        now = timezone.now()
        working = queryset.filter(status=McpTask.Status.WORKING)
        if self.value() == "lapsed":
            return working.filter(lease_expires_at__lte=now)
        if self.value() == "queued":
            return working.filter(running=False, updated_at__lte=now - STUCK_QUEUED)
        return queryset


class McpTaskAdmin(DenyFraming, _ModelAdmin):
    """List and inspect MCP tasks; nothing is edited here."""

    list_display = ("short_id", "tool", "status", "status_message", "owner_name", "age", "lease", "runs")
    list_filter = ("status", StuckFilter, "tool")
    search_fields = ("id", "tool", "owner", "client", "job_id")
    ordering = ("-created_at",)
    date_hierarchy = "created_at"
    list_per_page = 50

    def get_readonly_fields(self, request: HttpRequest, obj: McpTask | None = None) -> list[str]:
        """Show every field read-only, the lease in words too."""
        return [field.name for field in McpTask._meta.fields] + ["owner_name", "lease"]

    def get_changelist_instance(self, request: HttpRequest) -> ChangeList:
        """Return the change list, its page's owners looked up in one query."""
        changelist = super().get_changelist_instance(request)
        tasks = list(changelist.result_list)
        names = owner_names(task.owner for task in tasks)
        for task in tasks:
            task._owner_name = names[task.owner]
        return changelist

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Return False: tasks are created by ``tools/call``."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: McpTask | None = None) -> bool:
        """Return False: tasks change only through their run and their client."""
        return False

    @admin.display(description=_("task id"))
    def short_id(self, task: McpTask) -> str:
        """Return the first characters of the task id."""
        return f"{task.pk[:12]}…"

    @admin.display(description=_("owner"), ordering="owner")
    def owner_name(self, task: McpTask) -> str:
        """Return who owns the task, as a user name (``owner_names``)."""
        known = getattr(task, "_owner_name", None)
        return known if isinstance(known, str) else owner_names([task.owner])[task.owner]

    @admin.display(description=_("age"), ordering="created_at")
    def age(self, task: McpTask) -> str:
        """Return how long ago the task was created."""
        return timesince(task.created_at)

    @admin.display(description=_("lease"))
    def lease(self, task: McpTask) -> str:
        """Return the lease state (``lease_state``)."""
        return lease_state(task)
