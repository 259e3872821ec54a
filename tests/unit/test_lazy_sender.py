"""The platform's webhook sender is made on its first use (mnemo.composition.lazy_sender): a process that never
checks or sends a webhook never imports the HTTP sender nor builds its TLS context, and closing it closes only what
was made."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping

from mnemo.composition.lazy_sender import LazyWebhookSender
from mnemo.ports.webhook_sender import SendResult
from tests.support.waits import seconds


class Recording:
    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.closed = 0

    def url_problem(self, url: str) -> str | None:
        self.calls.append(("url_problem", url))
        return None if url.startswith("https://") else "not https"

    def send(self, url: str, body: bytes, headers: Mapping[str, str]) -> SendResult:
        self.calls.append(("send", url, body.decode(), headers["h"]))
        return SendResult(204, None, 1.0)

    def close(self) -> None:
        self.closed += 1


def test_the_sender_is_made_once_on_first_use_and_answers_as_the_real_one() -> None:
    made: list[Recording] = []

    def make() -> Recording:
        made.append(Recording())
        return made[-1]

    sender = LazyWebhookSender(make)
    assert not sender.made and made == []

    assert sender.url_problem("http://x") == "not https"
    assert sender.send("https://x", b"{}", {"h": "v"}).status_code == 204

    assert len(made) == 1 and made[0].calls == [("url_problem", "http://x"), ("send", "https://x", "{}", "v")]


def test_closing_closes_only_a_made_sender_and_only_once() -> None:
    made: list[Recording] = []

    def make() -> Recording:
        made.append(Recording())
        return made[-1]

    unused, used = LazyWebhookSender(make), LazyWebhookSender(make)
    used.url_problem("https://x")

    unused.close()
    used.close()
    used.close()

    assert len(made) == 1 and made[0].closed == 1


def test_building_the_platform_imports_no_http_sender() -> None:
    probe = (
        "import sys\n"
        "from mnemo.composition.platform import webhook_sender\n"
        "from mnemo.settings import Settings\n"
        "sender = webhook_sender(Settings())\n"
        "assert 'mnemo.adapters.webhooks.http_sender' not in sys.modules\n"
        "assert sender.url_problem('ftp://example.com') is not None\n"
        "assert 'mnemo.adapters.webhooks.http_sender' in sys.modules and sender.made\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=seconds(120), check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
