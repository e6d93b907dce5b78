"""The README: its setup snippet runs as written, its links work on the package index."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PYPROJECT = ROOT / "pyproject.toml"


def test_the_readme_settings_and_urls_snippet_runs_as_written() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    setup = [block for block in blocks if "# urls.py" in block]
    assert len(setup) == 1, "the README shows one settings/urls snippet"
    # What a project's settings.py and urls.py already define.
    namespace: dict[str, Any] = {"INSTALLED_APPS": ["django.contrib.admin"], "urlpatterns": []}

    exec(compile(setup[0], "README.md", "exec"), namespace)  # a NameError means a missing import

    assert namespace["INSTALLED_APPS"][-1] == "django_mcp"
    assert [str(pattern.pattern) for pattern in namespace["urlpatterns"]] == ["mcp/"]


def test_the_readme_links_are_absolute_and_name_files_of_the_repository() -> None:
    # The README is the package's long description on the package index,
    # where a relative link would point nowhere.
    repository = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["urls"]["Repository"]
    links = re.findall(r"\]\(([^)\s]+)\)", README.read_text(encoding="utf-8"))
    assert links
    assert [link for link in links if not link.startswith(("https://", "#"))] == []
    into_repository = [link for link in links if link.startswith(repository)]
    assert into_repository
    blob = f"{repository}/blob/main/"
    missing = [
        link
        for link in into_repository
        if not link.startswith(blob) or not (ROOT / link.removeprefix(blob).split("#")[0]).is_file()
    ]
    assert missing == []
