"""django_mcp's import graph: no cycles, and the layers of the house style.

The graph is read from the source with ``ast``, without importing anything:

* every ``import x``, ``from x import y`` and relative import is an edge,
  wherever it is written: at module level, in a class body, or inside a
  function or method (a function-local import still runs, only later);
* ``from pkg import name`` points at ``pkg.name`` when that is a module or
  package of its own, else at ``pkg``;
* imports under ``if TYPE_CHECKING:`` (or ``if typing.TYPE_CHECKING:``)
  never run and add no edge; their ``else:`` branch does;
* importing ``pkg.a.b`` also runs ``pkg/__init__`` and ``pkg/a/__init__``:
  from a module outside ``pkg.a``, that adds an edge to ``pkg.a`` when its
  ``__init__`` defines a class or function (it is then a module with code
  of its own, so a cycle through it is a real knot). An ``__init__`` that
  only re-exports gets no such edge, and neither does a package from its
  own submodules: counting those would flag every package that re-exports
  its own submodules;
* a module that imports itself adds no edge: it finds itself in
  ``sys.modules``, and a name it has not defined yet fails on first import;
* a dynamic import of a literal name (``importlib.import_module("x")``,
  ``import_module("x")``, Django's ``import_string("x.y")``, which imports
  module ``x``) is an edge like ``import x`` written in a function; one of a
  computed name cannot be seen.

A cycle is a strongly connected component of more than one module. The
layering rules (declarations and wire types never import a transport or the
dispatcher; the dispatcher never imports django.http) count every import, type-only ones
included: an annotation naming ``django.http`` still ties a module to it.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from collections import deque
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = ROOT / "django_mcp"


@dataclass(frozen=True)
class Import:
    """One imported name, as written in one module."""

    source: str
    #: The module imported (inside the package: resolved to one of its
    #: modules); outside the package, the dotted name as written.
    target: str
    path: str
    line: int
    #: Inside a function or method: runs when it is called.
    local: bool = False
    #: Under ``if TYPE_CHECKING:``: never runs.
    type_only: bool = False

    @property
    def where(self) -> str:
        """Return ``file:line``, marked when the import is not at module level."""
        notes = [note for note, on in (("in a function", self.local), ("type-only", self.type_only)) if on]
        return f"{self.path}:{self.line}" + (f" ({', '.join(notes)})" if notes else "")


#: ``source -> target -> the imports that make the edge``.
Graph = dict[str, dict[str, list[Import]]]
#: ``(import statement, local, type_only)`` as collected from one module.
_Found = list[tuple[ast.Import | ast.ImportFrom, bool, bool]]
#: The functions whose literal argument is a module (or, for
#: ``import_string``, a dotted attribute path) they import.
_DYNAMIC_IMPORTERS = {"import_module": False, "import_string": True}


def _module_names(package_dir: Path) -> dict[str, Path]:
    """Return every module of the package by dotted name (packages included)."""
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _dynamic_import(node: ast.Call) -> ast.Import | None:
    """Return ``import x`` for a call importing the literal module ``x``, else None."""
    function = node.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
    if name not in _DYNAMIC_IMPORTERS or not node.args:
        return None
    argument = node.args[0]
    if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
        return None
    module = argument.value.rpartition(".")[0] if _DYNAMIC_IMPORTERS[name] else argument.value
    if not module:
        return None
    return ast.Import(names=[ast.alias(name=module)], lineno=node.lineno, col_offset=node.col_offset)


def _collect(node: ast.AST, found: _Found, *, local: bool, type_only: bool) -> None:
    """Append ``(import node, local, type_only)`` for every import under ``node``."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        found.append((node, local, type_only))
        return
    if isinstance(node, ast.Call):
        dynamic = _dynamic_import(node)
        if dynamic is not None:
            found.append((dynamic, True, type_only))
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        for child in node.body:
            _collect(child, found, local=local, type_only=True)
        for child in node.orelse:
            _collect(child, found, local=local, type_only=type_only)
        return
    inner = local or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    for child in ast.iter_child_nodes(node):
        _collect(child, found, local=inner, type_only=type_only)


def _resolve_inside(name: str, modules: dict[str, Path]) -> str:
    """Return the longest prefix of ``name`` that is a module of the package."""
    parts = name.split(".")
    while len(parts) > 1 and ".".join(parts) not in modules:
        parts.pop()
    return ".".join(parts)


def scan_package(package_dir: Path) -> tuple[set[str], list[Import]]:
    """Return the package's module names and every import they contain."""
    root_name = package_dir.name
    modules = _module_names(package_dir)
    imports: list[Import] = []
    for module, file in modules.items():
        is_package = file.name == "__init__.py"
        current_package = module if is_package else module.rpartition(".")[0]
        relative = file.relative_to(package_dir.parent).as_posix()
        found: _Found = []
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
        _collect(tree, found, local=False, type_only=False)
        for node, local, type_only in found:
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    anchor = current_package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    candidate = f"{base}.{alias.name}"
                    inside = base == root_name or base.startswith(root_name + ".")
                    if alias.name == "*" or (inside and candidate not in modules):
                        targets.append(base)
                    else:
                        targets.append(candidate)
            for target in targets:
                if target == root_name or target.startswith(root_name + "."):
                    target = _resolve_inside(target, modules)
                imports.append(Import(module, target, relative, node.lineno, local, type_only))
    return set(modules), imports


def defines_code(path: Path) -> bool:
    """Return whether a module's top level defines a class or a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return any(isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) for node in tree.body)


def _packages_run_first(item: Import, packages_with_code: Collection[str]) -> Iterator[Import]:
    """Yield an edge to each enclosing package with code that importing ``item.target`` runs.

    The package's own submodules get none: the package is already running
    when they import one another, so no ``__init__`` runs anew for them.
    """
    parts = item.target.split(".")
    for end in range(2, len(parts)):
        package = ".".join(parts[:end])
        if package in packages_with_code and not (
            item.source == package or item.source.startswith(package + ".")
        ):
            yield Import(item.source, package, item.path, item.line, item.local, item.type_only)


def _edges(modules: set[str], imports: Iterable[Import], packages_with_code: Collection[str] = ()) -> Graph:
    """Return ``source -> target -> imports`` for the edges that run."""
    graph: Graph = {module: {} for module in modules}
    for item in imports:
        if item.type_only or item.target not in modules or item.target == item.source:
            continue
        for edge in (item, *_packages_run_first(item, packages_with_code)):
            graph[edge.source].setdefault(edge.target, []).append(edge)
    return graph


def package_graph(package_dir: Path) -> Graph:
    """Return the import graph of a package, with the edges its ``__init__`` runs add."""
    modules, imports = scan_package(package_dir)
    packages_with_code = {
        module
        for module, path in _module_names(package_dir).items()
        if path.name == "__init__.py" and defines_code(path)
    }
    return _edges(modules, imports, packages_with_code)


def strongly_connected(graph: Graph) -> list[list[str]]:
    """Return the strongly connected components (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return components


def _shortest_path(graph: Graph, start: str, goal: str, within: set[str]) -> list[str]:
    """Return the shortest path from ``start`` to ``goal`` inside ``within`` (BFS)."""
    previous: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path = [node]
            while previous[path[-1]] is not None:
                path.append(previous[path[-1]])  # type: ignore[arg-type]
            return path[::-1]
        for successor in sorted(graph[node]):
            if successor in within and successor not in previous:
                previous[successor] = node
                queue.append(successor)
    raise AssertionError(f"{goal} is not reachable from {start}")  # pragma: no cover


def cycles(graph: Graph) -> list[list[str]]:
    """Return cycles covering every edge inside a component of several modules.

    Each cycle is the shortest one through one edge, closed on its first
    module (``[a, b, a]``); rotations of a cycle already listed are dropped.
    """
    found: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()
    for component in strongly_connected(graph):
        if len(component) < 2:
            continue
        members = set(component)
        for source in component:
            for target in sorted(graph[source]):
                if target not in members:
                    continue
                loop = [source, *_shortest_path(graph, target, source, members)[:-1]]
                turn = loop.index(min(loop))
                canonical = tuple(loop[turn:] + loop[:turn])
                if canonical not in seen:
                    seen.add(canonical)
                    found.append([*canonical, canonical[0]])
    return found


def describe(graph: Graph, loop: list[str]) -> str:
    """Return a cycle as ``a -> b -> a`` followed by the file:line of each edge."""
    lines = [" -> ".join(loop)]
    for source, target in pairwise(loop):
        # One statement may import several names from the same module.
        where = ", ".join(dict.fromkeys(item.where for item in graph[source][target]))
        lines.append(f"    {source} -> {target}: {where}")
    return "\n".join(lines)


def _write_package(root: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return root / next(iter(files)).split("/")[0]


# ---------------------------------------------------------------- django_mcp


def test_django_mcp_has_no_import_cycles() -> None:
    modules, _ = scan_package(PACKAGE_DIR)
    graph = package_graph(PACKAGE_DIR)
    # Guards against a scan that finds nothing and so checks nothing.
    assert len(modules) > 20 and sum(len(targets) for targets in graph.values()) > 50
    found = cycles(graph)
    components = [component for component in strongly_connected(graph) if len(component) > 1]
    if found:
        pytest.fail(
            f"{len(components)} import cycle(s) among {sum(map(len, components))} django_mcp modules "
            f"({len(found)} cycle paths cover every edge):\n"
            + "\n".join(describe(graph, loop) for loop in found),
            pytrace=False,
        )


#: Imports of the package itself written inside a function. Each one hides an
#: edge until it runs, which is how a cycle stays unseen; the few left are
#: where Django's own order demands one (``AppConfig.ready()``).
MAX_FUNCTION_LOCAL_SELF_IMPORTS = 12


def test_django_mcp_imports_itself_inside_functions_rarely() -> None:
    _, imports = scan_package(PACKAGE_DIR)
    # One statement importing several names is one import.
    statements = {
        item.where: item
        for item in imports
        if item.local and not item.type_only and (item.target + ".").startswith(PACKAGE_DIR.name + ".")
    }
    local = list(statements.values())
    listing = "\n".join(f"    {item.source} -> {item.target}: {item.where}" for item in local)
    limit = MAX_FUNCTION_LOCAL_SELF_IMPORTS
    assert len(local) <= limit, (
        f"{len(local)} function-local imports of django_mcp (at most {limit}):\n{listing}"
    )


@dataclass(frozen=True)
class LayerRule:
    """Modules under ``under`` never import what ``forbidden`` names."""

    name: str
    under: tuple[str, ...]
    forbidden: tuple[str, ...]

    def applies_to(self, module: str) -> bool:
        return any(module == prefix or module.startswith(prefix + ".") for prefix in self.under)

    def forbids(self, target: str) -> bool:
        return any(target == prefix or target.startswith(prefix + ".") for prefix in self.forbidden)


LAYER_RULES = (
    LayerRule(
        "server and protocol never import transports or the dispatcher",
        ("django_mcp.server", "django_mcp.protocol"),
        ("django_mcp.transports", "django_mcp.dispatcher"),
    ),
    LayerRule("protocol imports nothing from Django", ("django_mcp.protocol",), ("django",)),
    LayerRule("the dispatcher never imports django.http", ("django_mcp.dispatcher",), ("django.http",)),
)


def layer_violations(rule: LayerRule, imports: Iterable[Import]) -> list[str]:
    """Return ``file:line: source imports target`` for each import ``rule`` forbids."""
    return [
        f"{item.where}: {item.source} imports {item.target}"
        for item in imports
        if rule.applies_to(item.source) and rule.forbids(item.target)
    ]


@pytest.mark.parametrize("rule", LAYER_RULES, ids=lambda rule: rule.name.replace(" ", "-"))
def test_django_mcp_keeps_its_layers(rule: LayerRule) -> None:
    modules, imports = scan_package(PACKAGE_DIR)
    # Guards against a rule that names packages renamed away and so checks nothing.
    assert any(rule.applies_to(module) for module in modules)
    violations = layer_violations(rule, imports)
    if violations:
        pytest.fail(f"{rule.name}, but:\n" + "\n".join(violations), pytrace=False)


#: What ``import django_mcp`` (the public API) must not load: serving comes after
#: Django is ready, and a server is compiled when first registered or served.
SERVING_MODULES = (
    "django_mcp.dispatcher",
    "django_mcp.transports",
    "django_mcp.tasks",
    "django_mcp.observability",
    "django_mcp._serving",
    "django_mcp.models",
    "django_mcp.server.compiler",
    "django_mcp.server._server_compiler",
)


def test_import_django_mcp_loads_the_public_api_only() -> None:
    code = "import json, sys, django_mcp; print(json.dumps(list(sys.modules)))"
    # A fresh interpreter, run from the repository root: it imports this checkout.
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    )
    loaded = [name for name in json.loads(done.stdout) if name.split(".")[0] == "django_mcp"]

    assert [name for name in loaded if name.startswith(SERVING_MODULES)] == []
    assert len(loaded) <= 40, sorted(loaded)


# ----------------------------------------------------- the scanner, on its own


def test_scanner_reports_a_cycle_as_a_path_with_each_edge_location(tmp_path: Path) -> None:
    package = _write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": "import os\n\nfrom .c import VALUE\n",
            "pkg/c.py": "import pkg.a\n\nVALUE = 1\n",
        },
    )
    graph = _edges(*scan_package(package))
    found = cycles(graph)
    assert found == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]
    assert describe(graph, found[0]) == (
        "pkg.a -> pkg.b -> pkg.c -> pkg.a\n"
        "    pkg.a -> pkg.b: pkg/a.py:1\n"
        "    pkg.b -> pkg.c: pkg/b.py:3\n"
        "    pkg.c -> pkg.a: pkg/c.py:1"
    )


def test_scanner_ignores_imports_under_type_checking_but_not_their_else(tmp_path: Path) -> None:
    package = _write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": """\
                import typing
                from typing import TYPE_CHECKING

                if TYPE_CHECKING:
                    from pkg.b import B
                if typing.TYPE_CHECKING:
                    import pkg.b
                else:
                    import pkg.c
            """,
            "pkg/b.py": "from pkg.a import A\n",
            "pkg/c.py": "",
        },
    )
    modules, imports = scan_package(package)
    graph = _edges(modules, imports)
    assert cycles(graph) == []
    assert graph["pkg.a"] == {"pkg.c": [Import("pkg.a", "pkg.c", "pkg/a.py", 9)]}
    assert [(item.target, item.line) for item in imports if item.type_only] == [("pkg.b", 5), ("pkg.b", 7)]


def test_scanner_counts_dynamic_imports_of_literal_names(tmp_path: Path) -> None:
    package = _write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": """\
                import importlib

                def job():
                    return importlib.import_module("pkg.b").run
            """,
            "pkg/b.py": """\
                from django.utils.module_loading import import_string

                def run(name):
                    import_string(name)  # computed: not seen
                    return import_string("pkg.c.VALUE")
            """,
            "pkg/c.py": "from pkg.a import job\n\nVALUE = 1\n",
        },
    )
    graph = _edges(*scan_package(package))
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]
    assert graph["pkg.a"]["pkg.b"][0].where == "pkg/a.py:4 (in a function)"
    assert graph["pkg.b"]["pkg.c"][0].where == "pkg/b.py:5 (in a function)"


def test_scanner_counts_function_local_imports(tmp_path: Path) -> None:
    package = _write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": """\
                class Handler:
                    def handle(self):
                        from .b import run

                        return run()
            """,
            "pkg/b.py": "from pkg.a import Handler\n\ndef run():\n    return Handler\n",
        },
    )
    graph = _edges(*scan_package(package))
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]
    assert graph["pkg.a"]["pkg.b"][0].where == "pkg/a.py:3 (in a function)"


def test_scanner_adds_no_edges_to_parent_packages(tmp_path: Path) -> None:
    package = _write_package(
        tmp_path,
        {
            # The package re-exports a submodule that imports a sibling.
            "pkg/__init__.py": "from pkg.sub.leaf import Leaf\n\n__all__ = ['Leaf']\n",
            "pkg/sub/__init__.py": "from . import leaf\n",
            "pkg/sub/leaf.py": "from ..util import helper\n\nclass Leaf: ...\n",
            "pkg/util.py": "def helper(): ...\n",
        },
    )
    graph = _edges(*scan_package(package))
    assert cycles(graph) == []
    assert {source: sorted(targets) for source, targets in graph.items()} == {
        "pkg": ["pkg.sub.leaf"],
        "pkg.sub": ["pkg.sub.leaf"],
        "pkg.sub.leaf": ["pkg.util"],
        "pkg.util": [],
    }


def test_scanner_adds_an_edge_to_a_parent_package_that_defines_code(tmp_path: Path) -> None:
    package = _write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            # Importing pkg.engine.parts from outside runs this __init__, which
            # defines a class and imports pkg.hooks: a knot.
            "pkg/engine/__init__.py": "from pkg.hooks import hook\n\nclass Engine: ...\n",
            "pkg/engine/parts.py": "from pkg.engine import other\n",
            "pkg/engine/other.py": "def other(): ...\n",
            "pkg/hooks.py": "def hook():\n    from pkg.engine.parts import other\n",
            # An __init__ that only re-exports adds no edge.
            "pkg/plain/__init__.py": "from pkg.plain.leaf import leaf\n",
            "pkg/plain/leaf.py": "def leaf(): ...\n",
            "pkg/user.py": "from pkg.plain.leaf import leaf\n",
        },
    )
    graph = package_graph(package)
    assert sorted(graph["pkg.hooks"]) == ["pkg.engine", "pkg.engine.parts"]
    # The package's own submodules import one another without an extra edge.
    assert sorted(graph["pkg.engine.parts"]) == ["pkg.engine.other"]
    assert sorted(graph["pkg.user"]) == ["pkg.plain.leaf"]
    assert cycles(graph) == [["pkg.engine", "pkg.hooks", "pkg.engine"]]
    # Without the __init__ edges, the knot is invisible.
    assert cycles(_edges(*scan_package(package))) == []


def test_scanner_points_a_from_import_at_the_module_or_its_package(tmp_path: Path) -> None:
    package = _write_package(
        tmp_path,
        {
            "pkg/__init__.py": "VERSION = '1'\n",
            "pkg/a.py": "from pkg import VERSION, b\nfrom . import *\nfrom django.http import HttpRequest\n",
            "pkg/b.py": "",
        },
    )
    _, imports = scan_package(package)
    assert [(item.target, item.line) for item in imports if item.source == "pkg.a"] == [
        ("pkg", 1),
        ("pkg.b", 1),
        ("pkg", 2),
        ("django.http.HttpRequest", 3),
    ]


def test_layer_rules_flag_forbidden_imports_wherever_they_are(tmp_path: Path) -> None:
    package = _write_package(
        tmp_path,
        {
            "django_mcp/__init__.py": "",
            "django_mcp/protocol/__init__.py": "from django.utils import timezone\n",
            "django_mcp/server/__init__.py": "def serve():\n    from django_mcp import transports\n",
            "django_mcp/transports/__init__.py": "",
            "django_mcp/dispatcher/__init__.py": """\
                from typing import TYPE_CHECKING

                if TYPE_CHECKING:
                    from django import http
            """,
        },
    )
    _, imports = scan_package(package)
    assert [layer_violations(rule, imports) for rule in LAYER_RULES] == [
        ["django_mcp/server/__init__.py:2 (in a function): django_mcp.server imports django_mcp.transports"],
        ["django_mcp/protocol/__init__.py:1: django_mcp.protocol imports django.utils.timezone"],
        ["django_mcp/dispatcher/__init__.py:4 (type-only): django_mcp.dispatcher imports django.http"],
    ]
