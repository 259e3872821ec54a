"""The package's size limits, kept by `make test`: no module under `layers/shared/mnemo` passes 500 lines, no class
300, and no function or method passes radon's complexity rank C (cyclomatic complexity above 20). A module or class
that has a reason to be larger is listed in `EXCEPTIONS` below, with the reason, so the list is the one place to
read them; an entry that no longer needs to be there fails too, so the list cannot go stale."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from radon.complexity import cc_visit

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "shared" / "mnemo"
MODULE_LINES = 500
CLASS_LINES = 300
COMPLEXITY = 20  # radon's rank C ends at 20; D and worse fail

# "relative/path.py" or "relative/path.py::Class": why it may be larger than the limit.
EXCEPTIONS: dict[str, str] = {}


@dataclass(frozen=True)
class Excess:
    where: str
    size: int
    limit: int

    def __str__(self) -> str:
        return f"{self.where}: {self.size} (limit {self.limit})"


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def name_of(path: Path, root: Path = PACKAGE) -> str:
    return path.relative_to(root).as_posix()


def long_modules(paths: list[Path], root: Path = PACKAGE) -> list[Excess]:
    counted = ((name_of(p, root), len(p.read_text(encoding="utf-8").splitlines())) for p in paths)
    return [Excess(name, lines, MODULE_LINES) for name, lines in counted if lines > MODULE_LINES]


def long_classes(name: str, source: str) -> list[Excess]:
    classes = (node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ClassDef))
    sized = ((f"{name}::{c.name}", (c.end_lineno or c.lineno) - c.lineno + 1) for c in classes)
    return [Excess(where, lines, CLASS_LINES) for where, lines in sized if lines > CLASS_LINES]


def complex_blocks(name: str, source: str) -> list[Excess]:
    return [
        Excess(f"{name}::{block.fullname}", block.complexity, COMPLEXITY)
        for block in cc_visit(source)
        if block.complexity > COMPLEXITY
    ]


def excesses() -> list[Excess]:
    paths = modules()
    found = long_modules(paths)
    for path in paths:
        source = path.read_text(encoding="utf-8")
        found += long_classes(name_of(path), source)
        found += complex_blocks(name_of(path), source)
    return found


def test_no_module_class_or_function_passes_its_limit_unless_listed() -> None:
    unlisted = [str(e) for e in excesses() if e.where not in EXCEPTIONS]
    assert unlisted == []


def test_every_listed_exception_is_still_needed() -> None:
    needed = {e.where for e in excesses()}
    assert sorted(set(EXCEPTIONS) - needed) == []


def test_the_limits_catch_a_long_module_a_long_class_and_a_complex_function(tmp_path: Path) -> None:
    long_module = tmp_path / "long.py"
    long_module.write_text("x = 1\n" * (MODULE_LINES + 1), encoding="utf-8")
    body = "".join(f"    a{i} = {i}\n" for i in range(CLASS_LINES))
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(COMPLEXITY))

    assert [e.size for e in long_modules([long_module], tmp_path)] == [MODULE_LINES + 1]
    assert [e.where for e in long_classes("m.py", f"class Big:\n{body}")] == ["m.py::Big"]
    assert long_classes("m.py", "class Small:\n    a = 1\n") == []
    assert [e.size for e in complex_blocks("m.py", f"def f(x):\n{branches}    return -1\n")] == [COMPLEXITY + 1]
    assert complex_blocks("m.py", "def g(x):\n    return x\n") == []
