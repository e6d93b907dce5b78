"""System checks of skills (E028-E031, E038, W009, W010)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from django.core.checks import Error, Warning

from django_mcp import Server
from django_mcp.checks import check_servers, check_settings
from django_mcp.registry import registry

HERE = __name__  # importable: pytest registers this module in sys.modules


# --------------------------------------------- skills (E028-E031, E038, W009, W010)


def test_skills_dirs_that_is_not_a_list_is_e028(settings: Any) -> None:
    settings.MCP_SKILLS_DIRS = "skills"
    assert check_settings() == [
        Error(
            "MCP_SKILLS_DIRS must be a list of folder paths, got 'skills'.",
            hint='Write it as a list, e.g. MCP_SKILLS_DIRS = [BASE_DIR / "skills"].',
            id="django_mcp.E028",
        )
    ]


def test_each_skills_dir_that_is_not_a_folder_is_e028(settings: Any, tmp_path: Any) -> None:
    settings.MCP_SKILLS_DIRS = [tmp_path, tmp_path / "missing", 7]
    hint = (
        "Each entry is a folder holding one sub-folder per skill "
        "(<folder>/<name>/SKILL.md); create it or remove the entry."
    )
    assert check_settings() == [
        Error(
            f"MCP_SKILLS_DIRS[1] ({tmp_path / 'missing'!r}) is not an existing folder.",
            hint=hint,
            id="django_mcp.E028",
        ),
        Error("MCP_SKILLS_DIRS[2] (7) is not an existing folder.", hint=hint, id="django_mcp.E028"),
    ]


def test_skills_storage_that_is_not_an_alias_is_e028(settings: Any) -> None:
    settings.MCP_SKILLS_STORAGE = "bucket"
    assert check_settings() == [
        Error(
            "MCP_SKILLS_STORAGE 'bucket' is not an alias in STORAGES.",
            hint="Set it to None or to one of the configured storages ('default', 'staticfiles'), "
            "whose root holds one folder per skill (<name>/SKILL.md).",
            id="django_mcp.E028",
        )
    ]


def test_skills_storage_naming_a_storage_passes(settings: Any) -> None:
    settings.MCP_SKILLS_STORAGE = "default"
    assert check_settings() == []


def _skills_server(skills: Any) -> type[Server]:
    return type("SkillsServer", (Server,), {"skills": skills, "__module__": HERE})


SKILL_HINT = (
    "Fix the skill's folder as the message says; the server cannot answer any request until every "
    "skill it serves is valid."
)


def test_invalid_and_unknown_skills_are_e030_and_e031_instead_of_e015(
    servers: None, settings: Any, tmp_path: Any
) -> None:
    from tests.skill_folders import skill_md, write_skill

    pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")
    settings.MCP_SKILLS_DIRS = [tmp_path]
    write_skill(tmp_path, "renamed", skill_md_text=skill_md("other"))
    server = _skills_server(("renamed", "absent"))
    registry._registry["web"]["skills"] = server

    [invalid, unknown] = check_servers()

    where = f"web server 'skills' ({HERE}.SkillsServer)"
    assert invalid == Error(
        f"{where}: skill 'renamed' in MCP_SKILLS_DIRS[0] ({tmp_path}) is invalid: SKILL.md names the skill "
        "'other' but its folder is 'renamed': they must be equal (rename one).",
        hint=SKILL_HINT,
        obj=server,
        id="django_mcp.E030",
    )
    assert (unknown.id, unknown.obj) == ("django_mcp.E031", server)
    assert unknown.msg.startswith(f"{where}: no skill named 'absent' was found (searched: MCP_SKILLS_DIRS[0]")
    assert unknown.hint == (
        "Create absent/SKILL.md in an installed app's skills/ folder, in a folder of MCP_SKILLS_DIRS or in "
        "the MCP_SKILLS_STORAGE storage, or correct the name."
    )


def test_skills_without_pyyaml_are_e029(servers: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from django_mcp.server import _frontmatter

    _frontmatter._loader.cache_clear()
    monkeypatch.setattr(_frontmatter, "_import", _missing_module)
    server = _skills_server(("release-notes",))
    registry._registry["web"]["skills"] = server
    try:
        messages = check_servers()
    finally:
        monkeypatch.undo()
        _frontmatter._loader.cache_clear()

    assert messages == [
        Error(
            f"web server 'skills' ({HERE}.SkillsServer): Parsing SKILL.md frontmatter needs PyYAML: "
            'pip install "django-mcp-toolkit[skills]".',
            hint='Install it: pip install "django-mcp-toolkit[skills]"',
            obj=server,
            id="django_mcp.E029",
        )
    ]


def _missing_module(name: str) -> Any:
    raise ImportError(name)


def test_skill_files_too_large_to_read_are_w009(servers: None, settings: Any, tmp_path: Any) -> None:
    from tests.skill_folders import write_skill

    pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")
    settings.MCP_SKILLS_DIRS = [tmp_path]
    settings.MCP_MAX_RESPONSE_SIZE = 1000
    write_skill(tmp_path, "heavy", {"text.md": "x" * 1000, "long.md": "x" * 1001, "blob.bin": b"\xff" * 751})
    server = _skills_server(("heavy",))
    registry._registry["web"]["skills"] = server

    assert check_servers() == [
        Warning(
            f"web server 'skills': skill file skill://heavy/{path} is {size} bytes; a read of it needs more "
            "than MCP_MAX_RESPONSE_SIZE (1000 bytes) and fails.",
            hint="Raise MCP_MAX_RESPONSE_SIZE, or split or shrink the file.",
            obj=server,
            id="django_mcp.W009",
        )
        for path, size in (("blob.bin", 751), ("long.md", 1001))
    ]


def test_a_skill_with_a_link_outside_its_folder_is_e038(servers: None, settings: Any, tmp_path: Any) -> None:

    from tests.skill_folders import write_skill

    pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")
    skills = tmp_path / "skills"
    settings.MCP_SKILLS_DIRS = [skills]
    folder = write_skill(skills, "good")
    write_skill(skills, "fine")
    (tmp_path / ".env").write_text("SECRET_KEY=x\n")
    os.symlink(tmp_path / ".env", folder / "ref.md")
    server = _skills_server(("good", "fine"))
    registry._registry["web"]["skills"] = server

    assert check_servers() == [
        Error(
            f"web server 'skills': skill 'good' in MCP_SKILLS_DIRS[0] ({skills}) is not served: good/ref.md "
            f"leads to {tmp_path / '.env'}, outside the skill's folder.",
            hint="A skill's files must really be inside its folder: replace the symbolic link with a copy "
            "of what it points at, or remove it. To serve a skill kept elsewhere, add the folder holding it "
            "to MCP_SKILLS_DIRS.",
            obj=server,
            id="django_mcp.E038",
        )
    ]


def test_reserved_metadata_keys_are_w010(servers: None, settings: Any, tmp_path: Any) -> None:
    from tests.skill_folders import skill_md, write_skill

    pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")
    settings.MCP_SKILLS_DIRS = [tmp_path]
    extra = 'metadata:\n  io.modelcontextprotocol/trust: "high"\n  team: docs\n'
    write_skill(tmp_path, "claims", skill_md_text=skill_md("claims", extra=extra))
    server = _skills_server(("claims",))
    registry._registry["web"]["skills"] = server

    assert check_servers() == [
        Warning(
            "web server 'skills': skill skill://claims/SKILL.md uses the reserved metadata keys "
            "'io.modelcontextprotocol/trust'.",
            hint="Keys starting with io.modelcontextprotocol/ are reserved for MCP extensions, which "
            "define none yet: rename them.",
            obj=server,
            id="django_mcp.W010",
        )
    ]
