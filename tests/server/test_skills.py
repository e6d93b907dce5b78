"""Compiling skills: declarations, reading and digesting files, validation, the catalog."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp import CacheHint, Resource, Server, Skill
from django_mcp.exceptions import SkillError, SkillProblem
from django_mcp.protocol.definitions import ResourceDefinition
from django_mcp.protocol.skills import DIRECTORY_MIME_TYPE, SkillResource
from django_mcp.server import _frontmatter
from django_mcp.server.compiler import compile_server
from django_mcp.server.skills import EMPTY_CATALOG, MAX_FILES, MAX_TOTAL_SIZE, skill_root
from tests.skill_folders import digest, skill_md, write_skill

pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")


@pytest.fixture
def skills_dir(tmp_path: Path, settings: Any) -> Path:
    root = tmp_path / "skills"
    root.mkdir()
    settings.MCP_SKILLS_DIRS = [root]
    return root


def server_with(skills: Any, **attrs: Any) -> type[Server]:
    return type("SkillsServer", (Server,), {"skills": skills, **attrs})


def problems(server: type[Server]) -> list[tuple[str, str]]:
    with pytest.raises(SkillError) as caught:
        compile_server(server)
    return [(problem.check_id, problem.message) for problem in caught.value.problems]


# ------------------------------------------------------------ the catalog


def test_a_named_skill_is_read_digested_and_mapped_to_skill_uris(skills_dir: Path) -> None:
    text = skill_md("pdf-forms", extra="license: MIT\n")
    write_skill(
        skills_dir,
        "pdf-forms",
        {"references/FORMS.md": "# Forms\n", "scripts/fill.py": "print('x')\n", "logo.png": b"\x89PNG\x00"},
        skill_md_text=text,
    )

    skill = compile_server(server_with(("pdf-forms",))).skills.skills["skill://pdf-forms/SKILL.md"]

    assert skill.definition.frontmatter == {
        "name": "pdf-forms",
        "description": "Do one thing well.",
        "license": "MIT",
    }
    assert skill.definition.resources == (
        SkillResource(uri="skill://pdf-forms/SKILL.md", digest=digest(text), size=len(text)),
        SkillResource(uri="skill://pdf-forms/logo.png", digest=digest(b"\x89PNG\x00"), size=5),
        SkillResource(uri="skill://pdf-forms/references/FORMS.md", digest=digest("# Forms\n"), size=8),
        SkillResource(uri="skill://pdf-forms/scripts/fill.py", digest=digest("print('x')\n"), size=11),
    )
    assert [(f.path, f.mime_type, f.text) for f in skill.files.values()] == [
        ("SKILL.md", "text/markdown", True),
        ("logo.png", "image/png", False),
        ("references/FORMS.md", "text/markdown", True),
        ("scripts/fill.py", "text/x-python", True),
    ]
    assert skill.resource == ResourceDefinition(
        uri="skill://pdf-forms/SKILL.md",
        name="pdf-forms",
        description="Do one thing well.",
        mime_type="text/markdown",
        size=len(text),
    )
    assert skill.root == "skill://pdf-forms"
    assert skill.total_size == len(text) + 5 + 8 + 11


def test_digests_are_sha256_of_the_raw_bytes_in_lowercase_hex(skills_dir: Path) -> None:
    write_skill(skills_dir, "raw", {"data.bin": bytes(range(256))})

    skill = compile_server(server_with(("raw",))).skills.skills["skill://raw/SKILL.md"]

    entry = skill.files["skill://raw/data.bin"]
    assert entry.digest == "sha256:" + hashlib.sha256(bytes(range(256))).hexdigest()
    assert (entry.size, entry.text, entry.mime_type) == (256, False, "application/octet-stream")


def test_unknown_extensions_are_plain_text_when_they_are_utf8(skills_dir: Path) -> None:
    write_skill(skills_dir, "notes", {"NOTES": "héllo", "conf.yaml": "a: 1", "x.toml": "a = 1"})

    skill = compile_server(server_with(("notes",))).skills.skills["skill://notes/SKILL.md"]

    assert {f.path: f.mime_type for f in skill.files.values()} == {
        "SKILL.md": "text/markdown",
        "NOTES": "text/plain",
        "conf.yaml": "application/yaml",
        "x.toml": "application/toml",
    }


def test_file_names_are_percent_encoded_in_uris(skills_dir: Path) -> None:
    write_skill(skills_dir, "odd", {"my notes/a b#c.md": "x", "ünï-notes.md": "y"})

    files = compile_server(server_with(("odd",))).skills.files

    assert set(files) == {
        "skill://odd/SKILL.md",
        "skill://odd/my%20notes/a%20b%23c.md",
        "skill://odd/%C3%BCn%C3%AF-notes.md",
    }


def test_hidden_editor_and_interpreter_files_are_not_part_of_a_skill(skills_dir: Path) -> None:
    write_skill(
        skills_dir,
        "tidy",
        {".git/config": "x", ".DS_Store": "x", "a.md~": "x", "__pycache__/m.pyc": b"\x00", "kept.md": "x"},
    )

    files = compile_server(server_with(("tidy",))).skills.files

    assert list(files) == ["skill://tidy/SKILL.md", "skill://tidy/kept.md"]


def test_directories_list_direct_children_sorted_with_folders_as_directory_resources(
    skills_dir: Path,
) -> None:
    write_skill(skills_dir, "tree", {"b.md": "b", "templates/one.md": "1", "templates/deep/two.md": "2"})

    catalog = compile_server(server_with(("tree",))).skills

    assert sorted(catalog.directories) == [
        "skill://tree",
        "skill://tree/templates",
        "skill://tree/templates/deep",
    ]
    root = catalog.directories["skill://tree"]
    assert [(c.definition.uri, c.definition.name, c.definition.mime_type) for c in root.children] == [
        ("skill://tree/SKILL.md", "tree", "text/markdown"),
        ("skill://tree/b.md", "b.md", "text/markdown"),
        ("skill://tree/templates", "templates", DIRECTORY_MIME_TYPE),
    ]
    assert [c.definition.uri for c in catalog.directories["skill://tree/templates"].children] == [
        "skill://tree/templates/deep",
        "skill://tree/templates/one.md",
    ]


def test_a_prefix_nests_the_uris_and_each_prefix_level_is_a_directory(skills_dir: Path) -> None:
    write_skill(skills_dir, "refunds")
    write_skill(skills_dir, "chargebacks")

    class RefundsSkill(Skill):
        prefix = "acme/billing"

    class ChargebacksSkill(Skill):
        prefix = "acme/billing"

    catalog = compile_server(server_with((RefundsSkill, ChargebacksSkill))).skills

    assert list(catalog.skills) == [
        "skill://acme/billing/refunds/SKILL.md",
        "skill://acme/billing/chargebacks/SKILL.md",
    ]
    billing = catalog.directories["skill://acme/billing"]
    assert [c.definition.uri for c in billing.children] == [
        "skill://acme/billing/chargebacks",
        "skill://acme/billing/refunds",
    ]
    assert len(billing.skills) == 2
    assert [c.definition.uri for c in catalog.directories["skill://acme"].children] == [
        "skill://acme/billing"
    ]


def test_a_skill_class_declares_name_guards_and_cache(skills_dir: Path) -> None:
    write_skill(skills_dir, "git-workflow")

    class GitWorkflowSkill(Skill):
        permissions = ("demo.change_stock",)
        cache = CacheHint(ttl_ms=60_000, scope="public")

        def authorize(self, request: Any) -> bool:
            return True

    compiled = compile_server(server_with((GitWorkflowSkill,)))
    skill = compiled.skills.skills["skill://git-workflow/SKILL.md"]

    assert (skill.component, skill.name, skill.permissions, skill.has_authorize, skill.cache) == (
        GitWorkflowSkill,
        "git-workflow",
        ("demo.change_stock",),
        True,
        CacheHint(ttl_ms=60_000, scope="public"),
    )
    assert compiled.caller_dependent


def test_skills_declare_the_extension_and_the_resources_capability(skills_dir: Path) -> None:
    write_skill(skills_dir, "alone")

    with_directories = compile_server(server_with(("alone",)))
    without = compile_server(server_with(("alone",), skills_directory_read=False))

    assert with_directories.capabilities.extensions == {
        "io.modelcontextprotocol/skills": {"directoryRead": True, "revision": "1"}
    }
    assert without.capabilities.extensions == {"io.modelcontextprotocol/skills": {"revision": "1"}}
    assert with_directories.capabilities.resources == {"listChanged": True, "subscribe": True}
    assert with_directories.legacy_capabilities.extensions is msgspec_unset()
    assert with_directories.listens


def msgspec_unset() -> Any:
    import msgspec

    return msgspec.UNSET


def test_a_server_without_skills_has_the_empty_catalog() -> None:
    compiled = compile_server(server_with(()))

    assert compiled.skills is EMPTY_CATALOG
    assert compiled.capabilities.extensions is msgspec_unset()


def test_all_serves_every_skill_found(skills_dir: Path) -> None:
    write_skill(skills_dir, "zeta")
    write_skill(skills_dir, "alpha")

    uris = list(compile_server(server_with("__all__")).skills.skills)

    # This folder first (sorted), then the installed apps' skills.
    assert uris[:2] == ["skill://alpha/SKILL.md", "skill://zeta/SKILL.md"]
    assert "skill://release-notes/SKILL.md" in uris
    assert "skill://restock-check/SKILL.md" in uris


def test_skill_root_is_the_folder_uri() -> None:
    assert (skill_root(None, "a"), skill_root("x/y", "a")) == ("skill://a", "skill://x/y/a")


# ------------------------------------------------------------ validation


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no frontmatter", "must begin with YAML frontmatter"),
        (skill_md("other-name"), "names the skill 'other-name' but its folder is 'broken'"),
        ("---\nname: broken\n---\n", "needs a description"),
        ("---\nname: broken\ndescription: [x\n---\n", "not valid YAML (line 3)"),
        (skill_md("broken", extra="metadata:\n  version: 1.0\n"), "metadata values must be strings"),
    ],
)
def test_a_broken_skill_md_is_an_e030_problem(skills_dir: Path, text: str, message: str) -> None:
    write_skill(skills_dir, "broken", skill_md_text=text)

    [(check_id, found)] = problems(server_with(("broken",)))

    assert check_id == "django_mcp.E030"
    assert found.startswith(f"skill 'broken' in MCP_SKILLS_DIRS[0] ({skills_dir}) is invalid: ")
    assert message in found


def test_a_skill_md_that_is_not_utf8_is_refused(skills_dir: Path) -> None:
    folder = write_skill(skills_dir, "latin")
    (folder / "SKILL.md").write_bytes(skill_md("latin", "Caf\xe9").encode("latin-1"))

    [(check_id, message)] = problems(server_with(("latin",)))

    assert (check_id, message.endswith("SKILL.md is not UTF-8 text")) == ("django_mcp.E030", True)


def test_more_than_512_files_are_refused(skills_dir: Path) -> None:
    write_skill(skills_dir, "many", {f"f{i:03}.md": "" for i in range(MAX_FILES)})

    [(check_id, message)] = problems(server_with(("many",)))

    assert check_id == "django_mcp.E030"
    assert "it has 513 files; a skill may have at most 512, SKILL.md included" in message


def test_exactly_512_files_are_served(skills_dir: Path) -> None:
    write_skill(skills_dir, "full", {f"f{i:03}.md": "" for i in range(MAX_FILES - 1)})

    assert len(compile_server(server_with(("full",))).skills.files) == MAX_FILES


def test_more_than_16_mib_in_total_is_refused(skills_dir: Path) -> None:
    folder = write_skill(skills_dir, "huge")
    budget = MAX_TOTAL_SIZE - (folder / "SKILL.md").stat().st_size
    (folder / "a.bin").write_bytes(b"\x00" * (budget // 2))
    (folder / "b.bin").write_bytes(b"\x00" * (budget - budget // 2 + 1))

    [(check_id, message)] = problems(server_with(("huge",)))

    assert check_id == "django_mcp.E030"
    assert "its files total more than 16777216 bytes (16 MiB)" in message


def test_exactly_16_mib_in_total_is_served(skills_dir: Path) -> None:
    folder = write_skill(skills_dir, "big")
    (folder / "a.bin").write_bytes(b"\x00" * (MAX_TOTAL_SIZE - (folder / "SKILL.md").stat().st_size))

    assert (
        compile_server(server_with(("big",))).skills.skills["skill://big/SKILL.md"].total_size
        == MAX_TOTAL_SIZE
    )


def test_a_file_name_with_a_backslash_is_refused(skills_dir: Path) -> None:
    write_skill(skills_dir, "slash", {"a\\b.md": "x"})

    [(check_id, message)] = problems(server_with(("slash",)))

    assert (check_id, "holds a backslash or a control character" in message) == ("django_mcp.E030", True)


def test_a_folder_loop_is_refused(skills_dir: Path) -> None:
    folder = write_skill(skills_dir, "loop")
    os.symlink(folder, folder / "again")

    [(check_id, message)] = problems(server_with(("loop",)))

    assert (check_id, "folders nest more than 32 levels deep" in message) == ("django_mcp.E030", True)


# ------------------------------------------------------- symbolic links


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the skills folder, with a secret in it."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "passwd").write_text("root:x:0:0\n")
    return folder


def refused(skills_dir: Path, *skills: str) -> tuple[Any, list[tuple[str, str, str, str]]]:
    catalog = compile_server(server_with(skills)).skills
    return catalog, [(r.name, r.source, r.path, r.real) for r in catalog.refused]


def test_a_file_linked_outside_its_skill_refuses_the_whole_skill(skills_dir: Path, outside: Path) -> None:
    folder = write_skill(skills_dir, "good", {"notes.md": "# Notes\n"})
    write_skill(skills_dir, "other")
    os.symlink(outside / "passwd", folder / "passwd-link.txt")

    catalog, found = refused(skills_dir, "good", "other")

    source = f"MCP_SKILLS_DIRS[0] ({skills_dir})"
    assert found == [("good", source, "good/passwd-link.txt", str(outside / "passwd"))]
    assert list(catalog.skills) == ["skill://other/SKILL.md"]
    assert not [uri for uri in catalog.files if uri.startswith("skill://good/")]
    assert not [uri for uri in catalog.directories if uri.startswith("skill://good")]


def test_a_skill_md_linked_outside_is_refused(skills_dir: Path, outside: Path) -> None:
    (outside / "SKILL.md").write_text(skill_md("linked"))
    folder = skills_dir / "linked"
    folder.mkdir()
    os.symlink(outside / "SKILL.md", folder / "SKILL.md")

    catalog, found = refused(skills_dir, "linked")

    assert [(name, path) for name, _, path, _ in found] == [("linked", "linked/SKILL.md")]
    assert catalog.skills == {}


def test_a_folder_linked_outside_is_refused_before_it_is_walked(skills_dir: Path, outside: Path) -> None:
    folder = write_skill(skills_dir, "good")
    os.symlink(outside, folder / "refs")
    os.symlink("/", folder / "root")

    catalog, found = refused(skills_dir, "good")

    assert [(path, real) for _, _, path, real in found] in (
        [("good/refs", str(outside))],
        [("good/root", "/")],
    )
    assert catalog.skills == {}


def test_a_skill_folder_that_is_itself_a_link_elsewhere_is_refused(skills_dir: Path, tmp_path: Path) -> None:
    elsewhere = write_skill(tmp_path / "vendor", "vendored")
    os.symlink(elsewhere, skills_dir / "vendored")

    catalog, found = refused(skills_dir, "vendored")

    assert [(path, real) for _, _, path, real in found] == [("vendored", str(elsewhere))]
    assert catalog.skills == {}


def test_a_link_that_stays_inside_its_skill_is_served(skills_dir: Path) -> None:
    folder = write_skill(skills_dir, "good", {"refs/real.md": "# Real\n"})
    os.symlink(folder / "refs" / "real.md", folder / "alias.md")
    os.symlink("refs", folder / "more")

    catalog, found = refused(skills_dir, "good")

    assert found == []
    assert sorted(file.path for file in catalog.skills["skill://good/SKILL.md"].files.values()) == [
        "SKILL.md",
        "alias.md",
        "more/real.md",
        "refs/real.md",
    ]


def test_a_link_into_another_skill_leaves_its_own_folder(skills_dir: Path) -> None:
    other = write_skill(skills_dir, "other", {"shared.md": "# Shared\n"})
    folder = write_skill(skills_dir, "good")
    os.symlink(other / "shared.md", folder / "shared.md")

    catalog, found = refused(skills_dir, "good", "other")

    assert [(name, path) for name, _, path, _ in found] == [("good", "good/shared.md")]
    assert list(catalog.skills) == ["skill://other/SKILL.md"]


def test_a_refused_skill_is_logged(skills_dir: Path, outside: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = write_skill(skills_dir, "good")
    os.symlink(outside / "passwd", folder / "ref.md")

    refused(skills_dir, "good")

    [record] = [r for r in caplog.records if r.name == "django_mcp.server.skills"]
    assert record.levelname == "ERROR"
    assert "skill 'good'" in record.getMessage()
    assert "good/ref.md leads to" in record.getMessage()


def test_an_unknown_skill_is_an_e031_problem_naming_where_it_looked(skills_dir: Path) -> None:
    [(check_id, message)] = problems(server_with(("nowhere",)))

    assert check_id == "django_mcp.E031"
    assert message.startswith(
        f"no skill named 'nowhere' was found (searched: MCP_SKILLS_DIRS[0] ({skills_dir}); "
    )
    assert "app 'conformance'" in message


def test_every_problem_is_collected_before_raising(skills_dir: Path) -> None:
    write_skill(skills_dir, "bad", skill_md_text="nothing")
    write_skill(skills_dir, "good")

    found = problems(server_with(("missing", "bad", "good")))

    assert [check_id for check_id, _ in found] == ["django_mcp.E031", "django_mcp.E030"]


def test_a_missing_yaml_parser_is_one_e029_problem(skills_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_skill(skills_dir, "one")
    write_skill(skills_dir, "two")

    def missing(name: str) -> Any:
        raise ImportError(name)

    _frontmatter._loader.cache_clear()
    monkeypatch.setattr(_frontmatter, "_import", missing)
    try:
        with pytest.raises(SkillError) as caught:
            compile_server(server_with(("one", "two")))
    finally:
        monkeypatch.undo()
        _frontmatter._loader.cache_clear()

    assert caught.value.problems == (
        SkillProblem(
            "django_mcp.E029",
            'Parsing SKILL.md frontmatter needs PyYAML: pip install "django-mcp-toolkit[skills]"',
            'Install it: pip install "django-mcp-toolkit[skills]"',
        ),
    )


@pytest.mark.parametrize(
    ("skills", "message"),
    [
        ("everything", "must be '__all__' or a tuple of skill names and Skill classes"),
        ((3,), "contains 3, which is neither a skill name nor a Skill subclass"),
        (("Bad_Name",), "skill name 'Bad_Name' is invalid"),
        (("twice", "twice"), "skill 'skill://twice' is declared twice"),
    ],
)
def test_declaration_mistakes_are_improperly_configured(skills_dir: Path, skills: Any, message: str) -> None:
    write_skill(skills_dir, "twice")

    with pytest.raises(ImproperlyConfigured, match=message) as caught:
        compile_server(server_with(skills))

    assert not isinstance(caught.value, SkillError)


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"prefix": "Acme/x"}, "prefix 'Acme/x' is invalid"),
        ({"prefix": "acme/../x"}, "prefix 'acme/../x' is invalid"),
        ({"prefix": "acme//x"}, "prefix 'acme//x' is invalid"),
        ({"permissions": "demo.x"}, "permissions must be a tuple"),
        ({"cache": 5}, "cache must be a CacheHint"),
        ({"prefx": "acme"}, "did you mean 'prefix'"),
        ({"name": "No"}, "skill name 'No' is invalid"),
    ],
)
def test_skill_class_mistakes_are_improperly_configured(
    skills_dir: Path, attrs: dict[str, Any], message: str
) -> None:
    write_skill(skills_dir, "named")
    component = type("NamedSkill", (Skill,), attrs)

    with pytest.raises(ImproperlyConfigured, match=message):
        compile_server(server_with((component,)))


def test_skills_directory_read_must_be_a_bool(skills_dir: Path) -> None:
    with pytest.raises(ImproperlyConfigured, match="skills_directory_read must be True or False"):
        compile_server(server_with((), skills_directory_read="yes"))


def test_a_resource_and_a_skill_cannot_serve_one_uri(skills_dir: Path) -> None:
    write_skill(skills_dir, "clash")

    class ClashResource(Resource):
        uri = "skill://clash/SKILL.md"

        def handle(self) -> str:
            return "x"

    with pytest.raises(ImproperlyConfigured, match="and a skill both serve 'skill://clash/SKILL.md'"):
        compile_server(server_with(("clash",), resources=(ClashResource,)))


def test_two_skills_cannot_serve_one_file(skills_dir: Path) -> None:
    write_skill(skills_dir, "outer", {"inner/SKILL.md": skill_md("inner")})
    write_skill(skills_dir, "inner")

    class InnerSkill(Skill):
        prefix = "outer"

    with pytest.raises(ImproperlyConfigured, match="both serve 'skill://outer/inner/SKILL.md'"):
        compile_server(server_with(("outer", InnerSkill)))
