"""/api/docs/ in a real browser: the API reference renders and works under the nonce CSP."""

from __future__ import annotations

from .conftest import open_person


def test_the_api_reference_page_shows_every_operation_and_tries_one(live_server_url, browser):
    from playwright.sync_api import expect

    reader = open_person(browser, "spectator", "Reader")
    page = reader.page
    page.goto(f"{live_server_url}/api/docs/")

    expect(page.get_by_role("heading", name="VTT JSON API")).to_be_visible()
    operations = page.locator(".opblock")
    from combat.contract import openapi_document

    described = sum(len(item) for item in openapi_document()["paths"].values())
    assert described == 12
    expect(operations).to_have_count(described)
    expect(page.locator("#operations-default-send_command")).to_contain_text(
        "/api/encounters/{encounter_id}/commands"
    )

    # "Try it out" on the public operation: the page calls the API and shows the answer.
    listing = page.locator("#operations-default-list_rulesets")
    listing.locator(".opblock-summary").click()
    listing.get_by_role("button", name="Try it out").click()
    listing.get_by_role("button", name="Execute").click()
    status = listing.locator(".live-responses-table tbody .response-col_status").first
    expect(status).to_have_text("200")
    expect(listing.locator(".live-responses-table")).to_contain_text("action_points")

    # A script or style the CSP blocked would show here as a console error.
    assert reader.errors == []
    reader.context.close()
