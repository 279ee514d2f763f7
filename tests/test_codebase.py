"""House rules of the code base, checked like any other behaviour.

- ``terrace/`` is sans-I/O: it imports no event loop, socket, store or outer package;
- the outer packages import inwards only: ``server/``, ``bots/`` and ``client/`` import
  ``terrace`` and never each other; ``client/`` and ``bots/`` share one client stack,
  ``link/`` (which imports only ``terrace``), and neither opens a websocket of its own;
- the code passes ``ruff`` (lint and format) and ``mypy --strict`` on ``terrace/``, ``link/``, ``server/``,
  ``bots/`` and ``client/``;
- every module says what it is for in a docstring.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
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
