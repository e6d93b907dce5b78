"""The admin's MCP section in a real browser: headless Chromium via Playwright.

Chromium is Debian's package (``apt-get install -y chromium``, at
``/usr/bin/chromium``; ``CHROMIUM_PATH`` overrides); Playwright is the PyPI
package driving it. ``playwright install`` is never needed. Without either
the tests are skipped, except when the ``CI`` environment variable is set,
where a missing browser is a failure.

Three servers are driven:

* the demo project under uvicorn with ``testproject/asgi.py`` (as the docs
  tell projects to serve it, static files included), plus the playground
  fixture app (``tests/browser/playground_site``), with its own SQLite
  database and users made by ``manage.py shell``: the catalog, the
  playground (a form, an elicitation round, refused calls, a destructive
  tool, completion, every content type, a task polled until it ends and
  one cancelled, run by the server's own thread pool);
* a fresh ``django-admin startproject`` site whose only changes are
  ``INSTALLED_APPS += ["django_mcp", ...]``, ``include("django_mcp.urls")``
  and one app with an ``mcp.py``, under ``runserver``: the MCP section is
  in its admin index and a staff user calls a tool from it;
* pytest-django's ``live_server`` (a threaded WSGI server, so that test
  uses ``transactional_db``) for the older one-page catalog of
  ``mcp_catalog_view()``.

Screenshots are saved to ``artifacts/django-<major>.<minor>/`` (git-ignored),
one folder per Django line that ran the suite: ``.ci/run`` fills
``django-5.2`` and ``django-6.1`` (or the newest 6.x), with every page of
the MCP section (``test_every_mcp_admin_page_looks_native``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import django
import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.urls import path

from django_mcp.admin import mcp_catalog_view
from django_mcp.registry import registry
from testproject.conformance.mcp import ConformanceServer
from tests.conftest import _free_port, uvicorn_command
from tests.databases import database_env

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None

ROOT = Path(__file__).resolve().parents[2]
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


# ------------------------------------------------- the section under uvicorn

PASSWORD = "s3cret-pass"
#: Screenshots of this Django line, apart from the other line's.
ARTIFACTS = ROOT / "artifacts" / f"django-{django.VERSION[0]}.{django.VERSION[1]}"
PLAYGROUND = "tests.playground.PlaygroundServer"
SECTION = "/admin/django_mcp/mcpcatalog/"
#: Made with ``manage.py shell -c`` in the server's own database.
USERS = f"""
from django.contrib.auth.models import Permission, User

def make(name, *perms):
    user = User.objects.create_user(name, password={PASSWORD!r}, is_staff=True)
    for perm in perms:
        app_label, codename = perm.split(".")
        found = Permission.objects.get(content_type__app_label=app_label, codename=codename)
        user.user_permissions.add(found)

make("player", "django_mcp.use_playground", "auth.change_user")
make("viewer")
make("auditor", "django_mcp.view_mcpauditentry")

from django.utils import timezone
from django_mcp.models import McpAuditEntry

for outcome, code in [("ok", None), ("tool_error", None), ("error", -32602), ("input_required", None)] * 3:
    McpAuditEntry.objects.create(
        created_at=timezone.now(),
        server="tests.browser.playground_site.mcp.PlaygroundServer",
        method="tools/call",
        component="wipe-notes",
        user_pk="1",
        username="player",
        client="user:1",
        outcome=outcome,
        error_code=code,
        duration=0.0123,
    )
"""


def _run(command: list[str], *, env: dict[str, str], cwd: Path = ROOT) -> None:
    done = subprocess.run(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def site_url(
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """Serve the demo project plus the playground app under uvicorn; return its URL."""
    folder = tmp_path_factory.mktemp("playground-site")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.browser.playground_site.settings",
        **database_env(folder / "db.sqlite3"),
    }
    manage = [sys.executable, "testproject/manage.py"]
    _run([*manage, "migrate", "--noinput", "-v", "0"], env=env)
    _run([*manage, "shell", "-c", USERS], env=env)
    port = _free_port()
    with start_server(uvicorn_command(port), port=port, log_path=folder / "uvicorn.log", env=env):
        yield f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def _page(chromium_path: str, *, locale: str = "en-US") -> Iterator[Any]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path, args=CHROMIUM_ARGS, timeout=60_000
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900}, locale=locale)
            page.set_default_timeout(TIMEOUT_MS)
            yield page
        finally:
            browser.close()


def _log_in(page: Any, base: str, username: str, path: str = "/admin/") -> None:
    page.goto(f"{base}/admin/login/?next={path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}{path}")


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / name
    page.screenshot(path=str(target), full_page=True)
    assert target.stat().st_size > 0


def _component(kind: str, key: str) -> str:
    return f"{SECTION}{quote(f'{PLAYGROUND}~{kind}~{key}')}/change/"


def _styled(page: Any) -> None:
    """Assert the admin's and the section's style sheets were served and applied."""
    header = page.evaluate("getComputedStyle(document.querySelector('#header')).backgroundColor")
    assert header not in ("", "rgba(0, 0, 0, 0)", "transparent")
    loaded = page.evaluate(
        "Array.from(document.styleSheets).filter(s => s.href)"
        ".map(s => [s.href.split('/static/')[1], s.cssRules.length])"
    )
    rules = dict(loaded)
    assert rules["admin/css/base.css"] > 0
    assert rules["django_mcp/admin/mcp.css"] > 0


def test_index_links_the_catalog_and_pages_are_styled_under_uvicorn(
    chromium_path: str, site_url: str
) -> None:
    with _page(chromium_path) as page:
        _log_in(page, site_url, "player")
        section = page.locator("#content-main .app-django_mcp")
        assert section.locator("caption").inner_text().strip() == "MCP"
        _shot(page, "mcp-admin-index.png")
        section.get_by_role("link", name="Catalog").click()
        page.wait_for_url(f"{site_url}{SECTION}")
        _styled(page)
        rows = page.locator("tr.mcp-server")
        assert rows.count() == 4  # library, shelf, the playground fixture and the task server
        fixture = rows.filter(has_text="Playground fixture")
        assert "HTTP /mcp/playground" in " ".join(fixture.inner_text().split())
        _shot(page, "mcp-catalog.png")

        fixture.get_by_role("link", name="Playground fixture").click()
        page.get_by_role("link", name="Tools (6)").click()
        page.wait_for_url("**?kind=tool")
        assert page.locator("tr.mcp-component").count() == 6
        page.fill("#searchbar", "notes")
        page.click("#changelist-search input[type=submit]")
        page.wait_for_url("**?q=notes*")
        names = page.locator("tr.mcp-component").evaluate_all("rows => rows.map(r => r.dataset.name)")
        assert names == ["wipe-notes"]
        page.get_by_role("link", name="show all").click()
        page.wait_for_url(lambda url: "q=" not in url)
        page.fill("#id_as", "viewer")
        page.click(".mcp-view-as-form input[type=submit]")
        assert "8 of these 9 components are visible" in page.locator(".mcp-view-as").inner_text()
        hidden = page.locator("tr.mcp-component:has(img[alt=hidden])").evaluate_all(
            "rows => rows.map(r => r.dataset.name)"
        )
        assert hidden == ["secret"]
        _styled(page)
        _shot(page, "mcp-server.png")


#: Every page of the MCP section, as (screenshot name, path).
EVERY_PAGE = (
    ("page-catalog", SECTION),
    ("page-server", f"{SECTION}server/{quote(PLAYGROUND)}/"),
    ("page-tool", _component("tool", "echo")),
    ("page-resource", _component("resource", "notes://readme")),
    ("page-template", _component("template", "notes://{topic}")),
    ("page-prompt", _component("prompt", "haiku")),
    ("page-history", _component("tool", "echo").replace("/change/", "/history/")),
)


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not displayed"
    return dict(box)


def _native(page: Any, *, ours: bool = True) -> None:
    """Assert what the admin's own style sheets must have styled."""
    if not ours:  # the admin's own index: no breadcrumbs, no section style sheet
        header = page.evaluate("getComputedStyle(document.querySelector('#header')).backgroundColor")
        assert header not in ("", "rgba(0, 0, 0, 0)", "transparent")
        return
    _styled(page)
    crumbs = page.locator(".breadcrumbs")
    assert crumbs.count() == 1
    # Django 6.1 styles only <ol class="breadcrumbs">, 5.2 only the <div>:
    # unstyled breadcrumbs have no background.
    background = crumbs.evaluate("e => getComputedStyle(e).backgroundColor")
    assert background not in ("", "rgba(0, 0, 0, 0)", "transparent")
    items = page.locator("ol.breadcrumbs li")
    if items.count():  # a list: its items sit on one line, like the admin's own
        tops = {round(box["y"]) for box in items.evaluate_all("l => l.map(e => e.getBoundingClientRect())")}
        assert len(tops) == 1


def test_every_mcp_admin_page_looks_native(chromium_path: str, site_url: str) -> None:
    with _page(chromium_path) as page:
        _log_in(page, site_url, "player")
        _native(page, ours=False)
        _shot(page, "page-admin-index.png")
        for name, path in EVERY_PAGE:
            page.goto(f"{site_url}{path}")
            assert page.locator("#content h1").count() == 1, name
            _native(page)
            _shot(page, f"{name}.png")

        # The History button is beside the title, not under it.
        page.goto(f"{site_url}{_component('tool', 'echo')}")
        title, history = _box(page, "#content h1"), _box(page, "a.historylink")
        assert history["x"] > title["x"] + title["width"] / 2
        assert history["y"] < title["y"] + title["height"]
        assert history["y"] + history["height"] > title["y"]
        # Help text lines up with the field it describes.
        help_text, field = _box(page, "#id_arg-text_helptext"), _box(page, "#id_arg-text")
        assert abs(help_text["x"] - field["x"]) <= 12
        # The server page's filter is beside the results, not under them.
        page.goto(f"{site_url}{EVERY_PAGE[1][1]}")
        results, sidebar = _box(page, "#result_list"), _box(page, "#changelist-filter")
        assert sidebar["x"] > results["x"] + results["width"] - 1
        assert sidebar["y"] < results["y"] + results["height"]


def test_playground_calls_a_tool_with_a_form(chromium_path: str, site_url: str) -> None:
    with _page(chromium_path) as page:
        _log_in(page, site_url, "player", _component("tool", "echo"))
        _styled(page)
        page.fill("#id_arg-text", "hi")
        page.fill("#id_arg-times", "2")
        page.select_option("#id_arg-loud", "true")
        page.select_option("#id_arg-colour", label="blue")
        page.fill("#id_arg-tags", "red\nwhite")
        page.click("input.mcp-send")
        result = page.locator("#mcp-result")
        result.wait_for()
        events = result.locator("li.mcp-event").all_inner_texts()
        assert [" ".join(e.split()) for e in events] == [
            "Progress 1/2 Reading the arguments",
            "info echoing 2 time(s)",
            "Progress 2/2 Echoing",
        ]
        structured = json.loads(result.locator("pre.mcp-structured").inner_text())
        assert structured == {"echo": "HI HI", "colour": "blue", "tags": ["red", "white"]}
        # The form keeps the values sent.
        assert page.input_value("#id_arg-times") == "2"
        _shot(page, "mcp-playground-tool.png")


def test_playground_answers_an_elicitation_round(chromium_path: str, site_url: str) -> None:
    with _page(chromium_path) as page:
        _log_in(page, site_url, "player", _component("tool", "greet"))
        page.click("input.mcp-send")
        form = page.locator("#mcp-inputs-form")
        form.wait_for()
        assert form.locator(".mcp-input-message").inner_text() == "Who is there?"
        page.fill("#id_input-who-name", "Ada")
        page.select_option("#id_input-who-tone", label="dry")
        page.check("#id_input-who-formal")
        _shot(page, "mcp-playground-elicitation.png")
        form.locator("input[type=submit]").click()
        page.locator("#mcp-result pre.mcp-text").wait_for()
        assert page.locator("#mcp-result pre.mcp-text").inner_text() == "Good day, Ada! (dry)"
        sent = json.loads(page.locator("pre.mcp-request").text_content() or "")
        assert sent["params"]["inputResponses"] == {
            "who": {"action": "accept", "content": {"name": "Ada", "tone": "dry", "formal": True}}
        }
        _shot(page, "mcp-playground-elicitation-answered.png")


def test_playground_shows_refused_calls(chromium_path: str, site_url: str) -> None:
    with _page(chromium_path) as page:
        # A tool the user may not see answers like an unknown one.
        _log_in(page, site_url, "player", _component("tool", "secret"))
        assert "no: it is hidden" in page.locator(".mcp-visible-to-you").inner_text()
        page.click("input.mcp-send")
        error = page.locator(".mcp-rpc-error")
        error.wait_for()
        assert " ".join(error.inner_text().split()) == "JSON-RPC error -32602: Unknown tool: secret"

        # Arguments the schema refuses, typed in the raw JSON editor: isError.
        page.goto(f"{site_url}{_component('tool', 'echo')}")
        page.locator("details.mcp-raw summary").click()
        page.fill("#id_raw_arguments", '{"text": "x", "times": 9}')
        page.click("input.mcp-send-json")
        page.locator(".mcp-is-error").wait_for()
        assert "Invalid tool arguments" in page.locator("#mcp-result pre.mcp-text").inner_text()
        assert page.locator("#mcp-result.mcp-failed").count() == 1
        _shot(page, "mcp-playground-refused.png")


def test_playground_confirms_destructive_tools_and_completes_arguments(
    chromium_path: str, site_url: str
) -> None:
    with _page(chromium_path) as page:
        _log_in(page, site_url, "player", _component("tool", "wipe-notes"))
        page.click("input.mcp-send")
        confirm = page.locator("#mcp-confirm-form")
        confirm.wait_for()
        assert "destructive" in confirm.inner_text()
        assert page.locator("#mcp-result").count() == 0
        confirm.locator("input[type=submit]").click()
        page.locator("#mcp-result pre.mcp-text").wait_for()
        assert page.locator("#mcp-result pre.mcp-text").inner_text() == "All notes wiped."

        page.goto(f"{site_url}{_component('prompt', 'haiku')}")
        page.locator("#id_arg-subject").press_sequentially("r")
        page.wait_for_function("document.querySelector('#id_arg-subject').dataset.suggestions === '2'")
        options = page.locator("#id_arg-subject-options option").evaluate_all("o => o.map(x => x.value)")
        assert options == ["rain", "river"]
        page.fill("#id_arg-subject", "river")
        page.click("input.mcp-send")
        page.locator(".mcp-message").wait_for()
        assert "Write a calm haiku about river." in page.locator(".mcp-message").inner_text()
        _shot(page, "mcp-playground-prompt.png")

        page.goto(f"{site_url}{_component('tool', 'media')}")
        page.click("input.mcp-send")
        image = page.locator("#mcp-result img.mcp-image")
        image.wait_for()
        assert image.evaluate("img => img.complete && img.naturalWidth") == 1
        assert page.locator("#mcp-result audio.mcp-audio").count() == 1
        _shot(page, "mcp-playground-media.png")


def test_staff_without_the_permission_see_no_playground(chromium_path: str, site_url: str) -> None:
    with _page(chromium_path) as page:
        _log_in(page, site_url, "viewer", _component("tool", "echo"))
        assert page.locator("#mcp-playground-form").count() == 0
        assert (
            "needs the “django_mcp.use_playground” permission"
            in page.locator(".mcp-no-playground").inner_text()
        )


# --------------------------------------------- a fresh startproject site

SHOP_MCP = '''
import django_mcp
from django_mcp import McpResponse, Server, Tool
from django_mcp.schemas import Schema


class OrderInput(Schema):
    order_id: int


class OrderStatusTool(Tool[OrderInput]):
    """Tell the status of an order."""

    async def handle(self, payload: OrderInput) -> McpResponse:
        return McpResponse.structured({"order_id": payload.order_id, "status": "ready"})


class ShopServer(Server):
    name = "shop"
    tools = (OrderStatusTool,)


django_mcp.web("shop", ShopServer)
'''
STAFF = f"""
from django.contrib.auth.models import Permission, User

user = User.objects.create_user("clerk", password={PASSWORD!r}, is_staff=True)
user.user_permissions.add(Permission.objects.get(codename="use_playground"))
"""


def test_fresh_startproject_site_shows_the_section_and_calls_a_tool(
    chromium_path: str,
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    tmp_path: Path,
) -> None:
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    _run([sys.executable, "-m", "django", "startproject", "mysite", str(tmp_path)], env=env)
    settings_py = tmp_path / "mysite" / "settings.py"
    settings_py.write_text(settings_py.read_text() + '\nINSTALLED_APPS += ["django_mcp", "shop"]\n')
    urls_py = tmp_path / "mysite" / "urls.py"
    urls = urls_py.read_text()
    assert "from django.urls import path" in urls and "admin.site.urls)," in urls
    urls = urls.replace("from django.urls import path", "from django.urls import include, path")
    urls = urls.replace(
        "admin.site.urls),", 'admin.site.urls),\n    path("mcp/", include("django_mcp.urls")),'
    )
    urls_py.write_text(urls)
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "mcp.py").write_text(SHOP_MCP)
    manage = [sys.executable, str(tmp_path / "manage.py")]
    _run([*manage, "migrate", "--noinput", "-v", "0"], env=env, cwd=tmp_path)
    _run([*manage, "shell", "-c", STAFF], env=env, cwd=tmp_path)
    port = _free_port()
    command = [*manage, "runserver", f"127.0.0.1:{port}", "--noreload"]
    with (
        start_server(command, port=port, log_path=tmp_path / "runserver.log", env=env),
        _page(chromium_path) as page,
    ):
        base = f"http://127.0.0.1:{port}"
        _log_in(page, base, "clerk")
        page.locator(".app-django_mcp").get_by_role("link", name="Catalog").click()
        page.wait_for_url(f"{base}{SECTION}")
        _styled(page)
        assert "HTTP /mcp/shop" in " ".join(page.locator("tr.mcp-server").inner_text().split())
        page.get_by_role("link", name="shop").first.click()
        page.get_by_role("link", name="order-status").click()
        page.fill("#id_arg-order_id", "42")
        page.click("input.mcp-send")
        structured = page.locator("pre.mcp-structured")
        structured.wait_for()
        assert json.loads(structured.inner_text()) == {"order_id": 42, "status": "ready"}
        _shot(page, "mcp-fresh-site-tool-call.png")
        page.goto(f"{base}/admin/")
        assert page.locator(".app-django_mcp caption").inner_text().strip() == "MCP"
        recent = page.locator("#recent-actions-module").inner_text()
        assert "Tool order-status" in recent
        _shot(page, "mcp-fresh-site-index.png")

    # Under uvicorn, with the asgi.py docs/admin.md gives, the pages are styled too.
    (tmp_path / "mysite" / "asgi.py").write_text(_documented_asgi_py())
    port = _free_port()
    command = [
        *(sys.executable, "-m", "uvicorn", "--app-dir", str(tmp_path), "mysite.asgi:application"),
        *("--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"),
    ]
    with (
        start_server(command, port=port, log_path=tmp_path / "uvicorn.log", env=env),
        _page(chromium_path) as page,
    ):
        base = f"http://127.0.0.1:{port}"
        _log_in(page, base, "clerk", SECTION)
        _styled(page)
        page.get_by_role("link", name="shop").first.click()
        page.get_by_role("link", name="order-status").click()
        page.locator("#mcp-playground-form").wait_for()
        _styled(page)


def _documented_asgi_py() -> str:
    """Return the ``mysite/asgi.py`` that docs/admin.md shows."""
    text = (ROOT / "docs" / "admin.md").read_text(encoding="utf-8")
    start = text.index("```python\n# mysite/asgi.py\n") + len("```python\n")
    return text[start : text.index("```", start)]


# ------------------------------------------- the older one-page catalog


def test_staff_logs_in_and_sees_the_one_page_catalog(
    chromium_path: str, conformance_registered: None, live_server: Any, transactional_db: None
) -> None:
    # Create the user before Playwright starts: its sync API runs an event
    # loop on this thread, where Django refuses ORM calls.
    get_user_model().objects.create_user(username="admin", password=PASSWORD, is_staff=True)

    with _page(chromium_path) as page:
        _log_in(page, live_server.url, "admin", "/admin/mcp/")

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
        _shot(page, "admin-catalog.png")


def _task_tool(name: str) -> str:
    return f"{SECTION}{quote(f'tests.browser.playground_site.mcp.TaskServer~tool~{name}')}/change/"


def test_playground_follows_a_task_until_it_ends(chromium_path: str, site_url: str) -> None:
    # The site has no TASKS setting: the task runs in the server's own thread pool.
    with _page(chromium_path) as page:
        _log_in(page, site_url, "player", _task_tool("slow_compute"))
        page.fill("#id_arg-seconds", "2")
        page.fill("#id_arg-label", "browser")
        page.click("input.mcp-send")
        panel = page.locator("#mcp-task")
        panel.wait_for()
        assert panel.get_attribute("data-poll-ms") == "1000"
        _shot(page, "mcp-playground-task-working.png")
        # playground.js polls the panel at pollIntervalMs until the task ends.
        page.locator("#mcp-task.mcp-task-completed").wait_for()
        assert page.locator("#mcp-task pre.mcp-text").inner_text() == "Computed browser in 2 s"
        assert page.locator("#mcp-task-cancel-form").count() == 0
        _shot(page, "mcp-playground-task-completed.png")


def test_playground_cancels_a_running_task(chromium_path: str, site_url: str) -> None:
    with _page(chromium_path) as page:
        _log_in(page, site_url, "player", _task_tool("slow_compute"))
        page.fill("#id_arg-seconds", "60")
        page.click("input.mcp-send")
        page.locator("#mcp-task").wait_for()
        page.locator("#mcp-task-cancel-form input[type=submit]").click()
        page.locator("#mcp-task.mcp-task-cancelled").wait_for()
        assert page.locator("#mcp-task .mcp-task-status").inner_text() == "cancelled"


def test_the_audit_list_fits_beside_the_filters_at_1280_px(chromium_path: str, site_url: str) -> None:
    with _page(chromium_path) as page:
        _log_in(page, site_url, "auditor")
        page.goto(f"{site_url}/admin/django_mcp/mcpauditentry/")
        _shot(page, "audit-entries.png")
        table, results = _box(page, "#result_list"), _box(page, ".results")
        sidebar = _box(page, "#changelist-filter")
        outcomes = page.locator("#result_list td.field-outcome_code").evaluate_all(
            "cells => cells.map(c => [c.getBoundingClientRect().right, c.innerText, 1])"
        )

    assert (
        table["x"] + table["width"] <= results["x"] + results["width"] + 2
    )  # nothing scrolled out of sight (borders)
    assert table["x"] + table["width"] <= sidebar["x"]
    assert sorted({text for _right, text, _lines in outcomes}) == [
        "error -32602",
        "input required",
        "ok",
        "tool error",
    ]
    assert all(right <= results["x"] + results["width"] + 2 for right, _text, _lines in outcomes)


def test_the_catalog_and_a_playground_result_in_spanish(chromium_path: str, site_url: str) -> None:
    with _page(chromium_path, locale="es-ES") as page:  # Accept-Language: es-ES
        _log_in(page, site_url, "player", SECTION)
        _styled(page)
        assert page.locator("#content h1").inner_text().strip() == "Catálogo MCP"
        summary = " ".join(page.locator("#content-main p.mcp-meta").first.inner_text().split())
        assert summary.startswith("4 servidores,")
        assert "Abra un componente para probarlo en el banco de pruebas." in summary
        headers = page.locator("#result_list thead th").all_inner_texts()
        assert [text.strip().lower() for text in headers[:3]] == ["servidor", "versión", "montado en"]
        _shot(page, "es-catalog.png")

        page.goto(f"{site_url}{_component('tool', 'fail')}")
        assert (
            page.locator("#mcp-playground h2")
            .inner_text()
            .startswith("Banco de pruebas: tools/call como player")
        )
        page.click("input.mcp-send")
        result = page.locator("#mcp-result")
        result.wait_for()
        assert result.locator("h2").first.inner_text().strip() == "Resultado"
        assert "La herramienta informó de un error (isError: true)." in result.inner_text()
        assert "It went wrong on purpose." in result.inner_text()  # the server's own words
        _shot(page, "es-playground-result.png")
