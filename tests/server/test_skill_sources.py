"""Where skills are found: MCP_SKILLS_DIRS, installed apps, MCP_SKILLS_STORAGE."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp import Server
from django_mcp.server._skill_sources import find_skill, found_skills, skill_sources, watch_skill_folders
from django_mcp.server.compiler import compile_server
from django_mcp.testing import McpTestClient
from tests.skill_folders import skill_md, write_skill

pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")

APPS_DIR = Path(__file__).resolve().parents[2] / "testproject"


def labels(sources: Any) -> list[str]:
    return [source.label for source in sources]


def test_folders_come_first_then_apps_in_installed_order_then_the_storage(
    tmp_path: Path, settings: Any
) -> None:
    settings.MCP_SKILLS_DIRS = [tmp_path / "missing", tmp_path]
    settings.STORAGES = {
        **settings.STORAGES,
        "skills": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    }
    settings.MCP_SKILLS_STORAGE = "skills"

    assert labels(skill_sources()) == [
        f"MCP_SKILLS_DIRS[1] ({tmp_path})",
        f"app 'demo' ({APPS_DIR / 'demo' / 'skills'})",
        f"app 'conformance' ({APPS_DIR / 'conformance' / 'skills'})",
        "storage 'skills'",
    ]


def test_the_first_source_holding_a_name_wins(tmp_path: Path, settings: Any) -> None:
    write_skill(tmp_path, "release-notes", skill_md_text=skill_md("release-notes", "The project's own."))
    settings.MCP_SKILLS_DIRS = [tmp_path]
    sources = skill_sources()

    assert find_skill("release-notes", sources) is sources[0]
    assert found_skills(sources)["release-notes"] is sources[0]
    assert found_skills(sources)["restock-check"].label.startswith("app 'demo'")
    assert find_skill("absent", sources) is None


def test_an_overriding_skill_is_served_instead_of_the_apps(tmp_path: Path, settings: Any) -> None:
    write_skill(tmp_path, "release-notes", skill_md_text=skill_md("release-notes", "The project's own."))
    settings.MCP_SKILLS_DIRS = [tmp_path]
    server = type("OverrideServer", (Server,), {"skills": ("release-notes",)})

    skill = compile_server(server).skills.skills["skill://release-notes/SKILL.md"]

    assert skill.definition.frontmatter["description"] == "The project's own."


def test_folders_without_a_skill_md_are_not_skills(tmp_path: Path, settings: Any) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / ".hidden").mkdir()
    write_skill(tmp_path, ".hidden-skill")
    write_skill(tmp_path, "real")
    settings.MCP_SKILLS_DIRS = [tmp_path]

    assert sorted(skill_sources()[0].names()) == ["real"]


def test_a_storage_holds_skills_at_its_root(tmp_path: Path, settings: Any) -> None:
    write_skill(tmp_path, "bucketed", {"refs/a.md": "a"})
    settings.STORAGES = {
        **settings.STORAGES,
        "skills": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path)},
        },
    }
    settings.MCP_SKILLS_STORAGE = "skills"
    server = type("BucketServer", (Server,), {"skills": ("bucketed",)})

    skill = compile_server(server).skills.skills["skill://bucketed/SKILL.md"]

    assert skill.source.label == "storage 'skills'"
    assert list(skill.files) == ["skill://bucketed/SKILL.md", "skill://bucketed/refs/a.md"]


def test_an_in_memory_storage_serves_skills_too(settings: Any) -> None:
    from django.core.files.base import ContentFile
    from django.core.files.storage import storages

    settings.STORAGES = {
        **settings.STORAGES,
        "skills": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    }
    settings.MCP_SKILLS_STORAGE = "skills"
    storages["skills"].save("memo/SKILL.md", ContentFile(skill_md("memo").encode()))
    storages["skills"].save("memo/notes/a.txt", ContentFile(b"a"))
    server = type("MemoryServer", (Server,), {"skills": ("memo",)})

    assert list(compile_server(server).skills.files) == ["skill://memo/SKILL.md", "skill://memo/notes/a.txt"]


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("MCP_SKILLS_DIRS", "skills", "MCP_SKILLS_DIRS must be a list of folder paths"),
        ("MCP_SKILLS_DIRS", [3], r"MCP_SKILLS_DIRS\[0\] must be a path"),
        ("MCP_SKILLS_STORAGE", "nope", "MCP_SKILLS_STORAGE 'nope' is not a usable storage"),
        ("MCP_SKILLS_STORAGE", 5, "MCP_SKILLS_STORAGE must be None or a STORAGES alias"),
    ],
)
def test_malformed_settings_are_improperly_configured(
    settings: Any, name: str, value: Any, message: str
) -> None:
    setattr(settings, name, value)

    with pytest.raises(ImproperlyConfigured, match=message):
        skill_sources()


def test_runserver_watches_every_skill_folder_on_disk(tmp_path: Path, settings: Any) -> None:
    settings.MCP_SKILLS_DIRS = [tmp_path]
    watched: list[tuple[Path, str]] = []

    class Reloader:
        def watch_dir(self, path: Path, glob: str) -> None:
            watched.append((path, glob))

    watch_skill_folders(Reloader())

    assert watched == [
        (tmp_path, "**/*"),
        (APPS_DIR / "demo" / "skills", "**/*"),
        (APPS_DIR / "conformance" / "skills", "**/*"),
    ]


def test_a_malformed_setting_watches_nothing(settings: Any) -> None:
    settings.MCP_SKILLS_DIRS = "oops"

    class Reloader:
        def watch_dir(self, path: Path, glob: str) -> None:
            raise AssertionError("nothing is watched")

    watch_skill_folders(Reloader())


# ------------------------------------------------ a skill dropped into an app


@pytest.fixture
def drop_app(tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Install a throwaway app ``dropapp`` (with an empty skills/ folder); return its folder."""
    package = tmp_path / "dropapp"
    (package / "skills").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    settings.INSTALLED_APPS = [*settings.INSTALLED_APPS, "dropapp"]
    return package


def declared_server() -> type[Server]:
    """Return the server as an app's mcp.py declares it (what each new process imports)."""

    class EverySkillServer(Server):
        name = "every-skill"
        skills = "__all__"

    return EverySkillServer


async def listed(server: type[Server]) -> list[str]:
    reply = await McpTestClient(server).request("skills/list")
    return [entry["uri"] for entry in reply["result"]["skills"]]


async def test_a_skill_dropped_into_an_installed_apps_skills_folder_is_listed(drop_app: Path) -> None:
    before = await listed(declared_server())
    write_skill(drop_app / "skills", "dropped-in", {"notes/how.md": "How."})

    after = await listed(declared_server())

    assert "skill://dropped-in/SKILL.md" not in before
    assert after == [*before, "skill://dropped-in/SKILL.md"]
