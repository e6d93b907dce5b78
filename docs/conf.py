"""Sphinx configuration of the django_mcp documentation site.

Build it with ``python -m sphinx -W --keep-going -b html docs <out>`` after
``pip install -e '.[docs]'``. The build needs no network: nothing is fetched
(no intersphinx inventories), and Django is configured here with in-memory
settings so that autodoc can import every public module of the package.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import django
from django.conf import settings

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# The package from this checkout (also without an editable install), and the
# extension that generates and checks the reference pages.
sys.path[:0] = [str(ROOT), str(DOCS / "_ext")]

if not settings.configured:
    # Just enough of a project for autodoc to import django_mcp's modules
    # (its admin, models and checks): nothing here is served or stored.
    settings.configure(
        INSTALLED_APPS=[
            "django.contrib.admin",
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.messages",
            "django.contrib.sessions",
            "django_mcp",
        ],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
        SECRET_KEY="django-mcp-docs-build",  # signs nothing: the build serves no request
        USE_TZ=True,
    )
    django.setup()

_PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

project = "django-mcp"
author = "django-mcp developers"
copyright = "django-mcp developers"
release = _PROJECT["version"]
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "mcp_docs",
]

root_doc = "index"
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "README.md"]
templates_path: list[str] = []

# MyST: GitHub-style anchors for every heading level, so the links the pages
# use on GitHub (``transports.md#running-under-asgi``) work on the site too.
myst_heading_anchors = 6
myst_enable_extensions = ["colon_fence", "deflist"]

# autodoc: what each public module lists in __all__, in that order.
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# Translations, through Sphinx's gettext flow: `sphinx-build -b gettext docs
# <pot folder>` extracts each page's messages; docs/locale/<language>/
# LC_MESSAGES/<page>.po translates them (compiled to .mo by the build);
# `-D language=es` builds the Spanish site. A page without a translation, or
# a message without one, stays English.
locale_dirs = ["locale/"]
gettext_compact = False
gettext_uuid = False
gettext_location = False

html_theme = "furo"
html_title = f"django-mcp {release}"
html_static_path: list[str] = []
