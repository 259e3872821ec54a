"""A throttled sign-in in a browser: after as many failures as the sign-in allows, the next try (even with the right
password) is the sign-in page again with the message, answered 429 with Retry-After. A module of its own: the
throttle counts the browser's address too, which every test of a module shares, so it would refuse their sign-ins."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import PASSWORD, Console

FAILURES = 5  # what the sign-in allows (tests/support/console_auth_fake.py, as the platform's default)


def test_too_many_failed_sign_ins_are_refused_with_429_and_the_message(page: Page, served: Console) -> None:
    # Given an account whose sign-in failed as often as the sign-in allows
    owner = served.owner()
    for _ in range(FAILURES):
        page.goto(served.console + "/sign-in")
        page.get_by_label("Email").fill(owner.email)
        page.get_by_label("Password").fill("not the password")
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("alert")).to_have_text("Wrong email or password.")
    # When it is tried once more, with the right password
    page.get_by_label("Password").fill(PASSWORD)
    with page.expect_response(lambda answer: answer.request.method == "POST") as posted:
        page.get_by_role("button", name="Sign in").click()
    # Then the page says to wait, answered 429 with when to try again, and nobody is signed in
    assert posted.value.status == 429 and posted.value.headers["retry-after"] == "60"
    expect(page.get_by_role("alert")).to_contain_text("Too many failed sign-ins")
    expect(page.get_by_label("Email")).to_have_value(owner.email)
    expect(page.get_by_role("button", name="Sign out")).to_have_count(0)
