"""The documentation site builds with no warning, and its links all resolve.

The build is the one a fresh clone runs after ``pip install -e '.[docs]'``:
``python -m sphinx -W --keep-going -b html docs <out>``, in a subprocess
without ``DJANGO_SETTINGS_MODULE`` (``docs/conf.py`` configures Django
itself), into a temporary folder. It needs no network. Skipped with the
reason where Sphinx, MyST or Furo is missing; CI installs them through the
``docs`` extra and fails instead of skipping.

On the built HTML: every relative link of every page (navigation, links
between pages, anchors, the API reference's cross-references) points at a
file that exists and, when it names one, an anchor that the file has; and
the inventory of documented Python objects holds every public module and
every name in its ``__all__``, and no private module.
"""

from __future__ import annotations

import html.parser
import importlib
import importlib.util
import os
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# Building the whole site (autodoc imports every public module) takes about
# a minute alone and several on a loaded 2-core machine; the English and the
# Spanish builds run side by side (``builds``): the first test pays for them,
# so the module's bound is the builds' own, not the suite's.
BUILD_TIMEOUT = 900
pytestmark = [pytest.mark.slow, pytest.mark.timeout(BUILD_TIMEOUT)]


def _require_docs_tools() -> None:
    missing = [name for name in ("sphinx", "myst_parser", "furo") if importlib.util.find_spec(name) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{', '.join(missing)} not installed; the docs extra provides them")
        pytest.skip(f"{', '.join(missing)} not installed (pip install -e '.[docs]')")


class _Build:
    """One Sphinx build of the site, running in a subprocess of its own."""

    def __init__(self, work: Path, *options: str) -> None:
        self.out, doctrees = work / "html", work / "doctrees"
        self._stderr = work / "stderr.txt"
        env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
        command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
        with self._stderr.open("wb") as stderr:  # the child writes through its own copy
            self.process = subprocess.Popen(
                [*command, "-d", str(doctrees), *options, str(DOCS), str(self.out)],
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )

    def result(self) -> Path:
        """Wait for the build (bounded); return its HTML folder once it built with no warning."""
        self.process.wait(timeout=BUILD_TIMEOUT)
        errors = self._stderr.read_text(encoding="utf-8", errors="replace")
        assert self.process.returncode == 0, errors[-6000:]
        assert errors == "", errors[-6000:]
        return self.out

    def stop(self) -> None:
        """Kill the build if it still runs (its test was not selected or failed first), and reap it."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, _Build]]:
    """Start the English and the Spanish build side by side; stop what still runs at the end.

    Each build runs in one process and the tests wait for them: started
    together, the two use two cores for the time of one.
    """
    _require_docs_tools()
    started: dict[str, _Build] = {}
    try:
        for language, options in (("en", ()), ("es", ("-D", "language=es"))):
            started[language] = _Build(tmp_path_factory.mktemp(f"docs-site-{language}"), *options)
        yield started
    finally:
        for build in started.values():
            build.stop()


@pytest.fixture(scope="module")
def site(builds: dict[str, _Build]) -> Path:
    """Return the HTML folder of the English site, built once for this module."""
    return builds["en"].result()


def test_the_site_builds_with_no_warning(site: Path) -> None:
    assert (site / "index.html").is_file()


def test_every_docs_page_and_the_generated_ones_are_on_the_site(site: Path) -> None:
    pages = sorted(path.stem for path in DOCS.glob("*.md"))
    assert [page for page in pages if not (site / f"{page}.html").is_file()] == []
    assert (site / "api" / "index.html").is_file()
    assert (site / "api" / "django_mcp.conf.html").is_file()
    assert (site / "checks.html").is_file() and (site / "changelog.html").is_file()


class _Page(html.parser.HTMLParser):
    """Collect the ids a page defines and the links it makes."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if value and ((tag == "a" and name == "href") or (tag in ("img", "script") and name == "src")):
                self.links.append(value)
            if value and tag == "link" and name == "href":
                self.links.append(value)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_every_internal_link_of_the_site_resolves(site: Path) -> None:
    pages = {path: _parse(path) for path in site.rglob("*.html")}
    broken = []
    checked = 0
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "data:")):
                continue  # external: not checked, there is no network
            target = path if not parts.path else (path.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            checked += 1
            where = f"{path.relative_to(site)} -> {link}"
            if not target.is_file():
                broken.append(where)
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(where)
    assert checked > 1000  # navigation alone links every page from every page
    assert broken == []


def _inventory(site: Path) -> dict[str, str]:
    """Return ``{name: role}`` of every object in the site's ``objects.inv``."""
    data = (site / "objects.inv").read_bytes()
    header_end = 0
    for _ in range(4):  # four header lines, then zlib-compressed entries
        header_end = data.index(b"\n", header_end) + 1
    entries: dict[str, str] = {}
    for line in zlib.decompress(data[header_end:]).decode("utf-8").splitlines():
        name, role = line.split(" ", 2)[:2]
        entries[name] = role
    return entries


def test_the_api_reference_documents_every_public_name(site: Path) -> None:
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        reference = importlib.import_module("mcp_reference")
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    inventory = _inventory(site)
    missing = []
    for module_name in reference.public_modules():
        if inventory.get(module_name) != "py:module":
            missing.append(module_name)
        module = importlib.import_module(module_name)
        missing += [
            f"{module_name}.{name}" for name in module.__all__ if not inventory.get(f"{module_name}.{name}")
        ]
    assert missing == []


def test_no_private_module_is_in_the_api_reference(site: Path) -> None:
    modules = [name for name, role in _inventory(site).items() if role == "py:module"]
    assert "django_mcp.conf" in modules
    assert [name for name in modules if any(part.startswith("_") for part in name.split("."))] == []


# ----------------------------------------------------------- in Spanish

#: The pages translated in full (docs/locale/es/LC_MESSAGES/<page>.po); the
#: others fall back to English, as the translated index says.
SPANISH_PAGES = (
    "index",
    "installation",
    "tutorial",
    "tools",
    "resources",
    "prompts",
    "responses",
    "admin",
    "contrib",
)


class _Headings(html.parser.HTMLParser):
    """Collect the text of a page's h1-h3 headings (without their permalink)."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[str] = []
        self._depth = 0
        self._in_link = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("h1", "h2", "h3"):
            self._depth += 1
            self.headings.append("")
        elif self._depth and tag == "a" and ("class", "headerlink") in attrs:
            self._in_link = True

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h1", "h2", "h3"):
            self._depth -= 1
        elif tag == "a":
            self._in_link = False

    def handle_data(self, data: str) -> None:
        if self._depth and not self._in_link:
            self.headings[-1] += data


def _headings(path: Path) -> list[str]:
    parser = _Headings()
    parser.feed(path.read_text(encoding="utf-8"))
    return [" ".join(text.split()) for text in parser.headings]


def _plain(markdown: str) -> str:
    """Return a one-line Markdown text as its HTML reads (no escapes, no code marks)."""
    return markdown.replace("\\", "").replace("`", "")


def test_the_spanish_site_builds_and_its_pages_read_as_spanish(builds: dict[str, _Build]) -> None:
    from babel.messages.pofile import read_po

    spanish = builds["es"].result()
    for page in SPANISH_PAGES:
        with (DOCS / "locale" / "es" / "LC_MESSAGES" / f"{page}.po").open("rb") as po:
            catalog = [message for message in read_po(po) if message.id]
        assert [m.id for m in catalog if m.fuzzy or not m.string] == [], f"{page}.po: untranslated"
        # A translated heading keeps its Markdown (escapes, code marks) in the .po.
        spanish_texts = {_plain(m.string) for m in catalog}
        english_texts = {_plain(m.id) for m in catalog if m.id != m.string}
        headings = _headings(spanish / f"{page}.html")

        assert 'lang="es"' in (spanish / f"{page}.html").read_text(encoding="utf-8")
        assert headings, page
        assert [text for text in headings if text in english_texts] == [], f"{page}: English headings"
        assert [text for text in headings if text not in spanish_texts] == [], (
            f"{page}: headings not in {page}.po"
        )
    assert _headings(spanish / "installation.html")[:2] == ["Instalación", "Requisitos"]
    assert _headings(spanish / "tutorial.html")[:2] == [
        "Tutorial: un servidor de notas",
        "1. Un proyecto y una aplicación",
    ]
    assert _headings(spanish / "prompts.html")[1:3] == ["Argumentos y mensajes", "Roles y contenido"]
    assert _headings(spanish / "admin.html")[0] == "El admin: catálogo y banco de pruebas"
    assert _headings(spanish / "resources.html")[:2] == ["Recursos", "Recursos fijos"]
    # An untranslated page stays English.
    assert _headings(spanish / "tools.html")[:2] == ["Herramientas", "Declarar una herramienta"]
    assert _headings(spanish / "responses.html")[:2] == [
        "Respuestas",
        "Cómo da forma el componente al resultado",
    ]
    assert _headings(spanish / "contrib.html")[0] == "El código de admin y de API existente como herramientas"
    assert _headings(spanish / "schemas.html")[0] == "Schemas"
