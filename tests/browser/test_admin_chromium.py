"""The admin catalog page in a real browser: headless Chromium via Playwright.

Chromium is Debian's package (``apt-get install -y chromium``, at
``/usr/bin/chromium``; ``CHROMIUM_PATH`` overrides); Playwright is the PyPI
package driving it. ``playwright install`` is never needed. Without either
the test is skipped, except when the ``CI`` environment variable is set,
where a missing browser is a failure. The page is served by pytest-django's
``live_server`` (a threaded WSGI server), so the test uses
``transactional_db`` for the staff user to be visible to it. A screenshot
is saved to ``artifacts/admin-catalog.png``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import path

from django_mcp.admin import mcp_catalog_view
from django_mcp.registry import registry
from testproject.conformance.mcp import ConformanceServer

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "artifacts" / "admin-catalog.png"
# Flags for a sandboxed, offline machine: no background connections that a
# closed network would refuse, no GPU, no first-run UI.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 15_000

urlpatterns = [
    path("admin/mcp/", mcp_catalog_view(), name="mcp-catalog"),
    path("admin/", admin.site.urls),
]

pytestmark = pytest.mark.urls(__name__)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must provide it (this module's docstring says how)")
    pytest.skip(reason)


@pytest.fixture
def chromium_path() -> str:
    if sync_playwright is None:
        _unavailable("playwright is not installed (pip install playwright)")
    candidate = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(candidate, os.X_OK):
        _unavailable(f"Chromium not found at {candidate} (apt-get install -y chromium)")
    return candidate


@pytest.fixture
def conformance_registered() -> Iterator[None]:
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    registry.web("conformance", ConformanceServer)
    try:
        yield
    finally:
        registry.restore(saved)


def test_staff_logs_in_and_sees_the_catalog(
    chromium_path: str, conformance_registered: None, live_server: Any, transactional_db: None
) -> None:
    # Create the user before Playwright starts: its sync API runs an event
    # loop on this thread, where Django refuses ORM calls.
    get_user_model().objects.create_user(username="admin", password="s3cret-pass", is_staff=True)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path, args=CHROMIUM_ARGS, timeout=60_000
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(TIMEOUT_MS)

            page.goto(f"{live_server.url}/admin/mcp/")
            assert "/admin/login/" in page.url
            page.fill("#id_username", "admin")
            page.fill("#id_password", "s3cret-pass")
            page.click("input[type=submit]")
            page.wait_for_url(f"{live_server.url}/admin/mcp/")

            assert page.title() == "MCP catalog | Django site admin"
            row = page.locator("tr#tool-test_simple_text")
            row.wait_for(state="visible")
            assert row.locator(".mcp-name").inner_text() == "test_simple_text"
            assert "Returns a simple text response." in row.inner_text()
            schema = row.locator("pre.mcp-input-schema")
            assert not schema.is_visible()
            row.locator("summary", has_text="Input schema").click()
            schema.wait_for(state="visible")
            assert '"type": "object"' in schema.inner_text()
            assert page.locator("tr.mcp-tool").count() == len(ConformanceServer.compiled().tools)

            page.screenshot(path=str(SCREENSHOT), full_page=True)
        finally:
            browser.close()
    assert SCREENSHOT.stat().st_size > 0
