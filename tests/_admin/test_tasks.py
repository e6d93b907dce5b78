"""django_mcp._admin.tasks: how the task list shows a lease and an owner, and what it calls stuck."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.contrib.admin import site
from django.test import RequestFactory
from django.utils import timezone

from django_mcp._admin.tasks import STUCK_QUEUED, StuckFilter, lease_state, owner_names
from django_mcp.models import McpTask

NOW = datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.UTC)


def task(**fields: Any) -> McpTask:
    values: dict[str, Any] = {
        "id": "t-1",
        "server": "shop.mcp.ShopServer",
        "tool": "report",
        "owner": "user:1",
        "created_at": NOW - datetime.timedelta(hours=1),
        "updated_at": NOW - datetime.timedelta(hours=1),
        **fields,
    }
    return McpTask(**values)


def test_a_finished_task_has_no_lease_to_show() -> None:
    assert lease_state(task(status=McpTask.Status.COMPLETED), NOW) == "—"


def test_a_working_task_without_a_lease_is_queued_or_running() -> None:
    assert lease_state(task(), NOW) == "queued, no lease"
    assert lease_state(task(running=True), NOW) == "running, no lease"


def test_a_live_lease_says_who_holds_it_and_until_when() -> None:
    held = task(running=True, lease_holder="web-1:42", lease_expires_at=NOW + datetime.timedelta(seconds=30))

    assert lease_state(held, NOW) == "running by web-1:42, renewed until 12:00:30"  # TIME_ZONE is UTC


def test_a_lapsed_lease_says_since_when() -> None:
    lapsed = task(lease_expires_at=NOW - datetime.timedelta(minutes=5))

    assert lease_state(lapsed, NOW) == "LAPSED 5\xa0minutes ago (queued in process)"


@pytest.mark.django_db
def test_owners_show_as_user_names_anonymous_addresses_or_as_stored(django_user_model: Any) -> None:
    user = django_user_model.objects.create(username="ada")

    names = owner_names(
        [f"user:{user.pk}", "user:999999", "user:not-a-pk", "anonymous:10.0.0.7", "anonymous:", "x"]
    )

    assert names == {
        f"user:{user.pk}": "ada",
        "user:999999": "user:999999 (deleted)",
        "user:not-a-pk": "user:not-a-pk (deleted)",
        "anonymous:10.0.0.7": "anonymous (10.0.0.7)",
        "anonymous:": "anonymous",
        "x": "x",
    }


@pytest.mark.django_db
def test_the_stuck_filter_keeps_lapsed_leases_or_long_queued_tasks() -> None:
    now = timezone.now()
    rows = {
        "lapsed": task(id="lapsed", running=True, lease_expires_at=now - datetime.timedelta(seconds=1)),
        "queued": task(id="queued", updated_at=now - STUCK_QUEUED - datetime.timedelta(seconds=1)),
        "fresh": task(id="fresh", updated_at=now),
        "done": task(
            id="done", status=McpTask.Status.COMPLETED, lease_expires_at=now - datetime.timedelta(hours=1)
        ),
    }
    for row in rows.values():
        row.save()
    request = RequestFactory().get("/")

    def kept(value: str | None) -> list[str]:
        params = {} if value is None else {"stuck": [value]}
        chosen = StuckFilter(request, params, McpTask, site.get_model_admin(McpTask))
        return sorted(chosen.queryset(request, McpTask.objects.all()).values_list("id", flat=True))

    assert kept("lapsed") == ["lapsed"]
    assert kept("queued") == ["queued"]
    assert kept(None) == ["done", "fresh", "lapsed", "queued"]
