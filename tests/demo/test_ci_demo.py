"""``bash .ci/demo`` serves every URL it prints, with only the demo extra installed.

The script runs as a newcomer runs it, in this test's virtual environment
(``VENV``), on a free port, with its own SQLite file and password file. A
``sitecustomize`` module put first on ``PYTHONPATH`` hides every installed
distribution outside ``django-mcp-toolkit[demo]`` and its requirements
(pytest, mcp, the test extra...), so a server that needs a package the demo
extra does not bring fails here as it would on a fresh clone. Then:

* every MCP URL the script prints is used with the official Python SDK
  client (``mcp``), on both protocol eras, including a raw JSON Schema tool
  of the conformance fixture and the library's elicitation tool;
* the STDIO command it prints is run by the SDK's stdio client;
* the admin URLs answer over HTTP, and the printed credentials sign in.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import re
import shlex
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import StdioServerParameters, stdio_client
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import _free_port
from tests.wire import modern_headers, modern_request

ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTION = "django-mcp-toolkit"
#: Seconds for the script to install nothing, migrate, seed and listen.
READY_TIMEOUT = 120
#: Seconds any one client exchange may take.
TIMEOUT = 30
CONNECT_MODE = {"2026-07-28": "auto", "2025-11-25": "legacy"}

#: Put first on sys.path: hides the distributions not in ALLOWED.
SITECUSTOMIZE = """
import importlib.machinery
import importlib.metadata
import os
import re
import sys

_ALLOWED = set(os.environ["DEMO_ALLOWED_DISTRIBUTIONS"].split(","))
_OWNERS = importlib.metadata.packages_distributions()


def _hidden(name):
    owners = _OWNERS.get(name)
    return bool(owners) and not any(re.sub(r"[-_.]+", "-", o).lower() in _ALLOWED for o in owners)


class HidingPathFinder(importlib.machinery.PathFinder):
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if path is None and _hidden(fullname):
            return None
        return super().find_spec(fullname, path, target)


sys.meta_path[:] = [
    HidingPathFinder if finder is importlib.machinery.PathFinder else finder for finder in sys.meta_path
]
"""


def _requirements(name: str, extras: frozenset[str]) -> Iterator[tuple[str, frozenset[str]]]:
    for line in importlib.metadata.distribution(name).requires or []:
        requirement = Requirement(line)
        wanted = requirement.marker is None or any(
            requirement.marker.evaluate({"extra": extra}) for extra in (extras or {""})
        )
        if wanted:
            yield requirement.name, frozenset(requirement.extras)


def demo_distributions() -> set[str]:
    """Return the canonical names of ``django-mcp-toolkit[demo]`` and all it requires."""
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [(DISTRIBUTION, frozenset({"demo"}))]
    while todo:
        name, extras = todo.pop()
        key = (canonicalize_name(name), extras)
        if key not in seen:
            seen.add(key)
            todo.extend(_requirements(name, extras))
    return {name for name, _ in seen}


@dataclass(frozen=True)
class Demo:
    """What ``.ci/demo`` printed, and the environment it runs in."""

    urls: dict[str, str]
    username: str
    password: str
    stdio: list[str]
    env: dict[str, str]


def _printed(output: str) -> tuple[dict[str, str], str, str, list[str]]:
    urls = dict(re.findall(r"^  (\S.*?\S)\s{2,}(http://\S+)$", output, re.MULTILINE))
    credentials = re.search(r"demo superuser: (\S+) / (\S+) ", output)
    stdio = re.search(r"^  The same server over STDIO\s{2,}(.+)$", output, re.MULTILINE)
    assert credentials is not None and stdio is not None, output
    return urls, credentials[1], credentials[2], shlex.split(stdio[1])


@pytest.fixture(scope="module")
def demo(
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Demo]:
    """Run ``bash .ci/demo`` with only the demo extra importable; return what it printed."""
    folder = tmp_path_factory.mktemp("ci-demo")
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    port = _free_port()
    env = {
        **os.environ,
        "VENV": sys.prefix,
        "PORT": str(port),
        "DJANGO_MCP_DB": str(folder / "demo.sqlite3"),
        "DEMO_PASSWORD_FILE": str(folder / "password"),
        "DEMO_ALLOWED_DISTRIBUTIONS": ",".join(sorted(demo_distributions())),
        "PYTHONPATH": str(folder),
    }
    # The demo runs on SQLite, its embedded default, whatever database the suite runs on.
    env.pop("DJANGO_MCP_PG_NAME", None)
    log = folder / "demo.log"
    with start_server(["bash", ".ci/demo"], port=port, log_path=log, env=env, ready_timeout=READY_TIMEOUT):
        urls, username, password, stdio = _printed(log.read_text(encoding="utf-8"))
        yield Demo(urls=urls, username=username, password=password, stdio=stdio, env=env)


def test_the_demo_runs_without_the_test_only_packages(demo: Demo) -> None:
    allowed = set(demo.env["DEMO_ALLOWED_DISTRIBUTIONS"].split(","))
    probe = "import importlib.util as u; print(*map(u.find_spec, ['mcp', 'pytest', 'jsonschema']))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=demo.env, capture_output=True, text=True, timeout=60
    )

    assert {"django", "uvicorn", "jsonschema"} <= allowed
    # Tasks run in the server's own thread pool: the demo needs no Tasks framework.
    assert not {"mcp", "pytest", "playwright", "django-tasks"} & allowed
    hidden_mcp, hidden_pytest, jsonschema = done.stdout.split(" ", 2)
    assert (hidden_mcp, hidden_pytest) == ("None", "None")
    assert jsonschema.startswith("ModuleSpec")


def test_the_demo_prints_its_endpoints_and_admin(demo: Demo) -> None:
    base = f"http://127.0.0.1:{demo.env['PORT']}"
    assert demo.urls == {
        "MCP endpoint of the demo library": f"{base}/mcp/library",
        "MCP endpoint of the demo shelf": f"{base}/mcp/shelf",
        "Conformance fixture endpoint": f"{base}/conformance/mcp",
        "Admin": f"{base}/admin/",
        "MCP catalog and playground": f"{base}/admin/django_mcp/mcpcatalog/",
    }


async def _answer_the_form(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada", "branch": "Riverside"})


@pytest.mark.parametrize("era", list(CONNECT_MODE))
async def test_the_library_endpoint_serves_the_sdk_client(demo: Demo, era: str) -> None:
    url = demo.urls["MCP endpoint of the demo library"]
    with anyio.fail_after(TIMEOUT):
        async with Client(
            url, mode=CONNECT_MODE[era], read_timeout_seconds=TIMEOUT, elicitation_callback=_answer_the_form
        ) as client:
            assert client.protocol_version == era
            tools = [tool.name for tool in (await client.list_tools()).tools]
            found = await client.call_tool("search-books", {"query": "earthsea"})
            reserved = await client.call_tool("reserve-book", {"isbn": "9780547773742"})
            audit = await client.call_tool("audit-stock", {})
            catalog = await client.read_resource("library://catalog")

    assert {"search-books", "book-details", "restock-report", "reserve-book", "audit-stock"} <= set(tools)
    assert found.is_error is False
    assert found.structured_content is not None
    assert [book["title"] for book in found.structured_content["books"]] == ["A Wizard of Earthsea"]
    assert reserved.is_error is False
    assert reserved.structured_content == {
        "isbn": "9780547773742",
        "title": "A Wizard of Earthsea",
        "name": "Ada",
        "branch": "Riverside",
    }
    assert audit.is_error is False
    assert audit.structured_content is not None and audit.structured_content["books"] > 0
    assert len(catalog.contents) == 1


@pytest.mark.parametrize("era", list(CONNECT_MODE))
async def test_the_conformance_endpoint_serves_the_sdk_client(demo: Demo, era: str) -> None:
    url = demo.urls["Conformance fixture endpoint"]
    with anyio.fail_after(TIMEOUT):
        async with Client(url, mode=CONNECT_MODE[era], read_timeout_seconds=TIMEOUT) as client:
            assert client.protocol_version == era
            tools = [tool.name for tool in (await client.list_tools()).tools]
            simple = await client.call_tool("test_simple_text", {})
            # Declared with a raw JSON Schema: validated with jsonschema.
            raw = await client.call_tool("test_x_mcp_header", {"region": "eu-west-1"})

    assert "test_x_mcp_header" in tools
    assert simple.content == [
        types.TextContent(type="text", text="This is a simple text response for testing.")
    ]
    assert raw.is_error is False
    assert raw.content == [types.TextContent(type="text", text="region=eu-west-1")]


async def test_the_printed_stdio_command_serves_the_sdk_client(demo: Demo, tmp_path: Path) -> None:
    command, *args = demo.stdio
    parameters = StdioServerParameters(
        command=str(ROOT / command) if not os.path.isabs(command) else command,
        args=args,
        cwd=ROOT,
        env=demo.env,
    )
    with anyio.fail_after(TIMEOUT), (tmp_path / "stderr.log").open("w", encoding="utf-8") as errlog:
        async with Client(
            stdio_client(parameters, errlog=errlog), mode="auto", read_timeout_seconds=TIMEOUT
        ) as client:
            tools = [tool.name for tool in (await client.list_tools()).tools]
            found = await client.call_tool("search-books", {"query": "earthsea"})

    assert "reserve-book" in tools
    assert found.is_error is False


def test_the_admin_urls_answer_and_the_printed_credentials_sign_in(demo: Demo) -> None:
    admin, catalog = demo.urls["Admin"], demo.urls["MCP catalog and playground"]
    with httpx.Client(timeout=TIMEOUT) as http:
        assert http.get(admin).status_code == 302  # to the login page
        login = http.get(f"{admin}login/")
        assert login.status_code == 200
        signed_in = http.post(
            f"{admin}login/",
            data={
                "username": demo.username,
                "password": demo.password,
                "csrfmiddlewaretoken": http.cookies["csrftoken"],
                "next": "/admin/",
            },
            headers={"Referer": f"{admin}login/"},
        )
        index = http.get(admin)
        page = http.get(catalog)
        stylesheet = http.get(admin.replace("/admin/", "/static/django_mcp/admin/mcp.css"))

    assert signed_in.status_code == 302
    assert index.status_code == 200 and "app-django_mcp" in index.text
    assert page.status_code == 200
    assert "Demo library" in page.text and "/mcp/library" in page.text
    assert stylesheet.status_code == 200


def test_the_demo_records_calls_in_the_audit_trail(demo: Demo) -> None:
    body = modern_request("server/discover", {})
    with httpx.Client(timeout=TIMEOUT) as http:
        answer = http.post(
            demo.urls["MCP endpoint of the demo library"], json=body, headers=modern_headers(body)
        )
    assert answer.status_code == 200, answer.text

    with contextlib.closing(sqlite3.connect(demo.env["DJANGO_MCP_DB"])) as db:
        (entries,) = db.execute("SELECT COUNT(*) FROM django_mcp_mcpauditentry").fetchone()

    assert entries >= 1  # the admin's "Audit entries" page lists them
