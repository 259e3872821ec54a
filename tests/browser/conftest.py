"""The console in a real browser: Debian's chromium (`/usr/bin/chromium`, which `make install` puts there) driven
by Playwright without any browser download, against the whole served app (the API and the console at /console) on
a loopback port, one app per test module. The console's sign-in is the in-memory fake of its port
(tests/support/console_auth_fake.py); everything else is the real embedded platform, and each effect a test makes
in the browser is checked through the platform API.

axe-core comes from npm (pinned in package.json and package-lock.json beside this file), installed with `npm ci`
into node_modules here once per lock; its axe.min.js is evaluated in each page checked (`assert_accessible`)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Playwright, expect, sync_playwright
from pydantic import SecretStr

from mnemo.api.app import create_app
from mnemo.composition.container import Container, build_container
from mnemo.console.app import create_console
from mnemo.console.visits import ConsoleServices
from mnemo.domain.tenancy import PlatformUser, Role
from mnemo.settings import Settings
from tests.conftest import CachedModelRegistry
from tests.e2e.platform.conftest import free_port
from tests.support.console_auth_fake import FakeConsoleAuth
from tests.support.waits import seconds

CHROMIUM = Path(os.environ.get("MNEMO_CHROMIUM", "/usr/bin/chromium"))
HERE = Path(__file__).resolve().parent
AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"
AXE_STAMP = HERE / "node_modules" / ".mnemo-installed"
AXE_LOCK = HERE / ".axe-install.lock"  # beside node_modules, which `npm ci` removes
PASSWORD = "correct horse battery staple"
XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=1">'
WAIT_MS = seconds(10) * 1000  # the bound of every action and expectation: a busy machine is only slower

expect.set_options(timeout=WAIT_MS)


@dataclass
class Clock:
    """The fake sign-in's clock: a test moves it on to expire a session."""

    offset: timedelta = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset


@dataclass
class Person:
    user: PlatformUser
    email: str
    key: str  # a project key of theirs, to check effects through the API
    org_id: str
    project_id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Token {self.key}"}


@dataclass
class Console:
    """The served app: its base URL (the console is at `url`/console), its platform and its fake sign-in."""

    url: str
    container: Container
    auth: FakeConsoleAuth
    clock: Clock
    people: list[Person] = field(default_factory=list)

    @property
    def console(self) -> str:
        return self.url + "/console"

    def api(self, method: str, path: str, person: Person, **options: Any) -> httpx.Response:
        return httpx.request(method, self.url + path, headers=person.headers, timeout=seconds(10), **options)

    def owner(self, name: str = "acme") -> Person:
        """A new user with a password, who owns a new organization and its default project."""
        unique = uuid.uuid4().hex[:10]
        made = self.container.platform.tenancy.bootstrap(f"{name}-{unique}@example.com", f"{name} {unique}")
        self.auth.set_password(made.user, PASSWORD)
        return Person(made.user, made.user.email, made.api_key, made.org.id, made.project.id)

    def member(self, owner: Person, role: Role, name: str = "reader") -> Person:
        """A new user with a password, a member of `owner`'s project with `role` (and a key there)."""
        tenancy = self.container.platform.tenancy
        email = f"{name}-{uuid.uuid4().hex[:10]}@example.com"
        tenancy.bootstrap(email, f"{name}'s own")  # a known user: an unknown email added is only invited
        tenancy.add_project_member(owner.org_id, owner.project_id, owner.user, email, role.value)
        user = next(
            m.user for m in tenancy.project_members(owner.org_id, owner.project_id, owner.user) if m.user.email == email
        )
        self.auth.set_password(user, PASSWORD)
        key = tenancy.create_key(owner.org_id, owner.project_id, owner.user, email, "checks").value
        return Person(user, email, key, owner.org_id, owner.project_id)

    def project_url(self, person: Person, section: str = "") -> str:
        return f"{self.console}/orgs/{person.org_id}/projects/{person.project_id}/{section}"


@contextmanager
def serving_app(app: Any) -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + seconds(30)
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=seconds(15))


@pytest.fixture(scope="module")
def served(embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    container = build_container(
        Settings(
            data_dir=tmp_path_factory.mktemp("console") / "data",
            jwt_secret=SecretStr("x" * 40),
            argon2_memory_kib=64,
            argon2_time_cost=1,
        ),
        CachedModelRegistry(embedder),
    )
    clock = Clock()
    auth = FakeConsoleAuth(container.platform.tenancy, clock=clock)
    app = create_app(container)
    app.mount("/console", create_console(ConsoleServices(platform=lambda: container.platform, auth=lambda: auth)))
    try:
        with serving_app(app) as url:
            yield Console(url, container, auth, clock)
    finally:
        container.close()


def _chromium() -> Path:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the console's browser tests drive Debian's chromium. `make install` installs it "
            "(apt-get install -y chromium); MNEMO_CHROMIUM names another.",
            pytrace=False,
        )
    return CHROMIUM


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    launched = playwright.chromium.launch(executable_path=str(_chromium()), args=["--no-sandbox"])
    try:
        yield launched
    finally:
        launched.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser profile (no cookie) for one test."""
    made = browser.new_context()
    made.set_default_timeout(WAIT_MS)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()


def sign_in(page: Page, served: Console, person: Person, to: str = "/") -> None:
    page.goto(f"{served.console}/sign-in?next={to}")
    page.get_by_label("Email").fill(person.email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Sign out").wait_for()


def csrf_of(page: Page) -> str:
    value = page.locator("input[name=csrf_token]").first.get_attribute("value")
    assert value
    return value


def assert_no_script_ran(page: Page) -> None:
    assert page.evaluate("() => window.__xss") is None


def _lock_digest() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json", ".npmrc"):
        digest.update((HERE / name).read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe.min.js, installed from the lock (`npm ci`) when missing or the lock changed. Under a lock file, since
    each xdist worker asks: `npm ci` empties node_modules first, so a second install beside a finished one would
    take the file away from the worker about to read it."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not on PATH: the console's accessibility check installs axe-core with it.", pytrace=False)
    wanted = _lock_digest()
    with AXE_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not AXE.exists() or not AXE_STAMP.exists() or AXE_STAMP.read_text() != wanted:
            installed = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"],
                cwd=HERE,
                env={**os.environ, "npm_config_cache": str(HERE / ".npm-cache")},
                capture_output=True,
                text=True,
                timeout=seconds(240),
                check=False,
            )
            if installed.returncode != 0:
                pytest.fail(f"npm ci failed in {HERE}:\n{installed.stdout}\n{installed.stderr}", pytrace=False)
            AXE_STAMP.write_text(wanted)
        return AXE.read_text()


SERIOUS = """async () => {
  const result = await axe.run(document);
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}"""


@pytest.fixture
def assert_accessible(axe_source: str) -> Callable[[Page], None]:
    """Runs axe-core in the page (evaluated through the browser's debugging protocol, which the page's CSP does not
    govern) and fails on any violation of severity serious or critical."""

    def check(page: Page) -> None:
        page.evaluate(axe_source)
        violations = page.evaluate(SERIOUS)
        assert violations == [], f"{page.url}: {violations}"

    return check


def tab_to(page: Page, locator: Locator, limit: int = 40) -> None:
    """Press Tab until `locator` has the focus (a failure after `limit` presses): how a keyboard user gets there."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if locator.evaluate("(element) => element === document.activeElement"):
            return
    raise AssertionError(f"Tab never reached {locator}")


def add_memory(served: Console, person: Person, text: str, **scope: Any) -> str:
    """A memory stored as said (infer false: no LLM), through the API; its id."""
    body = {"messages": [{"role": "user", "content": text}], "infer": False, **scope}
    answer = served.api("POST", "/v1/memories/", person, json=body)
    assert answer.status_code == 200, answer.text
    found = answer.json()
    results = found["results"] if isinstance(found, dict) else found
    assert results, answer.text
    return str(results[0]["id"])


def event_status(served: Console, person: Person, event_id: str, until: Callable[[str], bool]) -> str:
    """The event's status once `until` holds for it, polled through the API (a deadline, never a fixed wait)."""
    deadline = time.monotonic() + seconds(60)
    while True:
        status = str(served.api("GET", f"/v1/event/{event_id}/", person).json()["status"])
        if until(status):
            return status
        assert time.monotonic() < deadline, f"event {event_id} still {status}"
        time.sleep(0.02)
