"""The reference pages keep up with the code, with or without Sphinx installed.

What "keeping up" means lives in ``docs/_ext/mcp_reference.py``, which the
Sphinx build also runs (every problem is a build warning there): every
``MCP_*`` setting of ``django_mcp.conf.DEFAULTS`` is described with its type,
default, unit and since; every system check id in the source is in the
checks tables; every management command has a section with its help.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from django_mcp.conf import DEFAULTS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _load_reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mcp_reference", DOCS / "_ext" / "mcp_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # dataclasses resolve the module's annotations through sys.modules.
    sys.modules.setdefault("mcp_reference", module)
    spec.loader.exec_module(module)
    return module


reference = _load_reference()


@pytest.fixture
def settings_page(tmp_path: Path) -> Path:
    """Return a copy of the settings page that a test may edit."""
    copy = tmp_path / "settings-and-checks.md"
    shutil.copy(DOCS / "settings-and-checks.md", copy)
    return copy


def _edit(page: Path, old: str, new: str) -> None:
    text = page.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    page.write_text(text.replace(old, new), encoding="utf-8")


# ---------------------------------------------------------------- settings


def test_every_setting_is_described_in_the_settings_reference() -> None:
    assert sorted(row.name for row in reference.documented_settings()) == sorted(DEFAULTS)


def test_the_settings_reference_matches_the_defaults_in_conf() -> None:
    assert reference.settings_problems() == []


def test_each_setting_gives_type_default_unit_and_since() -> None:
    rows = {row.name: row for row in reference.documented_settings()}
    size = rows["MCP_MAX_REQUEST_SIZE"]
    assert (size.type, size.default, size.unit, size.since) == ("int", "`1048576` (1 MiB)", "bytes", "0.1.0")
    ttl = rows["MCP_TASK_TTL"]
    assert (ttl.type, ttl.unit) == ("int | float | None", "seconds")
    assert rows["MCP_SESSION_CACHE"].unit == ""  # not a number


def test_a_setting_missing_from_the_page_is_reported(settings_page: Path) -> None:
    _edit(settings_page, "#### `MCP_REDIS_URL`", "#### The Redis URL")
    problems = reference.settings_problems(settings_page)
    assert [problem for problem in problems if "MCP_REDIS_URL" in problem] == [
        "settings-and-checks.md: setting MCP_REDIS_URL (django_mcp.conf.DEFAULTS) is not documented under "
        "'Every setting' (a heading #### `MCP_REDIS_URL`, then its Type/Default/Unit/Since line)"
    ]


def test_a_stale_default_a_wrong_type_or_a_missing_unit_is_reported(settings_page: Path) -> None:
    _edit(
        settings_page,
        "Type `int` · Default `100` · Unit items · Since 0.1.0",
        "Type `str` · Default `200` · Since 0.1.0",
    )
    problems = [p for p in reference.settings_problems(settings_page) if "MCP_MAX_PAGE_SIZE" in p]
    assert [problem.split(": ", 2)[-1] for problem in problems] == [
        "Default says '`200`', the code's default is 100",
        "Type 'str' does not accept the default 100",
        "a number needs its unit (bytes, seconds, items, ...)",
    ]


def test_a_since_later_than_the_release_or_a_missing_facts_line_is_reported(settings_page: Path) -> None:
    _edit(
        settings_page,
        "Type `bool` · Default `True` · Since 0.1.0",
        "Type `bool` · Default `True` · Since 99.0",
    )
    _edit(settings_page, 'Type `str` · Default `"redis://127.0.0.1:6379/0"` · Since 0.1.0', "")
    problems = reference.settings_problems(settings_page)
    assert [p.split(": ", 2)[-1] for p in problems if "MCP_SERVER_INFO" in p] == [
        f"Since 99.0 is later than this release ({reference.release()})"
    ]
    assert [p.split(": ", 2)[-1] for p in problems if "MCP_REDIS_URL" in p] == [
        "the heading needs the line 'Type `...` · Default `...` · Unit ... · Since x.y.z' after it "
        "(Unit only for numbers)"
    ]


def test_a_documented_setting_that_the_code_does_not_have_is_reported(settings_page: Path) -> None:
    _edit(settings_page, "#### `MCP_SERVER_INFO`", "#### `MCP_SERVERINFO`")
    problems = reference.settings_problems(settings_page)
    assert any("MCP_SERVERINFO is documented but is not a key" in problem for problem in problems)
    assert any("setting MCP_SERVER_INFO (django_mcp.conf.DEFAULTS) is not documented" in p for p in problems)


# ------------------------------------------------------------------ checks


def test_every_check_id_in_the_code_is_in_the_checks_tables() -> None:
    assert reference.check_problems() == []


def test_check_messages_are_read_from_the_source_with_their_reporter() -> None:
    messages = {message.id: message for message in reference.check_messages()}
    assert messages["django_mcp.E003"].message == (
        "MCP_DEFAULT_PAGE_SIZE ({default}) is larger than MCP_MAX_PAGE_SIZE ({maximum})."
    )
    assert messages["django_mcp.E003"].source == "check_settings"
    assert (messages["django_mcp.W001"].level, messages["django_mcp.W001"].source) == (
        "Warning",
        "check_deploy",
    )
    assert (messages["django_mcp.W003"].source, messages["django_mcp.E015"].source) == (
        "check_servers",
        "check_servers",
    )
    # A check reaches the helpers of the other modules of its package, and is
    # named from the package that exports it.
    w002 = messages["django_mcp.W002"]
    assert (w002.module, w002.source_module, w002.source) == (
        "django_mcp.checks._events",
        "django_mcp.checks",
        "check_deploy",
    )
    # A backend's own check() is found too, outside the checks package.
    assert messages["django_mcp.E020"].module == "django_mcp.events.redis"
    assert messages["django_mcp.E020"].source == "RedisEventBackend.check"
    assert messages["django_mcp.E020"].source_module == "django_mcp.events.redis"
    # Module constants are filled in; other values stay placeholders.
    assert "'django_mcp.events.memory.MemoryEventBackend'" in (messages["django_mcp.E008"].hint or "")
    assert messages["django_mcp.E006"].hint == (
        "[Did you mean {close[0]}? | Remove it, or see the list of django_mcp settings in the documentation.]"
    )


def test_a_check_id_missing_from_the_tables_is_reported(settings_page: Path) -> None:
    text = settings_page.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `django_mcp.W006` |"))
    _edit(settings_page, row + "\n", "")
    assert reference.check_problems(settings_page) == [
        "settings-and-checks.md: check django_mcp.W006 is in the code but not in the System checks tables"
    ]


def test_a_documented_check_id_the_code_lacks_is_reported(settings_page: Path) -> None:
    _edit(settings_page, "| `django_mcp.E003` |", "| `django_mcp.E999` |")
    assert reference.check_problems(settings_page) == [
        "settings-and-checks.md: check django_mcp.E003 is in the code but not in the System checks tables",
        "settings-and-checks.md: check django_mcp.E999 is documented but no check message in the code has it",
    ]


# ---------------------------------------------------------------- commands


def test_every_management_command_has_a_section_with_its_help() -> None:
    assert {"mcp_catalog", "mcp_prune_tasks", "mcp_stdio"} <= set(reference.command_names())
    assert reference.command_problems() == []


def test_a_command_without_a_section_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "commands.md"
    page.write_text("# Management commands\n\n## `mcp_catalog`\n\n```{mcp-command} mcp_catalog\n```\n")
    missing = [name for name in reference.command_names() if name != "mcp_catalog"]
    assert "mcp_stdio" in missing
    assert reference.command_problems(page) == [
        problem
        for name in missing
        for problem in (
            f"commands.md: command {name} has no section (## `{name}`)",
            f"commands.md: command {name} has no generated usage (```{{mcp-command}} {name})",
        )
    ]


# ----------------------------------------------------------------- modules


def test_the_api_reference_covers_exactly_the_pinned_public_modules() -> None:
    spec = importlib.util.spec_from_file_location(
        "pinned_surface", DOCS.parent / "tests" / "test_exported_members.py"
    )
    assert spec is not None and spec.loader is not None
    pinned = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pinned)
    assert reference.public_modules() == sorted(["django_mcp", *pinned.PUBLIC_MODULES])


NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def test_the_commands_page_counts_and_lists_every_command() -> None:
    commands = sorted(
        path.stem for path in (DOCS.parent / "django_mcp" / "management" / "commands").glob("mcp_*.py")
    )
    page = (DOCS / "commands.md").read_text(encoding="utf-8")
    intro = page.split("\n## ", 1)[0]

    assert f"adds {NUMBERS[len(commands)]} commands" in intro
    assert sorted(re.findall(r"^- \[`(mcp_\w+)`\]", intro, re.MULTILINE)) == commands
    assert sorted(re.findall(r"^## `(mcp_\w+)`$", page, re.MULTILINE)) == commands
