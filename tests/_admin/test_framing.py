"""Framing: django_mcp/_admin/framing.py.

Every page of the MCP section (the catalog, a server, a component and its
playground, its history, completion, a task panel, the tasks, the audit
trail, the idempotency keys and the older one-page catalog) answers
``X-Frame-Options: DENY`` in a project without ``XFrameOptionsMiddleware``,
and a project's laxer ``X_FRAME_OPTIONS`` does not weaken it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import path
from django.utils import timezone

from django_mcp.admin import mcp_catalog_view
from django_mcp.models import McpAuditEntry, McpIdempotencyKey, McpTask
from django_mcp.registry import registry
from tests.playground import PlaygroundServer

urlpatterns = [
    path("admin/mcp/", mcp_catalog_view(), name="mcp-catalog"),
    path("admin/", admin.site.urls),
]

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]

CLICKJACKING = "django.middleware.clickjacking.XFrameOptionsMiddleware"
SECTION = "/admin/django_mcp/mcpcatalog/"
PLAYGROUND = "tests.playground.PlaygroundServer"
ECHO = quote(f"{PLAYGROUND}~tool~echo")


@pytest.fixture(autouse=True)
def playground() -> Iterator[None]:
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    registry.web("playground", PlaygroundServer)
    try:
        yield
    finally:
        registry.restore(saved)


@pytest.fixture
def root() -> Client:
    user = get_user_model().objects.create_superuser(username="root", password="pw-123456")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def rows() -> dict[str, Any]:
    """One row of each model the section lists."""
    now = timezone.now()
    task = McpTask.objects.create(
        id="framed-task", server=PLAYGROUND, tool="echo", owner="user:1", created_at=now, updated_at=now
    )
    entry = McpAuditEntry.objects.create(
        created_at=now,
        server=PLAYGROUND,
        method="tools/call",
        component="echo",
        client="anonymous",
        transport="http",
        outcome="ok",
        duration=0.1,
    )
    key = McpIdempotencyKey.objects.create(
        server=PLAYGROUND, caller="user:1", tool="echo", key="k-1", arguments_hash="0" * 64, created_at=now
    )
    return {"task": task.pk, "entry": entry.pk, "key": key.pk}


#: (method, URL, POST data) of every kind of page of the section.
PAGES: list[tuple[str, str, dict[str, str] | None]] = [
    ("get", SECTION, None),
    ("get", f"{SECTION}server/{quote(PLAYGROUND)}/", None),
    ("get", f"{SECTION}{ECHO}/change/", None),
    ("post", f"{SECTION}{ECHO}/change/", {"step": "call", "arg.text": "hi"}),
    ("get", f"{SECTION}{ECHO}/history/", None),
    ("post", f"{SECTION}complete/", {"component": f"{PLAYGROUND}~prompt~haiku", "argument": "subject"}),
    ("get", f"{SECTION}task/unknown-task/{ECHO}/", None),
    ("get", "/admin/django_mcp/mcptask/", None),
    ("get", "/admin/django_mcp/mcptask/{task}/change/", None),
    ("get", "/admin/django_mcp/mcptask/{task}/delete/", None),
    ("get", "/admin/django_mcp/mcptask/{task}/history/", None),
    ("get", "/admin/django_mcp/mcpauditentry/", None),
    ("get", "/admin/django_mcp/mcpauditentry/{entry}/change/", None),
    ("get", "/admin/django_mcp/mcpidempotencykey/", None),
    ("get", "/admin/django_mcp/mcpidempotencykey/{key}/change/", None),
    ("get", "/admin/mcp/", None),
]


@pytest.mark.parametrize(("method", "url", "data"), PAGES, ids=[f"{m} {u}" for m, u, _ in PAGES])
def test_every_page_of_the_section_denies_framing_without_the_middleware(
    root: Client, rows: dict[str, Any], settings: Any, method: str, url: str, data: dict[str, str] | None
) -> None:
    settings.MIDDLEWARE = [name for name in settings.MIDDLEWARE if name != CLICKJACKING]

    response = getattr(root, method)(url.format(**rows), data)

    assert response.status_code == 200
    assert response["X-Frame-Options"] == "DENY"


def test_a_laxer_project_setting_does_not_weaken_the_section(root: Client, settings: Any) -> None:
    settings.X_FRAME_OPTIONS = "SAMEORIGIN"
    assert CLICKJACKING in settings.MIDDLEWARE

    assert root.get(SECTION)["X-Frame-Options"] == "DENY"
    assert root.get("/admin/")["X-Frame-Options"] == "SAMEORIGIN"  # Django's own pages: the project's


def test_the_login_redirect_of_a_section_page_denies_framing_too(settings: Any) -> None:
    settings.MIDDLEWARE = [name for name in settings.MIDDLEWARE if name != CLICKJACKING]

    response = Client().get(SECTION)

    assert (response.status_code, response["X-Frame-Options"]) == (302, "DENY")
