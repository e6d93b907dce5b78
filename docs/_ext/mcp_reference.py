"""What the reference pages must cover, read from the package's own source.

One place answers "what is there to document" and "does the page say so",
for both the Sphinx build (``mcp_docs`` turns every problem into a build
warning, so ``-W`` fails) and the test suite (``tests/docs/test_reference.py``
asserts there are none, with or without Sphinx installed):

* settings: every key of ``django_mcp.conf.DEFAULTS`` has a heading under
  "Every setting" in ``docs/settings-and-checks.md``, followed by the line
  ``Type `int` · Default `50` · Unit items · Since 0.1.0``, whose Default is
  that value, whose Type accepts it, whose Unit is given for numbers and
  whose Since is a released or upcoming version;
* system checks: every ``django_mcp.E…``/``W…`` id that a check message in
  the package carries (found in the source, so a check cannot be missed)
  has a row in the tables of "System checks", and every message has a hint;
* management commands: every command module has a section in
  ``docs/commands.md`` with its generated usage (the ``mcp-command``
  directive).

This module imports nothing from Sphinx.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pkgutil
import re
import string
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "CheckMessage",
    "DocumentedSetting",
    "check_messages",
    "check_problems",
    "command_names",
    "command_problems",
    "documented_check_ids",
    "documented_settings",
    "public_modules",
    "reference_problems",
    "release",
    "settings_problems",
]

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = ROOT / "django_mcp"
DOCS = ROOT / "docs"
SETTINGS_PAGE = DOCS / "settings-and-checks.md"
COMMANDS_PAGE = DOCS / "commands.md"

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"`([^`]+)`")
_CHECK_ID = re.compile(r"\bdjango_mcp\.[EWCI]\d{3}\b")
_VERSION = re.compile(r"^\d+\.\d+(?:\.\d+)?$")
#: Level of a message by the django.core.checks class that builds it (the
#: package imports ``Warning`` as ``CheckWarning`` to keep the builtin).
_LEVELS = {
    "Critical": "Critical",
    "Error": "Error",
    "Warning": "Warning",
    "CheckWarning": "Warning",
    "Info": "Info",
    "Debug": "Debug",
}

#: Values that carry a check id to the check that reports them, with the
#: level that check gives them: their fields are ``(check_id, message, hint)``.
_PROBLEMS = {"SkillProblem": "Error"}


def release() -> str:
    """Return the package version declared in ``pyproject.toml``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return str(project["version"])


def public_modules() -> list[str]:
    """Return every public module of django_mcp: no part of its path starts with ``_``."""
    import django_mcp

    found = ["django_mcp"]
    for info in pkgutil.walk_packages(django_mcp.__path__, "django_mcp."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.append(info.name)
    return sorted(found)


# ---------------------------------------------------------------- tables


def _section_lines(page: Path, heading: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, line)`` of the ``## heading`` section, outside code blocks."""
    inside = False
    fence: str | None = None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        opening = _FENCE.match(line)
        if fence is not None:
            if line.strip() == fence:
                fence = None
            continue
        if opening is not None:
            fence = opening.group(1)
            continue
        if line.startswith("## "):
            inside = line[3:].strip() == heading
            continue
        if inside:
            yield number, line


def _cells(line: str) -> list[str]:
    """Split a Markdown table row into its cells (``\\|`` stays inside a cell)."""
    body = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", body)]


def _table_rows(page: Path, heading: str, first_column: str) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield each row of the tables in a section whose first header is ``first_column``."""
    header: list[str] | None = None
    for number, line in _section_lines(page, heading):
        if not line.lstrip().startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if header is None:
            header = cells if cells[0] == first_column else []
            continue
        if not header or set("".join(cells)) <= set("-: "):
            continue
        yield number, dict(zip(header, cells, strict=False))


# -------------------------------------------------------------- settings


@dataclasses.dataclass(frozen=True)
class DocumentedSetting:
    """One setting of the settings reference, as the page describes it."""

    name: str
    type: str
    default: str
    unit: str
    since: str
    line: int


def _first_code(cell: str) -> str | None:
    match = _CODE_SPAN.search(cell)
    return match.group(1) if match else None


#: The line under a setting's heading: ``Type `int` · Default `50` ·
#: Unit items · Since 0.1.0`` (Unit only for numbers).
_SETTING_FACTS = re.compile(
    r"^Type (?P<type>`[^`]+`) · Default (?P<default>.+?)(?: · Unit (?P<unit>.+?))? · Since (?P<since>\S+)$"
)
_SETTING_HEADING = re.compile(r"^#{3,6} `(?P<name>MCP_\w+)`\s*$")


def documented_settings(page: Path = SETTINGS_PAGE) -> list[DocumentedSetting]:
    """Return the settings described under "Every setting", one per heading.

    A setting is a heading ``#### `MCP_NAME``` followed by the line of its
    facts (see ``_SETTING_FACTS``); a heading without that line is returned
    with empty facts, which ``settings_problems`` reports.
    """
    rows: list[DocumentedSetting] = []
    pending: tuple[str, int] | None = None
    for number, line in _section_lines(page, "Every setting"):
        heading = _SETTING_HEADING.match(line)
        if heading is not None or (pending and line.startswith("#")):
            if pending is not None:
                rows.append(DocumentedSetting(pending[0], "", "", "", "", pending[1]))
            pending = (heading["name"], number) if heading is not None else None
            continue
        if pending is None or not line.strip():
            continue
        facts = _SETTING_FACTS.match(line.strip())
        rows.append(
            DocumentedSetting(
                name=pending[0],
                type=(_first_code(facts["type"]) or "") if facts else "",
                default=facts["default"] if facts else "",
                unit=(facts["unit"] or "") if facts else "",
                since=facts["since"] if facts else "",
                line=pending[1],
            )
        )
        pending = None
    if pending is not None:
        rows.append(DocumentedSetting(pending[0], "", "", "", "", pending[1]))
    return rows


def _accepts(node: ast.expr, value: Any) -> bool:
    """Return True if ``value`` is of the annotation ``node`` (a small subset of typing)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _accepts(node.left, value) or _accepts(node.right, value)
    if isinstance(node, ast.Constant) and node.value is None:
        return value is None
    if isinstance(node, ast.Name):
        simple: dict[str, Any] = {
            "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "float": lambda v: isinstance(v, float),
            "str": lambda v: isinstance(v, str),
            "bool": lambda v: isinstance(v, bool),
            "list": lambda v: isinstance(v, list),
            "tuple": lambda v: isinstance(v, tuple),
            "dict": lambda v: isinstance(v, dict),
            "Callable": callable,
            "Any": lambda v: True,
        }
        if node.id not in simple:
            raise ValueError(f"unknown type name {node.id!r}")
        return bool(simple[node.id](value))
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        outer, inner = node.value.id, node.slice
        if outer in ("list", "tuple"):
            items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            item = items[0]
            kind = list if outer == "list" else tuple
            return isinstance(value, kind) and all(_accepts(item, element) for element in value)
        if outer == "dict" and isinstance(inner, ast.Tuple) and len(inner.elts) == 2:
            key, item = inner.elts
            return isinstance(value, dict) and all(
                _accepts(key, k) and _accepts(item, v) for k, v in value.items()
            )
        if outer == "Callable":
            return callable(value)
    raise ValueError(f"unsupported annotation {ast.unparse(node)!r}")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def settings_problems(page: Path = SETTINGS_PAGE) -> list[str]:
    """Return how the settings reference differs from ``django_mcp.conf.DEFAULTS``."""
    from django_mcp.conf import DEFAULTS

    where = page.name
    problems: list[str] = []
    rows = documented_settings(page)
    seen: dict[str, int] = {}
    for row in rows:
        if row.name in seen:
            problems.append(
                f"{where}:{row.line}: {row.name} is documented twice (also line {seen[row.name]})"
            )
        seen[row.name] = row.line
    for name in DEFAULTS:
        if name not in seen:
            problems.append(
                f"{where}: setting {name} (django_mcp.conf.DEFAULTS) is not documented under "
                f"'Every setting' (a heading #### `{name}`, then its Type/Default/Unit/Since line)"
            )
    for row in rows:
        at = f"{where}:{row.line}: {row.name}"
        if row.name not in DEFAULTS:
            problems.append(f"{at} is documented but is not a key of django_mcp.conf.DEFAULTS")
            continue
        if not row.type:
            problems.append(
                f"{at}: the heading needs the line 'Type `...` · Default `...` · Unit ... · Since x.y.z' "
                "after it (Unit only for numbers)"
            )
            continue
        problems += _setting_problems(row, DEFAULTS[row.name], at)
    return problems


def _setting_problems(row: DocumentedSetting, default: Any, at: str) -> list[str]:
    problems = []
    literal = _first_code(row.default)
    try:
        documented = ast.literal_eval(literal) if literal is not None else ...
    except (ValueError, SyntaxError):
        documented = ...
    if documented is ... or type(documented) is not type(default) or documented != default:
        problems.append(f"{at}: Default says {row.default!r}, the code's default is {default!r}")
    try:
        accepted = _accepts(ast.parse(row.type, mode="eval").body, default)
    except (ValueError, SyntaxError) as exc:
        problems.append(f"{at}: Type {row.type!r} is not a type this reference knows ({exc})")
    else:
        if not accepted:
            problems.append(f"{at}: Type {row.type!r} does not accept the default {default!r}")
    numeric = isinstance(default, int | float) and not isinstance(default, bool)
    if numeric and row.unit in ("", "—", "-"):
        problems.append(f"{at}: a number needs its unit (bytes, seconds, items, ...)")
    if not _VERSION.match(row.since):
        problems.append(f"{at}: Since {row.since!r} is not a version such as 0.1.0")
    elif _version(row.since) > _version(release()):
        problems.append(f"{at}: Since {row.since} is later than this release ({release()})")
    return problems


# ---------------------------------------------------------------- checks


@dataclasses.dataclass(frozen=True)
class CheckMessage:
    """A system check message as the source builds it.

    ``message`` and ``hint`` are templates: ``{expression}`` stands for a
    value filled in when the check runs, ``[a | b]`` for one of two texts.
    """

    id: str
    level: str
    message: str
    hint: str | None
    module: str
    line: int
    #: The function that reports it: a registered check (``check_settings``)
    #: when one reaches it, else the method that builds it (an event
    #: backend's ``check()``, which ``check_settings`` calls).
    source: str = ""
    #: The module ``source`` is imported from: the public package of a
    #: registered check (``django_mcp.checks``), else ``module``.
    source_module: str = ""


@dataclasses.dataclass(frozen=True)
class _Scope:
    """Names a message template may use: module constants and local texts."""

    constants: dict[str, str]
    locals: dict[str, list[ast.expr]]


#: The names a message's text is marked for translation with: ``_("...")``.
_GETTEXT = frozenset({"_", "gettext", "gettext_lazy"})


def _translated(node: ast.expr) -> ast.expr | None:
    """Return the text of ``_("...")``, or None for another expression."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _GETTEXT
        and len(node.args) == 1
    ):
        return node.args[0]
    return None


def _formatted(node: ast.expr) -> tuple[ast.expr, dict[str, ast.expr]] | None:
    """Return the template and keywords of ``<text>.format(name=value, ...)``, or None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and not node.args
        and _is_text(node.func.value)
    ):
        return node.func.value, {str(keyword.arg): keyword.value for keyword in node.keywords}
    return None


def _is_text(node: ast.expr) -> bool:
    """Return True for an expression that builds a string from literals."""
    inner = _translated(node)
    if inner is not None:
        return _is_text(inner)
    if _formatted(node) is not None:
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _is_text(node.left) or _is_text(node.right)
    if isinstance(node, ast.IfExp):
        return _is_text(node.body) and _is_text(node.orelse)
    return False


def _module_constants(tree: ast.Module) -> dict[str, str]:
    constants = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            constants[target.id] = value.value
    return constants


def _local_texts(function: ast.AST | None) -> dict[str, list[ast.expr]]:
    """Map each local name only ever assigned texts to those texts."""
    texts: dict[str, list[ast.expr]] = {}
    others: set[str] = set()
    if function is None:
        return texts
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            (texts.setdefault(name, []).append(node.value) if _is_text(node.value) else others.add(name))
    return {name: values for name, values in texts.items() if name not in others}


def _template(node: ast.expr, scope: _Scope) -> str:
    """Return the text ``node`` builds, with ``{expression}`` for run-time values."""
    inner = _translated(node)
    if inner is not None:
        return _template(inner, scope)
    formatted = _formatted(node)
    if formatted is not None:
        text, values = formatted
        return "".join(
            _field(literal, field, values, scope) for literal, field in _fields(_template(text, scope))
        )
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_template(part, scope) for part in node.values)
    if isinstance(node, ast.FormattedValue):
        value = node.value
        if isinstance(value, ast.Name) and value.id in scope.constants:
            constant = scope.constants[value.id]
            return repr(constant) if node.conversion == ord("r") else constant
        if isinstance(value, ast.IfExp | ast.Name):
            return _template(value, scope)
        return "{" + ast.unparse(value) + "}"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _template(node.left, scope) + _template(node.right, scope)
    if isinstance(node, ast.IfExp):
        return f"[{_template(node.body, scope)} | {_template(node.orelse, scope)}]"
    if isinstance(node, ast.Name) and node.id in scope.locals:
        texts = [_template(value, scope) for value in scope.locals[node.id]]
        return texts[0] if len(texts) == 1 else "[" + " | ".join(texts) + "]"
    return "{" + ast.unparse(node) + "}"


def _fields(text: str) -> list[tuple[str, tuple[str, str | None, str] | None]]:
    """Split a ``str.format`` template into literal texts and ``(name, conversion, spec)`` fields."""
    parts: list[tuple[str, tuple[str, str | None, str] | None]] = []
    for literal, name, spec, conversion in string.Formatter().parse(text):
        parts.append((literal, None))
        if name is not None:
            parts.append(("", (name, conversion, spec or "")))
    return parts


def _field(
    literal: str, field: tuple[str, str | None, str] | None, values: dict[str, ast.expr], scope: _Scope
) -> str:
    """Return one part of a ``.format()`` template: a literal, or the value of a field as in an f-string."""
    if field is None:
        return literal
    name, conversion, _spec = field
    value = values.get(name)
    if value is None:
        return "{" + name + "}"
    as_fstring = ast.FormattedValue(
        value=value, conversion=ord(conversion) if conversion else -1, format_spec=None
    )
    return _template(as_fstring, scope)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_registered(function: ast.FunctionDef) -> bool:
    """Return True for a function decorated with ``@register(...)`` (a system check)."""
    for decorator in function.decorator_list:
        call = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(call, ast.Name | ast.Attribute) and ast.unparse(call).endswith("register"):
            return True
    return False


def _reporters(trees: dict[str, ast.Module]) -> dict[tuple[str, str], tuple[str, str]]:
    """Map each ``(module, function)`` to the registered check that calls it.

    A check calls helpers of its own module and, by the names it imports
    from them, of the other modules of its package (``django_mcp.checks``
    has one module per topic); a function elsewhere that a check reaches
    (the compiler, which builds the skill problems) keeps its own name.
    """
    functions = {
        (module, node.name): node
        for module, tree in trees.items()
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }
    imported = {
        (module, alias.asname or alias.name): (node.module, alias.name)
        for module, tree in trees.items()
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("django_mcp")
        for alias in node.names
    }
    reporters: dict[tuple[str, str], tuple[str, str]] = {}
    for key, function in functions.items():
        if not _is_registered(function):
            continue
        package = _public_module(key[0]) + "."
        pending = [key]
        while pending:
            current = pending.pop()
            if current in reporters:
                continue
            reporters[current] = key
            module = current[0]
            for node in ast.walk(functions[current]):
                if not isinstance(node, ast.Name):
                    continue
                callee = (
                    (module, node.id) if (module, node.id) in functions else imported.get((module, node.id))
                )
                if (
                    callee in functions
                    and callee not in reporters
                    and (callee[0] == key[0] or callee[0].startswith(package))
                ):
                    pending.append(callee)
    return reporters


def _public_module(module: str) -> str:
    """Return the public package a private module's registered checks are imported from.

    ``django_mcp.checks._settings.check_settings`` is documented as
    ``django_mcp.checks.check_settings``, which re-exports it.
    """
    parts = module.split(".")
    while len(parts) > 1 and parts[-1].startswith("_"):
        parts.pop()
    return ".".join(parts)


def _enclosing(tree: ast.Module) -> dict[int, tuple[str, ast.AST]]:
    """Map the id of every node to the qualified name and node of its innermost definition."""
    owners: dict[int, tuple[str, ast.AST]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                for inner in ast.walk(child):
                    owners[id(inner)] = (name, child)  # nested definitions overwrite it below
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return owners


def check_messages() -> list[CheckMessage]:
    """Return every check message the package builds with a constant ``id``.

    A ``SkillProblem(check_id, message, hint)`` counts as one: the check that
    catches its ``SkillError`` reports it under that id.
    """
    trees = {
        _module_name(path): ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for path in sorted(PACKAGE_DIR.rglob("*.py"))
    }
    reporters = _reporters(trees)
    found = []
    for module, tree in trees.items():
        owners = _enclosing(tree)
        constants = _module_constants(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func).rsplit(".", 1)[-1]  # Error, checks.Error, ...
            keywords = {keyword.arg: keyword.value for keyword in node.keywords}
            if name in _PROBLEMS:
                fields = dict(zip(("check_id", "message", "hint"), node.args, strict=False)) | keywords
                check_id, message, hint = fields.get("check_id"), fields.get("message"), fields.get("hint")
                level = _PROBLEMS[name]
            elif name in _LEVELS:
                check_id = keywords.get("id")
                message = node.args[0] if node.args else keywords.get("msg")
                hint = keywords.get("hint")
                level = _LEVELS[name]
            else:
                continue
            if not (
                isinstance(check_id, ast.Constant)
                and isinstance(check_id.value, str)
                and check_id.value.startswith("django_mcp.")
            ):
                continue
            owner, function = owners.get(id(node), ("", None))
            reporter = reporters.get((module, owner))
            scope = _Scope(constants=constants, locals=_local_texts(function))
            found.append(
                CheckMessage(
                    id=check_id.value,
                    level=level,
                    message=_template(message, scope) if message is not None else "",
                    hint=_template(hint, scope) if hint is not None else None,
                    module=module,
                    line=node.lineno,
                    source=reporter[1] if reporter else owner,
                    source_module=_public_module(reporter[0]) if reporter else module,
                )
            )
    return sorted(found, key=lambda message: (message.id, message.module, message.line))


def _ids_in_source() -> set[str]:
    """Return every check id written anywhere in the package's source."""
    ids: set[str] = set()
    for path in PACKAGE_DIR.rglob("*.py"):
        ids.update(_CHECK_ID.findall(path.read_text(encoding="utf-8")))
    return ids


def documented_check_ids(page: Path = SETTINGS_PAGE) -> list[str]:
    """Return the ids of the rows of the tables under "System checks"."""
    return [
        _first_code(row.get("ID", "")) or row.get("ID", "")
        for _, row in _table_rows(page, "System checks", "ID")
    ]


def check_problems(page: Path = SETTINGS_PAGE) -> list[str]:
    """Return how the system checks tables differ from the checks in the code."""
    where = page.name
    messages = check_messages()
    in_code = {message.id for message in messages}
    documented = documented_check_ids(page)
    problems = [
        f"{where}: check {check_id} is in the code but not in the System checks tables"
        for check_id in sorted(in_code - set(documented))
    ]
    problems += [
        f"{where}: check {check_id} is documented but no check message in the code has it"
        for check_id in sorted(set(documented) - in_code)
    ]
    problems += [
        f"{where}: check {check_id} is listed twice"
        for check_id in sorted(set(documented))
        if documented.count(check_id) > 1
    ]
    problems += [
        f"{message.module}:{message.line}: check {message.id} has no hint"
        for message in messages
        if not message.hint
    ]
    problems += [
        f"django_mcp: {check_id} is named in the source but no check message is built with it "
        "as a constant id= (the reference cannot list it)"
        for check_id in sorted(_ids_in_source() - in_code)
    ]
    return problems


# -------------------------------------------------------------- commands


def command_names() -> list[str]:
    """Return the names of django_mcp's management commands."""
    folder = PACKAGE_DIR / "management" / "commands"
    return sorted(path.stem for path in folder.glob("*.py") if not path.stem.startswith("_"))


def command_problems(page: Path = COMMANDS_PAGE) -> list[str]:
    """Return the commands that ``docs/commands.md`` does not document."""
    text = page.read_text(encoding="utf-8")
    problems = []
    for name in command_names():
        importlib.import_module(f"django_mcp.management.commands.{name}")
        if not re.search(rf"^## `{re.escape(name)}`\s*$", text, re.MULTILINE):
            problems.append(f"{page.name}: command {name} has no section (## `{name}`)")
        if not re.search(rf"^```\{{mcp-command\}}\s+{re.escape(name)}\s*$", text, re.MULTILINE):
            problems.append(f"{page.name}: command {name} has no generated usage (```{{mcp-command}} {name})")
    return problems


def reference_problems() -> list[str]:
    """Return every way the reference pages fall behind the code."""
    return [*settings_problems(), *check_problems(), *command_problems()]
