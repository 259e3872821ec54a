"""Whether the local LLM is installed, and where its cache is.

Fake stamps and files stand in for the model and the runtime: nothing is downloaded or installed."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from bench.llm_local.model import write_stamp
from bench.llm_local.pins import CacheLayout, ModelPins
from bench.llm_local.runtime import node_major, node_problem, package_digest
from bench.llm_local.status import installation_status

PINS = ModelPins(package_prefix="fake-part", parts=1, version="1", sha256="a" * 64, size=5, file_name="fake.gguf")


def node_20() -> str:
    return "/usr/bin/node"


def version_20(_node: str | None) -> int:
    return 20


def install_fakes(layout: CacheLayout, *, model: bool = True, runtime: bool = True) -> None:
    if model:
        layout.model_file(PINS).parent.mkdir(parents=True)
        layout.model_file(PINS).write_bytes(b"12345")
        write_stamp(layout, PINS)
    if runtime:
        entry = layout.runtime / "node_modules" / "node-llama-cpp" / "package.json"
        entry.parent.mkdir(parents=True)
        entry.write_text("{}")
        layout.runtime_stamp.write_text(package_digest() + "\n")


def status_of(
    layout: CacheLayout,
    find_node: Callable[[], str | None] = node_20,
    node_version: Callable[[str | None], int | None] = version_20,
) -> tuple[bool, str]:
    status = installation_status(layout, PINS, find_node=find_node, node_version=node_version)
    return status.ready, status.describe()


def test_everything_in_place_is_installed(tmp_path: Path) -> None:
    layout = CacheLayout(tmp_path)
    install_fakes(layout)

    ready, described = status_of(layout)

    assert ready
    assert described == f"installed in {tmp_path}"


def test_an_empty_cache_names_everything_missing_and_the_command(tmp_path: Path) -> None:
    ready, described = status_of(CacheLayout(tmp_path))

    assert not ready
    assert "node-llama-cpp is not installed" in described
    assert "the model fake.gguf is not there or not verified" in described
    assert "`make llm-local` installs it" in described


def test_a_model_without_its_stamp_is_not_installed(tmp_path: Path) -> None:
    layout = CacheLayout(tmp_path)
    install_fakes(layout)
    layout.model_stamp(PINS).unlink()

    ready, described = status_of(layout)

    assert not ready
    assert "fake.gguf" in described


def test_a_runtime_installed_from_other_package_files_is_not_installed(tmp_path: Path) -> None:
    layout = CacheLayout(tmp_path)
    install_fakes(layout)
    layout.runtime_stamp.write_text("0" * 64 + "\n")

    ready, described = status_of(layout)

    assert not ready
    assert "node-llama-cpp is not installed" in described


def test_node_must_be_there_and_recent(tmp_path: Path) -> None:
    layout = CacheLayout(tmp_path)
    install_fakes(layout)

    assert "not on PATH" in status_of(layout, find_node=lambda: None)[1]
    assert "is not Node.js 20 or later" in status_of(layout, node_version=lambda _node: 18)[1]
    assert node_problem("/usr/bin/node", 22) is None


def answering(stdout: str, returncode: int = 0) -> Callable[..., subprocess.CompletedProcess[str]]:
    def run(command: list[str], **_options: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(command, returncode, stdout, "")

    return run


def test_node_major_reads_the_version_and_tolerates_a_node_that_does_not_answer() -> None:
    assert node_major("/usr/bin/node", answering("v20.20.2\n")) == 20
    assert node_major("/usr/bin/node", answering("v22.1.0\n")) == 22
    assert node_major("/usr/bin/node", answering("", returncode=1)) is None
    assert node_major("/usr/bin/node", answering("not a version")) is None
    assert node_major(None) is None
    assert node_major("/nonexistent/node") is None


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"MNEMO_LLM_CACHE": "/srv/llm", "XDG_CACHE_HOME": "/xdg"}, Path("/srv/llm")),
        ({"XDG_CACHE_HOME": "/xdg"}, Path("/xdg/mnemo-llm")),
        ({}, Path.home() / ".cache" / "mnemo-llm"),
    ],
)
def test_the_cache_is_outside_the_repository(environ: dict[str, str], expected: Path) -> None:
    layout = CacheLayout.from_environment(environ)

    assert layout.root == expected
    assert layout.runtime == expected / "runtime"
    assert layout.model_file(PINS) == expected / "model" / "fake.gguf"
