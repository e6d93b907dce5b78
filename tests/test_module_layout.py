"""django_mcp's modules stay short, and the tests mirror them.

* No module of the package is longer than ``MAX_MODULE_LINES``: a longer one
  has taken on a second job and is split by job (as ``checks/`` is).
* A module of ``MIRROR_FROM_LINES`` lines or more has its own test file at
  the same path under ``tests/``: ``django_mcp/a/b.py`` (or ``_b.py``) is
  tested by ``tests/a/test_b.py``; a package's ``__init__.py`` by
  ``tests/a/b/test_b.py`` or ``tests/a/test_b.py``; a private package's
  modules by the same path, with or without its underscore
  (``tests/_admin/`` or ``tests/admin/``). At most
  ``MAX_UNMIRRORED`` such modules may lack one; each is named on failure.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = ROOT / "django_mcp"
TESTS_DIR = ROOT / "tests"

MAX_MODULE_LINES = 600
MIRROR_FROM_LINES = 150
MAX_UNMIRRORED = 8


def _modules() -> dict[Path, int]:
    """Return every module of the package (relative path) with its line count."""
    return {
        path.relative_to(PACKAGE_DIR): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(PACKAGE_DIR.rglob("*.py"))
        if "migrations" not in path.parts
    }


def _public(folder: Path) -> Path:
    """Return a folder path without the underscores that mark private packages."""
    return Path(*(part.lstrip("_") for part in folder.parts))


def mirrored_test_paths(module: Path) -> list[Path]:
    """Return where the mirrored test file of a module (relative to the package) may live.

    A private package's tests sit in the folder of its public name
    (``_admin/forms.py`` in ``tests/admin/``) or in one of its own (``tests/_admin/``).
    """
    if module.name == "__init__.py":
        name = module.parent.name.lstrip("_")
        folders = [module.parent, module.parent.parent]
    else:
        name = module.stem.lstrip("_")
        folders = [module.parent]
    candidates = [
        TESTS_DIR / where / f"test_{name}.py" for folder in folders for where in (_public(folder), folder)
    ]
    return list(dict.fromkeys(candidates))


def test_no_module_is_longer_than_the_limit() -> None:
    modules = _modules()
    # Guards against a walk that finds nothing and so checks nothing.
    assert len(modules) > 50
    long = {str(path): lines for path, lines in modules.items() if lines > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them by job): {long}"


def test_long_modules_have_a_mirrored_test_file() -> None:
    unmirrored = {
        str(path): lines
        for path, lines in _modules().items()
        if lines >= MIRROR_FROM_LINES and not any(test.exists() for test in mirrored_test_paths(path))
    }
    listing = "\n".join(
        f"    django_mcp/{path} ({lines} lines): {mirrored_test_paths(Path(path))[0].relative_to(ROOT)}"
        for path, lines in sorted(unmirrored.items(), key=lambda item: -item[1])
    )
    assert len(unmirrored) <= MAX_UNMIRRORED, (
        f"{len(unmirrored)} modules of {MIRROR_FROM_LINES}+ lines have no mirrored test file "
        f"(at most {MAX_UNMIRRORED}):\n{listing}"
    )


def test_mirrored_test_paths_follow_the_module_path() -> None:
    assert mirrored_test_paths(Path("dispatcher/_codec.py")) == [TESTS_DIR / "dispatcher" / "test_codec.py"]
    assert mirrored_test_paths(Path("_admin/forms.py")) == [
        TESTS_DIR / "admin" / "test_forms.py",
        TESTS_DIR / "_admin" / "test_forms.py",
    ]
    assert mirrored_test_paths(Path("checks/__init__.py")) == [
        TESTS_DIR / "checks" / "test_checks.py",
        TESTS_DIR / "test_checks.py",
    ]
