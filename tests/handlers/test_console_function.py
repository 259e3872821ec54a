"""The console's function, invoked as Lambda invokes it: functions/console/app.py's handler with API Gateway HTTP API
events (payload 2.0, built from the samples of events/console/), through Powertools, Mangum and the console's
pages, over the platform's services on the moto-backed DynamoDB stores (the console's accounts and sessions in the
accounts table). The owner is bootstrapped as `mnemo platform bootstrap` does, signs in, visits every page, is
refused a post without its CSRF token, and signs out. The tests run in file order, as one visit.
"""

from __future__ import annotations

import base64
import copy
import importlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlencode

import pytest
from markupsafe import escape
from moto import mock_aws

from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.composition.container import Container, build_container
from mnemo.language.en import english
from mnemo.ports.memory_index import MemoryIndex
from mnemo.services.platform.features import PlatformFeatures
from mnemo.services.platform.tenancy.callers import Bootstrapped
from tests.support.lambda_aws import (
    EVENTS,
    BedrockAsLocalCatalog,
    FakeLambdaContext,
    create_stack,
    environment,
    load_event,
)

EMAIL = "olive@acme.example"
PASSWORD = "a long console passphrase 42"
ORG = 'Acme <b>Labs</b> & <img src=x onerror="alert(1)">'
PROJECT = "Research <script>alert(2)</script>"
SECTIONS = ("keys", "members", "memories", "settings", "entities", "events", "webhooks", "profiles", "dream", "usage")


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    cookies: list[str]
    body: str


@dataclass
class Browser:
    """A browser of the console on AWS: each request an API Gateway event to the console's handler, with the
    cookies the answers set, as API Gateway passes them (`cookies`), and form bodies base64-encoded as it does."""

    function: ModuleType
    owner: Bootstrapped
    jar: dict[str, str] = field(default_factory=dict)

    def platform(self) -> PlatformFeatures:
        container: Container = self.function.entry.function.container.get()
        assert container.platform is not None
        return container.platform

    def get(self, path: str) -> Answer:
        return self._send(load_event("console/home"), "GET", path)

    def post(self, path: str, form: dict[str, str]) -> Answer:
        event = load_event("console/sign_out")
        event["body"] = base64.b64encode(urlencode(form).encode()).decode()
        event["isBase64Encoded"] = True
        return self._send(event, "POST", path)

    def _send(self, sample: dict[str, Any], method: str, path: str) -> Answer:
        event = copy.deepcopy(sample)
        route = "/console" if path == "/console" else "/console/{proxy+}"
        event["rawPath"] = event["requestContext"]["http"]["path"] = path
        event["routeKey"] = event["requestContext"]["routeKey"] = f"{method} {route}"
        event["requestContext"]["http"]["method"] = method
        event["cookies"] = [f"{name}={value}" for name, value in self.jar.items()]
        raw = self.function.handler(event, FakeLambdaContext(function_name="console"))
        cookies: list[str] = raw.get("cookies") or []
        for cookie in cookies:
            name, _, rest = cookie.partition("=")
            value = rest.split(";", 1)[0]
            if value in ("", '""') or "max-age=0" in cookie.lower():
                self.jar.pop(name, None)
            else:
                self.jar[name] = value
        headers = {k.lower(): v for k, v in (raw.get("headers") or {}).items()}
        return Answer(int(raw["statusCode"]), headers, cookies, raw.get("body") or "")

    @property
    def project_path(self) -> str:
        return f"/console/orgs/{self.owner.org.id}/projects/{self.owner.project.id}"


def escaped(text: str) -> str:
    """The text as the console's templates show it (Jinja2's autoescape)."""
    return str(escape(text))


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found is not None, page[:500]
    return found.group(1)


@pytest.fixture(scope="module")
def browser(embedder: LocalMiniLMEmbedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with mock_aws():
        stack = create_stack()
        env = {**stack.env, "MNEMO_JWT_SECRET_PARAMETER": "", "MNEMO_ADMIN_API_KEY_PARAMETER": ""}  # template.yaml's
        with environment(env):
            root = Path(tmp_path_factory.mktemp("console-indexes"))
            databases: list[Database] = []
            indexes: dict[str, LocalMemoryIndex] = {}

            def index_for(namespace: str) -> MemoryIndex:
                if namespace not in indexes:
                    databases.append(Database(root / f"{namespace}.sqlite3"))
                    indexes[namespace] = LocalMemoryIndex(databases[-1], embedder.dimension, facets=english())
                return indexes[namespace]

            catalog = BedrockAsLocalCatalog(embedder)
            function = importlib.import_module("functions.console.app")
            function.entry.function.reset(
                lambda: build_container(catalog=catalog, serves_http=False, namespace_index=index_for)
            )
            platform = function.entry.function.container.get().platform
            owner = platform.tenancy.bootstrap(EMAIL, ORG, PROJECT)
            platform.console_auth.set_password(EMAIL, PASSWORD)  # as `mnemo platform bootstrap --password-stdin`
            yield Browser(function, owner)
            function.entry.function.reset()
            for database in databases:
                database.close()


def test_given_no_session_when_a_page_is_asked_then_it_leads_to_the_sign_in_page(browser: Browser) -> None:
    home = browser.get("/console/")
    assert home.status == 303 and home.headers["location"] == "/console/sign-in?next=/"
    bare = browser.get("/console")
    assert bare.status in (303, 307) and bare.headers["location"].startswith(("/console/", "https://"))


def test_given_the_owner_when_signing_in_through_api_gateway_then_the_session_cookie_is_secure(
    browser: Browser,
) -> None:
    page = browser.get("/console/sign-in")
    assert page.status == 200 and 'name="password"' in page.body
    [pre] = page.cookies
    assert pre.startswith("mnemo_console_pre=") and "Secure" in pre and "HttpOnly" in pre

    wrong = browser.post("/console/sign-in", {"csrf_token": csrf_of(page.body), "email": EMAIL, "password": "nope"})
    assert wrong.status == 401 and "mnemo_console" not in browser.jar

    retry = browser.get("/console/sign-in")
    form = {"csrf_token": csrf_of(retry.body), "email": EMAIL, "password": PASSWORD, "next": "/"}
    signed = browser.post("/console/sign-in", form)
    assert signed.status == 303 and signed.headers["location"] == "/console/"
    [session] = [c for c in signed.cookies if c.startswith("mnemo_console=")]
    assert "Secure" in session and "HttpOnly" in session and "samesite=lax" in session.lower()
    assert "Path=/console" in session
    assert browser.platform().console_auth.session(browser.jar["mnemo_console"]) is not None


def test_given_a_session_when_visiting_the_home_page_then_the_org_name_is_shown_escaped(browser: Browser) -> None:
    home = browser.get("/console/")
    assert home.status == 200, home.body[:500]
    assert home.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in home.headers["content-security-policy"]
    assert escaped(ORG) in home.body and ORG not in home.body
    assert "<img src=x" not in home.body
    assert f'href="{browser.project_path}/"' in home.body


@pytest.mark.parametrize("section", ["", *SECTIONS])
def test_given_a_session_when_visiting_a_project_page_then_it_renders_with_names_escaped(
    browser: Browser, section: str
) -> None:
    page = browser.get(f"{browser.project_path}/{section}")
    assert page.status == 200, (section, page.body[:500])
    assert escaped(PROJECT) in page.body and "<script>alert(2)" not in page.body
    assert 'aria-current="page"' in page.body or section == ""


def test_given_the_org_delete_page_then_the_org_name_is_escaped_in_it(browser: Browser) -> None:
    page = browser.get(f"/console/orgs/{browser.owner.org.id}/delete")
    assert page.status == 200, page.body[:500]
    assert escaped(ORG) in page.body and ORG not in page.body


def test_given_the_static_script_then_it_is_served_and_may_be_cached(browser: Browser) -> None:
    script = browser.get("/console/static/console.js")
    assert script.status == 200 and "javascript" in script.headers["content-type"]
    assert "cache-control" not in script.headers or "no-store" not in script.headers["cache-control"]


def test_given_a_post_without_the_csrf_token_then_it_is_refused_and_nothing_changes(browser: Browser) -> None:
    before = [o.org.id for o in browser.platform().tenancy.orgs(browser.owner.user)]
    refused = browser.post("/console/orgs", {"name": "Forged"})
    assert refused.status == 403 and "security token" in refused.body
    forged = browser.post("/console/orgs", {"name": "Forged", "csrf_token": "not-the-token"})
    assert forged.status == 403
    assert [o.org.id for o in browser.platform().tenancy.orgs(browser.owner.user)] == before

    home = browser.get("/console/")
    made = browser.post("/console/orgs", {"name": "Globex", "csrf_token": csrf_of(home.body)})
    assert made.status == 303
    assert [o.org.name for o in browser.platform().tenancy.orgs(browser.owner.user)][-1] == "Globex"


def test_every_sample_event_is_answered_without_a_server_error(browser: Browser) -> None:
    """Each events/console/ sample as `sam local invoke` would send it, its placeholders filled with real values."""
    values = {
        "SAMPLE_CONSOLE_SESSION": browser.jar["mnemo_console"],
        "SAMPLE_CONSOLE_CSRF_TOKEN": "a-wrong-token",  # sign_out.json: refused, the session stays
        "SAMPLE_CONSOLE_FORM_TOKEN": "a-double-submit-token",
        "SAMPLE_CONSOLE_PASSWORD": "a-wrong-password",
        "org_sample000000000000001": browser.owner.org.id,
        "proj_sample00000000000001": browser.owner.project.id,
    }
    expected = {"root": 307, "sign_in_page": 200, "sign_in": 401, "home": 200, "project": 200, "sign_out": 403}
    answered = {}
    for sample in sorted((EVENTS / "console").glob("*.json")):
        text = sample.read_text()
        for placeholder, value in values.items():
            text = text.replace(placeholder, value)
        raw = browser.function.handler(json.loads(text), FakeLambdaContext(function_name="console"))
        answered[sample.stem] = raw["statusCode"]
    assert answered == expected
    assert browser.platform().console_auth.session(browser.jar["mnemo_console"]) is not None  # still signed in


def test_given_a_session_when_signing_out_then_the_session_ends(browser: Browser) -> None:
    session = browser.jar["mnemo_console"]
    home = browser.get("/console/")
    out = browser.post("/console/sign-out", {"csrf_token": csrf_of(home.body)})
    assert out.status == 303 and out.headers["location"] == "/console/sign-in"
    assert "mnemo_console" not in browser.jar
    assert browser.platform().console_auth.session(session) is None
    browser.jar["mnemo_console"] = session  # the old cookie, replayed
    again = browser.get("/console/")
    assert again.status == 303 and again.headers["location"].startswith("/console/sign-in")
