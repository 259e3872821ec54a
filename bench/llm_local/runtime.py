"""The runtime: node-llama-cpp installed with npm into the cache, from this folder's package files.

`package.json` pins node-llama-cpp and its prebuilt CPU binary for Linux x64 as plain dependencies, and `npm ci
--omit=optional` installs exactly the lock's tree without the GPU and other-platform builds node-llama-cpp lists
as optional (about 650 MB less). Install scripts are skipped: node-llama-cpp's postinstall would only try to
download or compile llama.cpp, which the prebuilt binary makes unnecessary (and this machine cannot download).
The stamp holds the hash of the package files installed from, so a change of pin installs again.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.llm_local.pins import MIN_NODE_MAJOR, PACKAGE_FILES, CacheLayout


class RuntimeInstallError(RuntimeError):
    """The runtime cannot be installed here: no suitable Node.js or npm, another platform, or npm failed."""


def package_digest(files: Sequence[Path] = PACKAGE_FILES) -> str:
    """The SHA-256 of the package files (names and contents): what the runtime stamp remembers."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def runtime_ready(layout: CacheLayout, files: Sequence[Path] = PACKAGE_FILES) -> bool:
    """Whether `npm ci` finished for the current package files."""
    try:
        stamped = layout.runtime_stamp.read_text().strip()
    except OSError:
        return False
    entry = layout.runtime / "node_modules" / "node-llama-cpp" / "package.json"
    return stamped == package_digest(files) and entry.is_file()


def node_major(node: str | None, run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run) -> int | None:
    """The major version of `node` (`v20.1.0` -> 20), or None when it is missing or does not answer."""
    if node is None:
        return None
    try:
        answer = run([node, "--version"], capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    head = answer.stdout.strip().lstrip("v").split(".", 1)[0]
    return int(head) if answer.returncode == 0 and head.isdigit() else None


def node_problem(node: str | None, major: int | None) -> str | None:
    """What is wrong with the Node.js found, or None when it will do."""
    if node is None:
        return f"Node.js is not on PATH (version {MIN_NODE_MAJOR} or later is needed: apt-get install nodejs)"
    if major is None or major < MIN_NODE_MAJOR:
        return f"{node} is not Node.js {MIN_NODE_MAJOR} or later"
    return None


def install_runtime(layout: CacheLayout, files: Sequence[Path] = PACKAGE_FILES) -> None:
    """`npm ci` in the cache's runtime folder, unless the stamp says it is done for these package files."""
    if runtime_ready(layout, files):
        return
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise RuntimeInstallError(
            f"the pinned runtime is node-llama-cpp's prebuilt Linux x64 build; this is {platform.system()} "
            f"{platform.machine()}"
        )
    node = shutil.which("node")
    problem = node_problem(node, node_major(node))
    npm = shutil.which("npm")
    if problem or npm is None:
        raise RuntimeInstallError(problem or "npm is not on PATH")
    layout.runtime_stamp.unlink(missing_ok=True)
    layout.runtime.mkdir(parents=True, exist_ok=True)
    for path in files:
        shutil.copyfile(path, layout.runtime / path.name)
    command = [npm, "ci", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund"]
    env = {**os.environ, "NODE_LLAMA_CPP_SKIP_DOWNLOAD": "true"}
    if subprocess.run(command, cwd=layout.runtime, env=env, check=False).returncode != 0:
        raise RuntimeInstallError(f"`{' '.join(command)}` failed in {layout.runtime}")
    layout.runtime_stamp.write_text(package_digest(files) + "\n")
