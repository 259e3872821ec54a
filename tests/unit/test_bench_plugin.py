"""`mnemo bench` is a plugin: the evaluations live in mnemo-bench (bench/evaluation), never in the runtime
package that the Lambda layer ships, and reach the `mnemo` command through the `mnemo.commands` entry points."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
from pathlib import Path

import pytest

from mnemo.entrypoints import cli

RUNTIME = Path(__file__).resolve().parents[2] / "layers" / "shared" / "mnemo"
# Where the evaluations used to live; spelled in parts so that a grep for that path finds only leftovers.
OLD_HOME = ".".join(("mnemo", "evaluation"))


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_given_the_runtime_package_then_it_holds_no_evaluation_code_and_never_imports_mnemo_bench() -> None:
    sources = sorted(RUNTIME.rglob("*.py"))
    assert sources
    culprits = {
        str(path.relative_to(RUNTIME)): sorted(
            name
            for name in imported_modules(path)
            if name.split(".")[0] == "mnemo_bench" or (name + ".").startswith(OLD_HOME + ".")
        )
        for path in sources
    }
    assert {path: names for path, names in culprits.items() if names} == {}
    assert not (RUNTIME / "evaluation").exists()
    assert importlib.util.find_spec(OLD_HOME) is None


def test_given_mnemo_bench_installed_when_bench_locomo_help_is_asked_then_the_plugin_prints_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["bench", "locomo", "--help"])

    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "usage: mnemo bench locomo" in out
    for option in ("--data", "--k", "--json", "--peer", "--peer-python", "--peer-runner"):
        assert option in out


def test_given_no_plugin_when_bench_is_asked_then_argparse_rejects_the_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **_: importlib.metadata.EntryPoints(()))

    with pytest.raises(SystemExit) as exit_:
        cli.main(["bench", "locomo", "--help"])

    assert exit_.value.code == 2
    assert "invalid choice: 'bench'" in capsys.readouterr().err


def test_given_a_plugin_that_fails_to_load_when_mnemo_runs_then_it_is_skipped_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = importlib.metadata.EntryPoint("broken", "mnemo_no_such_plugin:register", "mnemo.commands")
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **_: importlib.metadata.EntryPoints((broken,)))

    with pytest.raises(SystemExit) as exit_:
        cli.main(["reindex", "--help"])

    assert exit_.value.code == 0
    out, err = capsys.readouterr()
    assert "usage: mnemo reindex" in out
    assert "skipping the 'broken' command (mnemo_no_such_plugin:register)" in err
