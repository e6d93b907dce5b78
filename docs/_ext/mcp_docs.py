"""Sphinx extension of the django_mcp docs: the generated reference pages.

* ``docs/api/`` is written when the build starts: one page per public module
  (``automodule``, which documents exactly the module's ``__all__``) and an
  index grouping them by package. The folder is generated, git-ignored and
  rewritten on every build; stale pages are removed.
* ``mcp-checks`` lists every system check id with its level, message and
  hint, read from the package's source (``mcp_reference.check_messages``).
* ``mcp-command NAME`` prints ``manage.py NAME --help`` as the command
  itself builds it.
* Every problem ``mcp_reference.reference_problems()`` finds (a setting,
  check id or command missing from its page) is a build warning, so a
  ``-W`` build fails on it.
* A Markdown link from a page to a repository file outside ``docs/`` (the
  benchmark's ``tests/bench/RESULTS.md``) stays a relative link, which
  GitHub follows, and becomes a download of that file on the site.
* A cross-reference that matches one object under two documented names (a
  class and its re-export, ``django_mcp.Tool`` and
  ``django_mcp.server.primitives.Tool``) is not reported as ambiguous:
  either target is the same page content. Any other ambiguity still warns.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import logging as std_logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_reference
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

__all__ = ["ChecksDirective", "CommandDirective", "setup", "write_api_pages"]

logger = logging.getLogger(__name__)

API_FOLDER = "api"
#: Index sections of the API reference: a title and the module prefix it
#: gathers (the first matching prefix wins; "" catches the rest).
API_GROUPS = (
    (
        "Components and responses",
        (
            "django_mcp",
            "django_mcp.server",
            "django_mcp.response",
            "django_mcp.request",
            "django_mcp.schemas",
            "django_mcp.inputs",
            "django_mcp.exceptions",
            "django_mcp.storage",
        ),
    ),
    (
        "Registration, settings and checks",
        ("django_mcp.registry", "django_mcp.conf", "django_mcp.checks", "django_mcp.apps", "django_mcp.urls"),
    ),
    ("Testing", ("django_mcp.testing",)),
    (
        "Serving",
        (
            "django_mcp.transports",
            "django_mcp.asgi",
            "django_mcp.wsgi",
            "django_mcp.wellknown",
            "django_mcp.auth",
            "django_mcp.ratelimit",
        ),
    ),
    ("Wire types", ("django_mcp.protocol",)),
    ("The dispatcher", ("django_mcp.dispatcher",)),
    ("Change notifications", ("django_mcp.events",)),
    ("Tasks", ("django_mcp.tasks",)),
    ("Integrations", ("django_mcp.contrib",)),
    (
        "Admin, models and commands",
        ("django_mcp.admin", "django_mcp.models", "django_mcp.management", "django_mcp.migrations"),
    ),
)


def _group(module: str) -> str:
    best, length = "Other modules", -1
    for title, prefixes in API_GROUPS:
        for prefix in prefixes:
            exact = prefix == "django_mcp"
            matches = module == prefix if exact else module == prefix or module.startswith(prefix + ".")
            if matches and len(prefix) > length:
                best, length = title, len(prefix)
    return best


def _heading(text: str, underline: str) -> list[str]:
    return [text, underline * len(text), ""]


#: Values built from the registry at import time: the docs build's empty
#: registry would show a misleading ``[]``.
_DYNAMIC_VALUES = frozenset({"django_mcp.urls.urlpatterns"})


def _explicit_data(module: str) -> tuple[list[str], list[str]]:
    """Return the data names autodoc's ``automodule`` would skip or misprint.

    ``automodule`` documents a module-level value only when its own module's
    source gives it a docstring, so a re-exported or undocumented constant
    in ``__all__`` would be missing; a value whose ``repr`` is an object
    (``<URLPattern ...>``) says nothing. Both are documented explicitly with
    ``autodata``: the first list keeps the value, the second hides it.
    """
    imported = importlib.import_module(module)
    documented = {
        name for namespace, name in ModuleAnalyzer.for_module(module).find_attr_docs() if not namespace
    }
    shown, hidden = [], []
    for name in getattr(imported, "__all__", ()):
        try:
            value = getattr(imported, name)
        except Exception:  # a lazy attribute that cannot be built: autodoc says why
            hidden.append(name)
            continue
        if inspect.isclass(value) or inspect.isroutine(value) or inspect.ismodule(value):
            continue
        opaque = "<" in repr(value) or f"{module}.{name}" in _DYNAMIC_VALUES
        if opaque:
            hidden.append(name)
        elif name not in documented:
            shown.append(name)
    return shown, hidden


def _module_page(module: str) -> str:
    lines = _heading(f"``{module}``", "=")
    shown, hidden = _explicit_data(module)
    lines += [f".. automodule:: {module}"]
    if shown or hidden:
        lines += [f"   :exclude-members: {', '.join(shown + hidden)}"]
    lines += [""]
    for name in shown:
        lines += [f".. autodata:: {module}.{name}", ""]
    for name in hidden:
        lines += [f".. autodata:: {module}.{name}", "   :no-value:", ""]
    return "\n".join(lines)


def follow_no_import(app: Sphinx, modname: str, attribute: str) -> str:
    """Find an object's source in the module that documents it, never through its imports.

    A re-export (``django_mcp.McpError``) then gets no source link of its own;
    its defining module's page (``django_mcp.exceptions``) has it. Following
    the import would make viewcode link the source back to the wrong page.
    """
    return modname


def _index_page(modules: list[str]) -> str:
    lines = _heading("API reference", "=")
    lines += [
        "Generated from the docstrings of every public module of ``django_mcp``",
        "(a module whose path has no part starting with ``_``). Each page",
        "documents exactly the names the module lists in ``__all__``; private",
        "modules never appear. Most projects import from ``django_mcp``,",
        "``django_mcp.schemas``, ``django_mcp.inputs``, ``django_mcp.exceptions``",
        "and ``django_mcp.testing``.",
        "",
    ]
    titles = [title for title, _ in API_GROUPS] + ["Other modules"]
    for title in titles:
        members = [module for module in modules if _group(module) == title]
        if not members:
            continue
        lines += _heading(title, "-")
        lines += [".. toctree::", "   :maxdepth: 1", ""]
        lines += [f"   {module}" for module in members]
        lines += [""]
    return "\n".join(lines)


def _write(path: Path, text: str) -> None:
    # Unchanged pages keep their time stamp, so Sphinx does not re-read them.
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_api_pages(app: Sphinx) -> None:
    """Write ``docs/api/``: an index and one page per public module."""
    folder = Path(app.srcdir) / API_FOLDER
    folder.mkdir(exist_ok=True)
    modules = mcp_reference.public_modules()
    pages = {f"{module}.rst": _module_page(module) for module in modules}
    pages["index.rst"] = _index_page(modules)
    for stale in folder.glob("*.rst"):
        if stale.name not in pages:
            stale.unlink()
    for name, text in pages.items():
        _write(folder / name, text)


def report_reference_problems(app: Sphinx) -> None:
    """Turn each gap between the code and the reference pages into a warning."""
    for problem in mcp_reference.reference_problems():
        logger.warning("reference: %s", problem, type="mcp", subtype="reference")


class ChecksDirective(SphinxDirective):
    """List every system check id with its level, message and hint."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        """Return a definition list, one item per check id."""
        by_id: dict[str, list[mcp_reference.CheckMessage]] = {}
        for message in mcp_reference.check_messages():
            by_id.setdefault(message.id, []).append(message)
        listing = nodes.definition_list()
        for check_id in sorted(by_id, key=lambda value: (value[-4] != "E", value)):
            messages = by_id[check_id]
            term = nodes.term()
            term += nodes.literal(text=check_id)
            term += nodes.Text(f" ({messages[0].level.lower()}, from ")
            sources = sorted({f"{message.source_module}.{message.source}" for message in messages})
            for number, source in enumerate(sources):
                term += nodes.Text(", " if number else "")
                term += nodes.literal(text=source)
            term += nodes.Text(")")
            definition = nodes.definition()
            for message in messages:
                definition += self._field("Message", message.message)
                definition += self._field("Hint", message.hint or "")
            item = nodes.definition_list_item()
            item["ids"].append(nodes.make_id(check_id))
            item += [term, definition]
            listing += item
        return [listing]

    @staticmethod
    def _field(label: str, text: str) -> nodes.paragraph:
        paragraph = nodes.paragraph()
        paragraph += nodes.strong(text=f"{label}: ")
        paragraph += nodes.literal(text=text)
        return paragraph


@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    """Make argparse wrap help at ``width`` columns, as in an 80-column terminal."""
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


class CommandDirective(SphinxDirective):
    """Print ``manage.py NAME --help`` of one of django_mcp's commands."""

    required_arguments = 1
    has_content = False
    option_spec = {"width": directives.positive_int}

    def run(self) -> list[nodes.Node]:
        """Return the command's help as a literal block."""
        name = self.arguments[0]
        if name not in mcp_reference.command_names():
            raise self.error(f"{name!r} is not a django_mcp command")
        module: Any = importlib.import_module(f"django_mcp.management.commands.{name}")
        with _columns(self.options.get("width", 80)):
            text = module.Command().create_parser("manage.py", name).format_help()
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


def _resolve(dotted: str) -> object:
    """Return the object a dotted Python name stands for, or a unique sentinel."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attribute in parts[cut:]:
                value = getattr(value, attribute)
        except AttributeError:
            return object()
        return value
    return object()


class _SameObjectFilter(std_logging.Filter):
    """Drop "more than one target found" warnings whose targets are one object."""

    def filter(self, record: std_logging.LogRecord) -> bool:
        """Return False for an ambiguity between names of one object."""
        if (getattr(record, "type", None), getattr(record, "subtype", None)) != ("ref", "python"):
            return True
        if not isinstance(record.args, tuple) or len(record.args) != 2:
            return True
        names = str(record.args[1]).split(", ")
        objects = [_resolve(name) for name in names]
        return not all(value is objects[0] for value in objects[1:])


#: ``](../x/y.md)``: a Markdown link target outside the docs folder.
_OUTSIDE_LINK = re.compile(r"\]\((?P<target>(?:\.\./)+[^)\s#]+)\)")


def link_repository_files(app: Sphinx, docname: str, source: list[str]) -> None:
    """Turn links to repository files outside ``docs/`` into downloads."""

    def download(match: re.Match[str]) -> str:
        target = match["target"]
        page = Path(app.srcdir) / docname
        if (page.parent / target).resolve().is_relative_to(Path(app.srcdir).resolve()):
            return match[0]
        return f"](path:{target})"

    source[0] = _OUTSIDE_LINK.sub(download, source[0])


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives and the hooks that generate and check the reference."""
    std_logging.getLogger("sphinx.sphinx.domains.python").addFilter(_SameObjectFilter())
    app.connect("source-read", link_repository_files)
    app.connect("viewcode-follow-imported", follow_no_import)
    app.connect("builder-inited", write_api_pages)
    app.connect("builder-inited", report_reference_problems)
    app.add_directive("mcp-checks", ChecksDirective)
    app.add_directive("mcp-command", CommandDirective)
    return {"version": mcp_reference.release(), "parallel_read_safe": True, "parallel_write_safe": True}
