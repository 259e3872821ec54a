"""Screenshots of the console's main pages for the documentation (docs/images/console/), taken the way the browser
tests drive it: `.venv/bin/python -m tests.browser.screenshots` (after `make install`). Not a test: it writes the
PNG files the docs and the README show, from a throwaway data dir with a made-up tenant."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright
from pydantic import SecretStr

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.api.app import create_app
from mnemo.composition.container import build_container
from mnemo.console.app import create_console
from mnemo.console.visits import ConsoleServices
from mnemo.domain.tenancy import Role
from mnemo.settings import Settings
from tests.browser.conftest import CHROMIUM, Clock, Console, Person, add_memory, serving_app, sign_in
from tests.conftest import CachedModelRegistry
from tests.support.console_auth_fake import FakeConsoleAuth

OUT = Path(__file__).resolve().parents[2] / "docs" / "images" / "console"
ENDED = ("succeeded", "failed")


def _profile(served: Console, owner: Person) -> None:
    """Profiles on, and alice's generated from a few more of her memories (followed through the API to its end)."""
    for text in ("I live in Lisbon since last spring", "I work as a nurse", "My hobbies are painting and chess"):
        add_memory(served, owner, text, user_id="alice")
    served.api("POST", "/v2/profiles/settings/", owner, json={"enabled": True})
    job = served.api("POST", "/v2/profiles/jobs/", owner, json={"operation": "trigger", "entity_id": "alice"}).json()
    deadline = time.monotonic() + 60
    while served.api("GET", f"/v2/profiles/jobs/{job['job_id']}/", owner).json()["job"]["status"] not in ENDED:
        assert time.monotonic() < deadline, "the profile job did not end"
        time.sleep(0.1)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as root:
        settings = Settings(
            data_dir=Path(root) / "data", jwt_secret=SecretStr("x" * 40), webhook_allow_private_urls=True
        )
        container = build_container(settings, CachedModelRegistry(LocalMiniLMEmbedder()))
        clock = Clock()
        auth = FakeConsoleAuth(container.platform.tenancy, clock=clock)
        app = create_app(container)
        app.mount("/console", create_console(ConsoleServices(platform=lambda: container.platform, auth=lambda: auth)))
        try:
            with serving_app(app) as url, sync_playwright() as driver:
                served = Console(url, container, auth, clock)
                owner = served.owner("acme")
                served.member(owner, Role.READER, "dana")
                browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1200, "height": 760})
                page.goto(served.console + "/sign-in")
                page.screenshot(path=OUT / "sign-in.png")
                sign_in(page, served, owner)
                page.screenshot(path=OUT / "organizations.png")
                for text in ("Alice is vegetarian", "Alice lives in Lisbon", "Alice plays the piano"):
                    add_memory(served, owner, text, user_id="alice")
                page.goto(served.project_url(owner, "memories") + "?q=what+does+alice+eat")
                page.screenshot(path=OUT / "memories.png")
                page.goto(served.project_url(owner, "keys"))
                page.get_by_label("Label").fill("ci runner")
                page.get_by_role("button", name="Create key").click()
                page.screenshot(path=OUT / "api-keys.png")
                page.goto(served.project_url(owner, "members"))
                page.screenshot(path=OUT / "members.png", full_page=True)
                _profile(served, owner)
                page.goto(served.project_url(owner, "profiles/user") + "?user_id=alice")
                page.screenshot(path=OUT / "profile.png")
                page.goto(served.project_url(owner, "dream"))
                page.screenshot(path=OUT / "dream.png", full_page=True)
                _webhooks_and_usage(page, served, owner)
                browser.close()
        finally:
            container.close()
    print(f"screenshots written to {OUT}")
    return 0


def _webhooks_and_usage(page: Page, served: Console, owner: Person) -> None:
    """A webhook whose receiver is down (nothing listens on port 9: its test event fails), then the usage charts."""
    page.goto(served.project_url(owner, "webhooks"))
    page.get_by_label("Name").fill("orders")
    page.get_by_label("URL").fill("http://127.0.0.1:9/hooks")
    page.get_by_label("memory_add", exact=True).check()
    page.get_by_role("button", name="Create webhook").click()
    page.get_by_role("link", name="orders").click()
    page.get_by_role("button", name="Send a test event").click()
    page.get_by_role("status").wait_for()
    page.screenshot(path=OUT / "webhooks.png", full_page=True)
    page.goto(served.project_url(owner, "usage") + "?days=7")
    page.screenshot(path=OUT / "usage.png", full_page=True)


if __name__ == "__main__":
    sys.exit(main())
