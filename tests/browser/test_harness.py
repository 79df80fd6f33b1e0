"""The harness checks itself: uncaught JavaScript errors are caught, the allow-list lets only
the documented noise through."""

from __future__ import annotations

import pytest

import browser_support as bs  # noqa: E402


def test_uncaught_errors_are_caught(browser):
    ps = bs.Pages(browser, "harness")
    page = ps.new(track=False)  # not charged to this test: it checks the collector itself
    try:
        page.set_content("<script>setTimeout(() => { throw new Error('boom from the page') }, 0);"
                         "Promise.reject(new Error('rejected promise'));"
                         "console.error('some console error')</script>")
        page.wait_for_timeout(300)
        errors = page.js_errors.take()
        assert any("pageerror: boom from the page" in e for e in errors), errors
        assert any("rejected promise" in e for e in errors), errors
        assert any("console.error: some console error" in e for e in errors), errors
    finally:
        ps.close(failed=False)


@pytest.mark.parametrize("line, ok", [
    ("console.error: Failed to load resource: net::ERR_NAME_NOT_RESOLVED "
     "(https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@%5E5/css/all.min.css)", True),
    ("console.error: Failed to load resource: net::ERR_NAME_NOT_RESOLVED "
     "(https://cdn.jsdelivr.net/npm/font-awesome@4.5.0/css/font-awesome.min.css)", True),
    ("console.error: Failed to load resource: the server responded with a status of 403 (Forbidden) "
     "(http://127.0.0.1:4000/voila/files/favicon.ico)", True),
    ("console.error: Failed to load resource: the server responded with a status of 404 (Not Found) "
     "(http://127.0.0.1:4000/voila/static/main.js)", False),
    ("console.error: Failed to load resource: net::ERR_NAME_NOT_RESOLVED (https://cdn.example.org/x.js)", False),
    ("pageerror: Cannot read properties of undefined (reading 'value')", False),
    ("console.error: Error: Could not create a view for model id 1234", False),
])
def test_allow_list(line, ok):
    assert bs.allowed(line) is ok
