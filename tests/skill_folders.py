"""Write skill folders for tests of the skills extension.

``write_skill(root, name)`` creates ``root/<name>/SKILL.md`` with valid
frontmatter (or the ``skill_md`` text given) and the extra ``files``
(paths relative to the skill's folder, text or bytes). Point
``MCP_SKILLS_DIRS`` at ``root`` with the ``settings`` fixture to serve them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

__all__ = ["digest", "skill_md", "write_skill"]


def skill_md(name: str, description: str = "Do one thing well.", *, extra: str = "", body: str = "") -> str:
    """Return the text of a ``SKILL.md`` for ``name``; ``extra`` adds frontmatter lines."""
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\n{body}"


def write_skill(
    root: Path,
    name: str,
    files: Mapping[str, str | bytes] | None = None,
    *,
    skill_md_text: str | None = None,
) -> Path:
    """Create the folder of skill ``name`` under ``root`` and return it."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(skill_md(name) if skill_md_text is None else skill_md_text)
    for path, content in (files or {}).items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    return folder


def digest(data: bytes | str) -> str:
    """Return the ``sha256:<hex>`` digest SEP-2640 publishes for ``data``."""
    raw = data.encode() if isinstance(data, str) else data
    return "sha256:" + hashlib.sha256(raw).hexdigest()
