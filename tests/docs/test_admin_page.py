"""docs/admin.md: the WhiteNoise example keeps Django's default middleware; the playground's capabilities."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import django

from django_mcp._admin.task_panel import CLIENT_CAPABILITIES
from django_mcp.protocol.tasks import EXTENSION as TASKS_EXTENSION

ADMIN_MD = Path(__file__).resolve().parents[2] / "docs" / "admin.md"
PROJECT_TEMPLATE = Path(django.__file__).parent / "conf" / "project_template" / "project_name"
SETTINGS_TEMPLATE = PROJECT_TEMPLATE / "settings.py-tpl"
WHITENOISE = "whitenoise.middleware.WhiteNoiseMiddleware"


def _middleware(source: str) -> list[str]:
    """Return the ``MIDDLEWARE = [...]`` list a settings source assigns."""
    (assigned,) = (
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["MIDDLEWARE"]
    )
    return list(ast.literal_eval(assigned))


def test_the_whitenoise_example_is_django_default_middleware_plus_whitenoise() -> None:
    blocks = re.findall(r"```python\n(.*?)```", ADMIN_MD.read_text(encoding="utf-8"), re.DOTALL)
    (example,) = (block for block in blocks if WHITENOISE in block)
    default = _middleware(SETTINGS_TEMPLATE.read_text(encoding="utf-8"))
    documented = _middleware(example)

    assert "django.middleware.clickjacking.XFrameOptionsMiddleware" in default
    assert [name for name in documented if name != WHITENOISE] == default
    # WhiteNoise's own rule: right after SecurityMiddleware.
    security = documented.index("django.middleware.security.SecurityMiddleware")
    assert documented.index(WHITENOISE) == security + 1


def test_the_playground_capabilities_are_the_ones_the_page_names() -> None:
    text = " ".join(ADMIN_MD.read_text(encoding="utf-8").split())
    named = (
        "the client capabilities elicitation (form and URL), sampling and roots, the tasks extension, "
        "MCP Apps (`io.modelcontextprotocol/ui`, so a tool's App is shown)"
    )
    assert named in text
    # The playground declares exactly these on every call.
    assert CLIENT_CAPABILITIES == {
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {},
        "extensions": {
            TASKS_EXTENSION: {},
            "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]},
        },
    }
