"""House rules of the code base, checked like any other behaviour.

- ``terrace/`` is sans-I/O: it imports no event loop, socket, store or outer package;
- the outer packages import inwards only: ``server/``, ``bots/`` and ``client/`` import
  ``terrace`` and never each other; ``client/`` and ``bots/`` share one client stack,
  ``link/`` (which imports only ``terrace``), and neither opens a websocket of its own;
- inside ``terrace/`` and ``server/`` the folders (rooms) import downwards only, in the order
  :data:`CORE_ORDER` and :data:`SERVER_ORDER` give, and no module of any package imports itself
  back through others (the import map has no circle);
- the code passes ``ruff`` (lint and format) and ``mypy --strict`` on ``terrace/``, ``link/``, ``server/``,
  ``bots/`` and ``client/``;
- every module says what it is for in a docstring, and one over 400 lines says at its top why it
  is kept whole, with its size today ("Kept as one module (about N lines): ...").
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "terrace"
FORBIDDEN_IN_CORE = {
    "asyncio", "socket", "websockets", "redis", "threading", "subprocess",
    "server", "client", "bots", "link",
}  # fmt: skip


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(CORE)))
def test_core_module_is_sans_io(path: Path) -> None:
    assert _imports(path) & FORBIDDEN_IN_CORE == set()


OUTER = {
    "link": {"server", "client", "bots"},
    "server": {"client", "bots", "link"},
    "bots": {"server", "client"},
    "client": {"server", "bots"},
}


@pytest.mark.parametrize(
    "path",
    sorted(p for pkg in OUTER for p in (ROOT / pkg).rglob("*.py")),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_outer_packages_import_only_inwards(path: Path) -> None:
    package = path.relative_to(ROOT).parts[0]
    assert _imports(path) & OUTER[package] == set()


@pytest.mark.parametrize(
    "path",
    sorted(p for pkg in ("client", "bots") for p in (ROOT / pkg).rglob("*.py")),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_client_programs_connect_only_through_the_shared_link(path: Path) -> None:
    assert "websockets" not in _imports(path)


MODULES = sorted(
    [
        *CORE.rglob("*.py"),
        *(ROOT / "benchmarks").glob("*.py"),
        *(p for pkg in OUTER for p in (ROOT / pkg).rglob("*.py")),
    ]
)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_says_what_it_is_for(path: Path) -> None:
    if path.name == "__init__.py" and not path.read_text().strip():
        return
    assert ast.get_docstring(ast.parse(path.read_text())), path


LONG = 400  # lines; a longer module says why it is kept whole
KEPT = re.compile(r"Kept as one module \(about ([\d,]+) lines\)")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_module_over_400_lines_says_at_its_top_why_it_is_kept_whole_at_its_size_today(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    if lines <= LONG:
        return
    doc = " ".join((ast.get_docstring(ast.parse(path.read_text())) or "").split())
    kept = KEPT.search(doc)
    assert kept, (
        f"{lines} lines: split it, or say in its docstring 'Kept as one module (about {lines} lines): why'"
    )
    said = int(kept.group(1).replace(",", ""))
    assert abs(said - lines) <= lines // 10, (
        f"it says about {said} lines and has {lines}: is its reason current?"
    )


# ----- the import map ---------------------------------------------------------------------

PACKAGES = ("terrace", "link", "server", "bots", "client")


def _module_files() -> dict[str, Path]:
    """Every module of our packages by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULE_FILES = _module_files()


def _imported(name: str, path: Path) -> Iterator[str]:
    """The modules of our packages that ``name`` (at ``path``) imports, anywhere in it."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - (node.level - 1)]
                base = ".".join([*up, *([node.module] if node.module else [])])
            targets = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULE_FILES:  # `from pkg import name`: the module, or pkg
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


IMPORTS = {name: set(_imported(name, path)) for name, path in MODULE_FILES.items()}


def _circle(imports: dict[str, set[str]]) -> list[str]:
    """One import circle of ``imports`` (module -> modules it imports), or []."""
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> list[str]:
        if name in trail:
            return [*trail[trail.index(name) :], name]
        if name in done:
            return []
        for imported in sorted(imports.get(name, ())):
            if found := visit(imported, [*trail, name]):
                return found
        done.add(name)
        return []

    for name in sorted(imports):
        if found := visit(name, []):
            return found
    return []


def test_the_import_map_has_no_circle() -> None:
    assert _circle(IMPORTS) == []


# Lowest first: a folder (or top-level module) may import only from its own place and those
# before it. ``__init__`` is the package's own module, which may gather from all of them.
CORE_ORDER = ["vocab", "errors", "rules", "wire", "solve", "race", "__init__"]
SERVER_ORDER = [
    "names", "config", "workers", "store", "periodic", "metrics", "collector", "players", "transport",
    "races", "handlers", "features", "app", "__main__", "__init__",
]  # fmt: skip


def _room(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _arrows_up(imports: dict[str, set[str]], package: str, order: list[str]) -> list[str]:
    return [
        f"{name} ({_room(name)}) imports {imported} ({_room(imported)})"
        for name in sorted(imports)
        if name.split(".")[0] == package
        for imported in sorted(imports[name])
        if imported.split(".")[0] == package and order.index(_room(imported)) > order.index(_room(name))
    ]


@pytest.mark.parametrize("package,order", [("terrace", CORE_ORDER), ("server", SERVER_ORDER)])
def test_the_rooms_of_the_core_and_the_server_import_only_downwards(package: str, order: list[str]) -> None:
    rooms = {_room(name) for name in MODULE_FILES if name.split(".")[0] == package}
    assert rooms == set(order), "every room has its place in the order"
    assert _arrows_up(IMPORTS, package, order) == []


def test_the_import_checks_see_an_arrow_up_and_a_circle() -> None:
    made_up = {
        "server.store.base": {"server.races.registry"},  # up: store is below races
        "server.races.registry": {"server.store.base", "server.races.driver"},
        "server.races.driver": {"server.races.registry"},
    }
    assert _arrows_up(made_up, "server", SERVER_ORDER) == [
        "server.store.base (store) imports server.races.registry (races)"
    ]
    assert _circle(made_up) == ["server.races.driver", "server.races.registry", "server.races.driver"]


def test_the_import_map_reads_absolute_relative_and_package_imports() -> None:
    assert "server.races.driver" in IMPORTS["server.races.registry"]  # from server.races.driver import
    assert "terrace.race.states" in IMPORTS["terrace.race.core"]  # from .states import
    assert "terrace.errors" in IMPORTS["terrace"]  # from .errors import, in a package's __init__
    assert "terrace.race" in IMPORTS["server.races.driver"]  # from terrace.race import Race: the package


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_lint_passes() -> None:
    r = _run("ruff", "check", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_is_applied() -> None:
    r = _run("ruff", "format", "--check", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_package_type_checks_strictly() -> None:
    r = _run("mypy")
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_tests_collected_do_not_depend_on_the_hash_seed() -> None:
    """pytest-xdist's workers each collect the suite and must find the same tests in the same
    order; each worker has its own string hash seed, so a parametrize over a set would not."""

    def collected(seed: str) -> list[str]:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        args = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider"]
        r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        return [line for line in r.stdout.splitlines() if "::" in line]

    first = collected("1")
    assert len(first) > 1000 and collected("2") == first
