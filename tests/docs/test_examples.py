"""Run every ```python block of ``docs/*.md`` as a test.

Developer guide: "Keep docs/ in step with the code; every code example in the
docs runs as a test." Each block runs on its own, in a fresh module namespace
and with an empty server registry, so a block can neither lean on another
block nor leak registrations into the rest of the suite. Test ids name the
page and the block's position among that page's Python blocks, counted from
one: ``responses.md#3``.

A block opts out only with ``<!-- no-test: reason -->`` on the line right
before its opening fence; use that for shell-dependent snippets at most, and
prefer ``sh``/``json`` fences for anything that is not Python. A block that
stores data (tasks) gets a database, emptied after it, with
``<!-- needs-database -->`` on that line instead.

The pages are also the Sphinx site's sources (MyST): a MyST code directive
for Python (```` ```{code-block} python ````, ``{code}``, ``{sourcecode}``,
``{code-cell}``) runs like a plain ```` ```python ```` block, its ``:option:``
lines left out, and the site's navigation is the ``{toctree}`` of
``index.md``, which must list every page.
"""

from __future__ import annotations

import dataclasses
import importlib
import linecache
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from django_mcp.registry import registry

DOCS = Path(__file__).resolve().parents[2] / "docs"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,}|~{3,})[ \t]*(?P<lang>[^\s`]*)(?P<rest>[^`]*)$")
#: MyST directives that show code; their argument is the language.
_CODE_DIRECTIVES = frozenset({"{code-block}", "{code}", "{sourcecode}", "{code-cell}"})
#: A directive option line at the top of a MyST directive's body.
_DIRECTIVE_OPTION = re.compile(r"^:[\w-]+:")
_NO_TEST = re.compile(r"^\s*<!--\s*no-test:\s*(?P<reason>\S.*?)\s*-->\s*$")
_NEEDS_DATABASE = re.compile(r"^\s*<!--\s*needs-database\s*-->\s*$")
#: Info strings that would look like Python to a reader but escape this test.
_PYTHON_LOOKALIKES = frozenset({"py", "python3", "py3", "pycon", "ipython"})
_LINK = re.compile(r"\]\((?P<target>[^)\s#]+\.md)?(?:#(?P<anchor>[^)\s]*))?\)")
_HEADING = re.compile(r"^#{1,6}\s+(?P<title>.+?)\s*#*\s*$")


@dataclasses.dataclass(frozen=True)
class Fence:
    """One fenced code block of a docs page."""

    page: Path
    lang: str
    line: int  # 1-based line of the first source line
    source: str
    skip_reason: str | None
    needs_database: bool = False


@dataclasses.dataclass(frozen=True)
class Example:
    """A Python block, with the id used for its test."""

    id: str
    fence: Fence


def _fences(page: Path) -> Iterator[Fence]:
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, ticks = opening["indent"], opening["ticks"]
        previous = lines[index - 1] if index else ""
        marker = _NO_TEST.match(previous)
        body: list[str] = []
        end = index + 1
        while end < len(lines) and lines[end].strip() != ticks:
            line = lines[end]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            end += 1
        if end == len(lines):
            raise AssertionError(f"{page.name}:{index + 1}: unclosed code fence")
        lang, first = opening["lang"].lower(), index + 2
        if lang in _CODE_DIRECTIVES:
            # ```{code-block} python: the language is the directive's argument.
            lang = (opening["rest"].split() or [""])[0].lower()
            options = 0
            while options < len(body) and _DIRECTIVE_OPTION.match(body[options]):
                options += 1
            # Blank out the options so line numbers still match the page.
            body = [""] * options + body[options:]
        yield Fence(
            page=page,
            lang=lang,
            line=first,
            source="\n".join(body) + "\n",
            skip_reason=marker["reason"] if marker else None,
            needs_database=_NEEDS_DATABASE.match(previous) is not None,
        )
        index = end + 1


def _pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def _examples() -> list[Example]:
    examples = []
    for page in _pages():
        blocks = [fence for fence in _fences(page) if fence.lang == "python"]
        for number, fence in enumerate(blocks, start=1):
            examples.append(Example(f"{page.name}#{number}", fence))
    return examples


EXAMPLES = _examples()


def _run(example: Example) -> None:
    fence = example.fence
    # Import every URLconf before the registry is emptied: django_mcp.urls
    # reads the registry once, on first import, and must see the project's
    # real registrations for the rest of the suite.
    importlib.import_module(settings.ROOT_URLCONF)
    importlib.import_module("django_mcp.urls")
    name = "docs_example_" + re.sub(r"\W", "_", example.id)
    module = types.ModuleType(name)
    module.__file__ = str(fence.page)
    # Pad so tracebacks point at the block's own lines in the .md file.
    source = "\n" * (fence.line - 1) + fence.source
    code = compile(source, example.id, "exec")
    # Let tracebacks and assertion rewriting show the block's lines.
    linecache.cache[example.id] = (len(source), None, source.splitlines(keepends=True), example.id)
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    # msgspec and dataclasses resolve annotations through sys.modules.
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)  # noqa: S102 - running the docs is the point
    finally:
        sys.modules.pop(name, None)
        registry.restore(saved)


def _param(example: Example) -> Any:
    # Transactional: asyncio.run() reaches the ORM from other threads.
    marks = [pytest.mark.django_db(transaction=True)] if example.fence.needs_database else []
    return pytest.param(example, id=example.id, marks=marks)


@pytest.mark.parametrize("example", [_param(example) for example in EXAMPLES])
def test_docs_example_runs(example: Example) -> None:
    # Sync on purpose: blocks call asyncio.run(), which needs no running loop.
    if example.fence.skip_reason is not None:
        pytest.skip(f"no-test: {example.fence.skip_reason}")
    _run(example)


def test_docs_have_python_examples() -> None:
    assert _pages(), f"no Markdown pages under {DOCS}"
    assert EXAMPLES


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_no_python_block_escapes_the_runner(page: Path) -> None:
    lookalikes = [
        f"{page.name}:{fence.line - 1} uses ```{fence.lang}"
        for fence in _fences(page)
        if fence.lang in _PYTHON_LOOKALIKES
    ]
    assert lookalikes == [], "label Python blocks ```python so they run"


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_no_test_markers_sit_right_before_a_fence(page: Path) -> None:
    lines = page.read_text(encoding="utf-8").splitlines()
    stray = [
        f"{page.name}:{number}"
        for number, line in enumerate(lines, start=1)
        if _NO_TEST.match(line) and (number == len(lines) or _FENCE.match(lines[number]) is None)
    ]
    assert stray == [], "a no-test marker must be the line right before a fence"


def _anchors(page: Path) -> set[str]:
    """Return the GitHub-style anchors of the headings outside code blocks."""
    anchors: set[str] = set()
    fence: str | None = None
    for line in page.read_text(encoding="utf-8").splitlines():
        opening = _FENCE.match(line)
        if fence is None and opening is not None:
            fence = opening["ticks"]
            continue
        if fence is not None:
            if line.strip() == fence:
                fence = None
            continue
        heading = _HEADING.match(line)
        if heading is not None:
            title = heading["title"].lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    for match in _LINK.finditer(page.read_text(encoding="utf-8")):
        target, anchor = match["target"], match["anchor"]
        if target is None and anchor is None:
            continue
        linked = page if target is None else page.parent / target
        if not linked.is_file():
            broken.append(target)
        elif anchor and anchor not in _anchors(linked):
            broken.append(f"{target or ''}#{anchor}")
    assert broken == []


def _toctree_entries(page: Path) -> set[str]:
    """Return the pages the ``{toctree}`` directives of ``page`` list, as file names."""
    entries: set[str] = set()
    for fence in _fences(page):
        if fence.lang != "{toctree}":
            continue
        for line in fence.source.splitlines():
            entry = line.strip()
            if entry and not entry.startswith(":"):
                # "Title <page>" entries name the page between angle brackets.
                target = entry.rsplit("<", 1)[-1].rstrip(">") if entry.endswith(">") else entry
                entries.add(target if target.endswith(".md") else f"{target}.md")
    return entries


def test_index_links_every_page() -> None:
    # The site's navigation: a page missing from it would be unreachable
    # (Sphinx also warns, and the -W build in test_site.py fails).
    listed = _toctree_entries(DOCS / "index.md")
    missing = sorted(p.name for p in _pages() if p.name != "index.md" and p.name not in listed)
    assert missing == []


def test_index_toctrees_name_only_existing_pages() -> None:
    generated = {"api/index.md"}  # written by the build (docs/_ext/mcp_docs.py)
    listed = _toctree_entries(DOCS / "index.md") - generated
    assert sorted(name for name in listed if not (DOCS / name).is_file()) == []


def test_a_myst_code_block_directive_runs_as_python(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```{code-block} python\n:caption: An example\n\nvalue = 1\n```\n", encoding="utf-8")
    [fence] = _fences(page)
    assert (fence.lang, fence.line, fence.source) == ("python", 2, "\n\nvalue = 1\n")
    exec(compile("\n" * (fence.line - 1) + fence.source, "page.md", "exec"), {})  # noqa: S102
