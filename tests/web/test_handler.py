"""Requests through the ASGI application: the middleware chain and the view run in one
trip to the request's thread (vtt/handlers.py), and do everything they do under Django's
own handler: sessions, CSRF, security headers, htmx, the answer.

Django's own handler hops between the event loop and the thread for every synchronous
middleware method: a dozen and more trips per request, each paid in CPU and in waiting
for the GIL while pushes are written.
"""

from __future__ import annotations

import asgiref.sync
import pytest
from channels.testing import HttpCommunicator
from django.core.handlers.asgi import ASGIHandler

from vtt.asgi import application
from vtt.handlers import OneThreadASGIHandler

pytestmark = pytest.mark.django_db(transaction=True)


def count_trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call of sync_to_async made from now on, by the name of what it runs."""
    trips: list[str] = []
    real = asgiref.sync.SyncToAsync.__call__

    async def counted(self, *args, **kwargs):
        trips.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(asgiref.sync.SyncToAsync, "__call__", counted)
    return trips


HOST = [(b"host", b"localhost")]


async def get(path: str):
    comm = HttpCommunicator(application, "GET", path, headers=HOST)
    return await comm.get_response(timeout=5)


async def test_a_page_is_served_in_one_trip_for_middleware_and_view(monkeypatch):
    trips = count_trips(monkeypatch)
    response = await get("/accounts/login/")
    assert response["status"] == 200
    headers = {k.lower(): v for k, v in response["headers"]}
    # What the middleware adds is all there: CSRF cookie, CSP nonce, security headers.
    assert b"csrftoken=" in headers[b"set-cookie"]
    assert b"nonce-" in headers[b"content-security-policy"]
    assert headers[b"x-frame-options"] == b"DENY"
    assert b'name="csrfmiddlewaretoken"' in response["body"]
    # One trip runs the middleware chain and the view; the others are Django's request
    # signals and closing the answer.
    chain = [t for t in trips if "get_response" in t]
    assert chain == ["BaseHandler.get_response"], trips
    assert len(trips) <= 3, trips


async def test_django_s_own_handler_takes_a_trip_per_middleware(monkeypatch):
    """The comparison that makes the first test mean something."""
    stock = ASGIHandler()
    trips = count_trips(monkeypatch)
    comm = HttpCommunicator(stock, "GET", "/accounts/login/", headers=HOST)
    response = await comm.get_response(timeout=5)
    assert response["status"] == 200
    assert len(trips) > 10, trips


async def test_a_post_without_csrf_token_is_refused_in_words():
    comm = HttpCommunicator(
        application,
        "POST",
        "/accounts/login/",
        body=b"username=gm&password=x",
        headers=[*HOST, (b"content-type", b"application/x-www-form-urlencoded")],
    )
    response = await comm.get_response(timeout=5)
    assert response["status"] == 403
    assert b"CSRF" in response["body"]


def test_the_application_uses_the_one_trip_handler():
    assert isinstance(OneThreadASGIHandler(), ASGIHandler)
    from vtt import asgi

    handler = asgi.django_asgi_app
    inner = getattr(handler, "application", handler)  # under the static files handler
    assert isinstance(inner, OneThreadASGIHandler)
