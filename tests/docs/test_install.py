"""The install instructions agree everywhere and match the package.

README.md, docs/index.md and docs/installation.md show one install block,
character for character: from a clone or a wheel built in it until the
first release, the PyPI command after it. No other page shows a command
that installs this package (they name the extra and link to Installation),
so the instructions cannot drift apart. The block names the distribution
and the wheel of the version in pyproject.toml, and the installation page
lists exactly the user-facing extras and every deployment warning.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES_WITH_THE_BLOCK = ("README.md", "docs/index.md", "docs/installation.md")
#: Extras for this repository's own use, not for projects.
INTERNAL_EXTRAS = {"test", "demo", "docs"}
_SH_BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)


def _project() -> dict[str, object]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project: dict[str, object] = pyproject["project"]
    return project


def _pages() -> dict[str, str]:
    pages = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    for page in sorted((ROOT / "docs").glob("*.md")):
        pages[f"docs/{page.name}"] = page.read_text(encoding="utf-8")
    return pages


def _install_blocks(text: str) -> list[str]:
    return [block for block in _SH_BLOCK.findall(text) if "/path/to/django-mcp" in block]


def _installs_this_package(line: str) -> bool:
    command = line.split("#", 1)[0]
    return "pip install" in command and ("django-mcp-toolkit" in command or "/path/to/django-mcp" in command)


def test_readme_and_docs_show_one_identical_install_block() -> None:
    pages = _pages()
    blocks = {name: _install_blocks(pages[name]) for name in PAGES_WITH_THE_BLOCK}

    assert all(len(found) == 1 for found in blocks.values()), blocks
    assert len({found[0] for found in blocks.values()}) == 1


def test_no_other_page_tells_how_to_install_the_package() -> None:
    elsewhere = []
    for name, text in _pages().items():
        for block in _install_blocks(text):
            text = text.replace(block, "")
        elsewhere += [f"{name}: {line}" for line in text.splitlines() if _installs_this_package(line)]
    assert elsewhere == []


def test_the_install_block_names_this_distribution_and_version() -> None:
    (block,) = _install_blocks((ROOT / "docs" / "installation.md").read_text(encoding="utf-8"))
    project = _project()
    name, version = str(project["name"]), str(project["version"])
    wheel = f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.split("#", 1)[0].strip()]

    before, after = block.split("# After the first release", 1)
    assert "Until the first release" in before
    assert "pip install /path/to/django-mcp" in commands
    assert f"pip install /path/to/django-mcp/dist/{wheel}" in commands
    assert [command for command in commands if name in command] == [f"pip install {name}"]
    assert f"pip install {name}" in after
    # The extras in the comments are real ones.
    for extras in re.findall(r"\[([a-z,]+)\]", block):
        assert set(extras.split(",")) <= set(project["optional-dependencies"])  # type: ignore[call-overload]


def test_the_installation_page_lists_every_user_facing_extra() -> None:
    text = (ROOT / "docs" / "installation.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z]+)` \|", text, re.MULTILINE))
    extras = set(_project()["optional-dependencies"])  # type: ignore[call-overload]
    assert listed == extras - INTERNAL_EXTRAS


def test_the_installation_page_names_every_deployment_warning() -> None:
    reference = (ROOT / "docs" / "settings-and-checks.md").read_text(encoding="utf-8")
    deploy = reference.split("### Warnings (`manage.py check --deploy`)", 1)[1].split("\n### ", 1)[0]
    warnings = re.findall(r"^\| `django_mcp\.(W\d{3})` \|", deploy, re.MULTILINE)
    (line,) = (
        line
        for line in (ROOT / "docs" / "installation.md").read_text(encoding="utf-8").splitlines()
        if "check --deploy" in line
    )
    assert warnings
    assert re.findall(r"W\d{3}", line) == warnings
