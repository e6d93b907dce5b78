"""The README's setup snippet runs as written in a project's settings and URLconf."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_settings_and_urls_snippet_runs_as_written() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    setup = [block for block in blocks if "# urls.py" in block]
    assert len(setup) == 1, "the README shows one settings/urls snippet"
    # What a project's settings.py and urls.py already define.
    namespace: dict[str, Any] = {"INSTALLED_APPS": ["django.contrib.admin"], "urlpatterns": []}

    exec(compile(setup[0], "README.md", "exec"), namespace)  # a NameError means a missing import

    assert namespace["INSTALLED_APPS"][-1] == "django_mcp"
    assert [str(pattern.pattern) for pattern in namespace["urlpatterns"]] == ["mcp/"]
