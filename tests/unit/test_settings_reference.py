"""Every setting is described, and the configuration reference of the site (docs/gen/settings_reference.py) is
written from `Settings` itself: one table per concern, with each setting's variables, type, default and meaning."""

from __future__ import annotations

import pytest
from docs.gen import settings_reference
from pydantic import Field
from pydantic_settings import BaseSettings

from mnemo.settings import AuthSettings, ServerSettings, Settings
from mnemo.settings.aliases import mem0_name


def test_every_setting_has_a_description() -> None:
    assert settings_reference.undescribed(Settings) == []


def test_the_reference_has_one_table_per_concern_in_the_order_settings_lists_them() -> None:
    text = settings_reference.render()

    headings = [line for line in text.splitlines() if line.startswith("### ")]
    concerns = settings_reference.concerns(Settings)

    assert len(headings) == len(concerns) == len(Settings.__bases__)
    assert headings[0] == "### The process and its HTTP server"  # ServerSettings' docstring
    assert sum(text.count(f"`{c.__module__}.{c.__name__}`") for c in concerns) == len(concerns)


def test_every_setting_is_one_row_with_its_variable_type_default_and_meaning() -> None:
    text = settings_reference.render()
    rows = [line for line in text.splitlines() if line.startswith("| `")]

    assert len(rows) == len(Settings.model_fields)
    assert "| `MNEMO_PORT` | `int` | `8000` | The port `mnemo serve` listens on. |" in rows
    # the Mem0 server's name beside ours, a bound, and defaults that are not plain values
    assert "| `MNEMO_JWT_SECRET`, `JWT_SECRET` | `SecretStr | None` | unset |" in text
    assert "| `MNEMO_HTTP_WORKERS` | `int` (≥ 1, ≤ 32) | `1` |" in text
    assert (
        "| `MNEMO_WEBHOOK_RETRY_SCHEDULE` | `tuple[float, ...]` | `5,300,1800,7200,18000,36000,36000,36000` |" in text
    )
    assert "| `MNEMO_DATA_DIR` | `Path` | `./data` |" in text
    assert '| `MNEMO_PIN_WORKERS` | `"auto" | "true" | "false"` | `auto` |' in text


def test_a_description_is_one_safe_table_cell() -> None:
    """`<data dir>` must not be read as an HTML tag, nor a pipe end the cell; code spans stay as written."""
    assert (
        settings_reference.cell("kept in <data dir>/x, `a<b | c` | c\n  d")
        == "kept in &lt;data dir>/x, `a<b | c` \\| c d"
    )


def test_a_setting_without_a_description_is_refused() -> None:
    class Undescribed(BaseSettings):
        """A concern with one described setting and one not."""

        described: int = Field(default=1, description="Said.")
        silent: str = Field(default="x", validation_alias=mem0_name("SILENT"))

    class Assembled(Undescribed):
        """Every setting."""

    assert settings_reference.undescribed(Assembled) == ["silent"]
    with pytest.raises(settings_reference.MissingDescriptionError, match="silent"):
        settings_reference.render(Assembled)


def test_the_environment_names_follow_the_validation_alias() -> None:
    fields = {**ServerSettings.model_fields, **AuthSettings.model_fields}

    assert settings_reference.environment_names("host", fields["host"]) == ["MNEMO_HOST"]
    assert settings_reference.environment_names("admin_api_key", fields["admin_api_key"]) == [
        "MNEMO_ADMIN_API_KEY",
        "ADMIN_API_KEY",
    ]
