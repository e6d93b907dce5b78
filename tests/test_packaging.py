"""The distribution: ``python -m build`` makes an sdist and a wheel that install and work.

The wheel is built from the sdist (``python -m build``'s default), without
build isolation, so no network is needed: the ``test`` extra brings
``build``, ``twine`` and a setuptools recent enough for the PEP 639
``license`` field. ``twine check --strict`` checks both artifacts' metadata.

The wheel is then installed with ``pip install --no-deps --no-index`` into a
fresh virtual environment. Its dependencies (Django, msgspec, uritemplate)
come from the test environment through a ``.pth`` line naming that
environment's ``site-packages`` (``--system-site-packages`` would name the
base interpreter's instead). Only a path is added that way, never that
environment's own ``.pth`` files, so the editable install of this checkout
stays out and ``django_mcp`` is imported from the wheel. A minimal
``startproject``-style project (``INSTALLED_APPS += ["django_mcp"]``,
``include("django_mcp.urls")``, one ``mcp.py``) then passes
``manage.py check``, lists its server with ``manage.py mcp_catalog`` and
finds the admin's templates and static files in the installed package.
"""

from __future__ import annotations

import email.message
import email.parser
import importlib.util
import os
import site
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Files the admin section needs at run time, besides the Python modules.
DATA_FILES = (
    "django_mcp/py.typed",
    "django_mcp/migrations/0001_initial.py",
    "django_mcp/templates/django_mcp/admin/servers.html",
    "django_mcp/templates/django_mcp/admin/component.html",
    "django_mcp/templates/django_mcp/admin/catalog.html",
    "django_mcp/static/django_mcp/admin/mcp.css",
    "django_mcp/static/django_mcp/admin/playground.js",
    # MCP Apps: the bridge the template tag inlines, the playground's host.
    "django_mcp/templatetags/mcp_apps.py",
    "django_mcp/static/django_mcp/mcp_app_bridge.js",
    "django_mcp/static/django_mcp/admin/app_host.js",
    "django_mcp/templates/django_mcp/admin/_app.html",
    "django_mcp/locale/es/LC_MESSAGES/django.po",
    "django_mcp/locale/es/LC_MESSAGES/django.mo",
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{module} is not installed; the test extra provides it")
        pytest.skip(f"{module} is not installed (pip install -e '.[test]')")


def _run(*command: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, (
        f"{command} exited {done.returncode}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    )
    return done.stdout


PROJECT_FILES = {
    "manage.py": """
        import os
        import sys

        if __name__ == "__main__":
            os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mysite.settings")
            from django.core.management import execute_from_command_line

            execute_from_command_line(sys.argv)
    """,
    "mysite/__init__.py": "",
    "mysite/settings.py": """
        SECRET_KEY = "packaging-test"
        DEBUG = True
        ALLOWED_HOSTS = []
        INSTALLED_APPS = [
            "django.contrib.admin",
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "django.contrib.messages",
            "django.contrib.staticfiles",
        ]
        INSTALLED_APPS += ["django_mcp", "shop"]
        MIDDLEWARE = [
            "django.middleware.security.SecurityMiddleware",
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.common.CommonMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
            "django.contrib.messages.middleware.MessageMiddleware",
        ]
        ROOT_URLCONF = "mysite.urls"
        TEMPLATES = [
            {
                "BACKEND": "django.template.backends.django.DjangoTemplates",
                "APP_DIRS": True,
                "OPTIONS": {
                    "context_processors": [
                        "django.template.context_processors.request",
                        "django.contrib.auth.context_processors.auth",
                        "django.contrib.messages.context_processors.messages",
                    ]
                },
            }
        ]
        DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "db.sqlite3"}}
        STATIC_URL = "static/"
        DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
        USE_TZ = True
    """,
    "mysite/urls.py": """
        from django.contrib import admin
        from django.urls import include, path

        urlpatterns = [
            path("admin/", admin.site.urls),
            path("mcp/", include("django_mcp.urls")),
        ]
    """,
    "shop/__init__.py": "",
    "shop/mcp.py": """
        import django_mcp
        from django_mcp import McpResponse, Server, Tool


        class PingTool(Tool):
            \"\"\"Answer pong.\"\"\"

            def handle(self) -> McpResponse:
                return McpResponse.text("pong")


        class ShopServer(Server):
            name = "shop"
            tools = (PingTool,)


        django_mcp.web("shop", ShopServer)
    """,
}

FIND_FILES = """
import django_mcp
from django.contrib.staticfiles import finders
from django.template.loader import get_template
from django.utils import translation

print(django_mcp.__file__)
print(get_template("django_mcp/admin/component.html").origin.name)
print(finders.find("django_mcp/admin/mcp.css"))
with translation.override("es"):
    print(translation.gettext("MCP catalog").replace(" ", "_"))
"""


def _wheel_metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = (name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(archive.read(name).decode())


def test_the_built_wheel_installs_and_serves_a_minimal_project(tmp_path: Path) -> None:
    _require("build")
    _require("twine")
    dist = tmp_path / "dist"

    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, ".")

    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    assert wheel.name == "django_mcp_toolkit-0.1.0-py3-none-any.whl"
    assert "PASSED" in _run(sys.executable, "-m", "twine", "check", "--strict", sdist, wheel)
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    prefix = sdist.name.removesuffix(".tar.gz") + "/"
    with tarfile.open(sdist) as archive:
        in_sdist = {name.removeprefix(prefix) for name in archive.getnames()}
    assert [name for name in DATA_FILES if name not in in_wheel] == []
    assert [name for name in DATA_FILES if name not in in_sdist] == []
    assert not [name for name in in_wheel if name.startswith(("tests/", "testproject/"))]
    assert "LICENSE" in in_sdist
    metadata = _wheel_metadata(wheel)
    assert metadata.get_all("License-Expression") == ["MIT"]
    assert "django_mcp_toolkit-0.1.0.dist-info/licenses/LICENSE" in in_wheel
    urls = dict(url.split(", ", 1) for url in metadata.get_all("Project-URL") or [])
    assert set(urls) == {"Homepage", "Documentation", "Repository", "Issues", "Security"}
    assert all(url.startswith(urls["Repository"]) for url in urls.values())
    # The long description is the README, whose links must work on the index page.
    assert metadata.get_payload() == (ROOT / "README.md").read_text(encoding="utf-8")

    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    target = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    (target / "test-environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", wheel)

    project = tmp_path / "project"
    for name, text in PROJECT_FILES.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    env = {
        key: value for key, value in os.environ.items() if key not in ("DJANGO_SETTINGS_MODULE", "PYTHONPATH")
    }
    manage = (python, "manage.py")

    assert "System check identified no issues" in _run(*manage, "check", cwd=project, env=env)
    catalog = _run(*manage, "mcp_catalog", cwd=project, env=env)
    assert "shop" in catalog and "ping" in catalog
    module, template, stylesheet, spanish = _run(
        *manage, "shell", "-v", "0", "-c", FIND_FILES, cwd=project, env=env
    ).split()
    assert module == str(target / "django_mcp" / "__init__.py")
    assert template.startswith(str(target / "django_mcp" / "templates"))
    assert stylesheet.startswith(str(target / "django_mcp" / "static"))
    assert spanish == "Catálogo_MCP"  # the compiled Spanish catalog is in the wheel
