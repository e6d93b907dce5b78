"""The repository stands on its own: a clean clone needs nothing beside it.

Every git-tracked text file is scanned for references that only resolve on
one developer's machine or in a folder next to the repository:

* absolute paths into a home or workspace folder (the top-level ``work``,
  ``root``, ``home`` and ``Users`` folders) and Windows drive paths;
* relative paths whose ``..`` steps climb out of the repository, resolved
  from the folder of the file that names them;
* upper-case Markdown document names (``NOTES.md``) that no tracked file
  has: the repository's own documents are all tracked;
* any mention of a "checklist": the specification is cited by revision and
  section, never through an internal checklist.

Rules, kept narrow on purpose:

* ``/tmp`` is not matched at all: temporary paths are made at run time
  (``tmp_path``, ``tempfile``) and name nothing the repository needs.
* System locations (``/usr/``, ``/var/``, ``/etc/``, ``/srv/``, ``/dev/``,
  ``/bin/``) are not matched: they name what the operating system provides,
  such as ``#!/usr/bin/env bash``, a Debian package's executable or the
  Redis directories of ``.ci/run``, or illustrate a deployment in ``docs/``.
* A path that continues a URL or another path (``example.com/home/``) is
  not a filesystem path, so a match must not follow a word character, ``.``,
  ``-``, ``~``, ``/`` or ``:``.
* Not scanned: binary files (a NUL byte, or not UTF-8), the upstream schema
  copies ``tests/spec/*.json`` (see ``tests/spec/README.md``), npm's
  ``package-lock.json`` files, and this module, which describes the rules.

Without git, or outside a git checkout (an sdist, an exported tree), the
scan is skipped with the reason.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC_DIR = ROOT / "tests" / "spec"
THIS_FILE = PurePosixPath(Path(__file__).resolve().relative_to(ROOT).as_posix())

#: The schema copies the test suite reads: tests/conftest.py validates every
#: message against both eras, tests/protocol/test_wire.py and
#: tests/test_schema_json.py read the 2026-07-28 one.
SCHEMA_FILES = ("schema-2025-11-25.json", "schema-2026-07-28.json")

_NOT_AFTER = r"(?<![\w.~/:-])"
OUTSIDE_REFERENCES = re.compile(
    "|".join(
        (
            # Home and workspace folders of one machine.
            _NOT_AFTER + r"/(?:work|root|home|Users)/",
            # Windows drive paths, written with one or two backslashes.
            r"(?<![\w\\])[A-Za-z]:\\",
            # Internal checklists, whatever their name.
            r"\bchecklist\b",
        )
    ),
    re.IGNORECASE,
)
#: ``..`` steps and what follows them, to resolve against the naming file.
CLIMBING_PATH = re.compile(r"(?<![\w./])(?:\.\./)+[\w.-]+")
#: Document names in the repository's style (README.md, SECURITY.md).
DOCUMENT_NAME = re.compile(r"(?<![\w./-])[A-Z][A-Z0-9_-]*\.md\b")


def _skipped(path: PurePosixPath) -> bool:
    """Return True for a tracked file the scan leaves out (see the module docstring)."""
    if path == THIS_FILE or path.name == "package-lock.json":
        return True
    return path.parent == PurePosixPath("tests/spec") and path.suffix == ".json"


def _tracked_files() -> list[PurePosixPath]:
    """Return the paths git tracks under ROOT, or skip the test without git."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed: cannot list the tracked files")
    probe = subprocess.run(
        [git, "-C", str(ROOT), "rev-parse", "--is-inside-work-tree"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if probe.returncode != 0 or probe.stdout.strip() != "true":
        pytest.skip(f"{ROOT} is not a git checkout: cannot list the tracked files")
    listing = subprocess.run(
        [git, "-C", str(ROOT), "ls-files", "-z"],
        capture_output=True,
        check=True,
        timeout=30,
    )
    return [PurePosixPath(name) for name in listing.stdout.decode().split("\0") if name]


def _text(path: Path) -> str | None:
    """Return the file's text, or None for a binary (or deleted) file."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:  # deleted in the work tree, still in the index
        return None
    if b"\0" in raw[:8192]:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def outside_references(relative: PurePosixPath, text: str, documents: frozenset[str]) -> list[str]:
    """Return ``file:line: match | line`` for each outside reference in ``text``.

    ``documents`` holds the names of the tracked Markdown files.
    """
    found = []
    depth = len(relative.parent.parts)  # folders between the repository root and the file
    for number, line in enumerate(text.splitlines(), start=1):
        matches = [match.group(0) for match in OUTSIDE_REFERENCES.finditer(line)]
        matches += [
            match.group(0) for match in CLIMBING_PATH.finditer(line) if match.group(0).count("../") > depth
        ]
        matches += [
            match.group(0) for match in DOCUMENT_NAME.finditer(line) if match.group(0) not in documents
        ]
        found.extend(f"{relative}:{number}: {match!r} | {line.strip()}" for match in matches)
    return found


def test_tracked_files_name_nothing_outside_the_repository() -> None:
    tracked = _tracked_files()
    assert tracked, "git ls-files listed nothing"
    documents = frozenset(path.name for path in tracked if path.suffix == ".md")
    offending: list[str] = []
    scanned = 0
    for relative in tracked:
        if _skipped(relative):
            continue
        text = _text(ROOT / relative)
        if text is None:
            continue
        scanned += 1
        offending.extend(outside_references(relative, text, documents))
    assert scanned > 10, f"only {scanned} tracked text files were scanned"
    if offending:
        pytest.fail(
            f"{len(offending)} reference(s) to paths or documents outside the repository "
            "(cite the MCP specification by revision and section, or name the behaviour):\n"
            + "\n".join(offending),
            pytrace=False,
        )


@pytest.mark.parametrize(
    ("where", "line", "expected"),
    [
        ("tests/a.py", "open('/home/dev/notes.txt')", ["/home/"]),
        ("tests/a.py", 'SPEC = Path("/Users/dev/spec/schema.json")', ["/Users/"]),
        ("tests/a.py", "root = 'C:\\\\Users\\\\dev'", ["C:\\"]),
        ("README.md", "cat ../sibling/NOTES.md", ["../sibling"]),
        ("docs/a.md", "see ../../elsewhere/x.json", ["../../elsewhere"]),
        ("docs/a.md", "see [the index](../README.md)", []),
        ("docs/a.md", 'refused: "notes/../../secret.txt"', []),
        ("tests/a.py", "# see the deploy checklist §13", ["checklist"]),
        ("tests/a.py", "# as SERVER-NOTES.md says", ["SERVER-NOTES.md"]),
        ("tests/a.py", "# as SECURITY.md says", []),
        ("tests/a.py", '"base": "http://example.com/home/"', []),
        ("tests/a.py", "#!/usr/bin/env bash", []),
        ("tests/a.py", "redis-server --dir /var/lib/redis", []),
        ("tests/a.py", "log = '/tmp/uvicorn.log'", []),
    ],
)
def test_outside_reference_rules_match_only_outside_references(
    where: str, line: str, expected: list[str]
) -> None:
    found = outside_references(PurePosixPath(where), line, frozenset({"README.md", "SECURITY.md"}))
    assert [entry.split(": ", 1)[1].split(" | ")[0] for entry in found] == [repr(m) for m in expected]


def test_spec_directory_holds_every_schema_the_tests_read() -> None:
    sources = [
        path
        for path in (ROOT / "tests").rglob("*.py")
        if "node_modules" not in path.parts and path.resolve() != Path(__file__).resolve()
    ]
    named = {
        match.group(0)
        for path in sources
        for match in re.finditer(r"schema-\d{4}-\d{2}-\d{2}\.json", path.read_text(encoding="utf-8"))
    }
    # Guards against a search that finds nothing and so checks nothing.
    assert set(SCHEMA_FILES) <= named
    readme = (SPEC_DIR / "README.md").read_text(encoding="utf-8")
    problems = []
    for name in sorted(named):
        path = SPEC_DIR / name
        if not path.is_file():
            problems.append(f"tests/spec/{name} is missing")
            continue
        schema = json.loads(path.read_text(encoding="utf-8"))
        if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema" or not schema.get("$defs"):
            problems.append(f"tests/spec/{name} is not a JSON Schema 2020-12 document with $defs")
        if name not in readme:
            problems.append(f"tests/spec/README.md does not say where {name} comes from")
    assert problems == []
