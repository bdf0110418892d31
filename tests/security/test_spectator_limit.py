"""Spectators by the hundred (issue 37): the GM sets the spectator link's limit, and one
client address holds only a few of its sockets.

- The spectators' link takes as many sockets as the GM set on the console (100 unless
  changed, 1 to 1,000); a change counts from the next connect. One more is told why in
  words and closed with 4409.
- One client address holds at most VTT_SPECTATORS_PER_ADDRESS sockets of a spectators'
  link, so a leaked link cannot be held open by thousands of sockets from one machine;
  the one turned away is told so in words of its own, and another address still gets in.
- A limit that is not a whole number from 1 to 1,000 is refused in a sentence and
  changes nothing. Export and import keep the limit.
"""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from combat import consumers
from combat.models import SPECTATOR_LIMIT_DEFAULT, Encounter

from .sockets import TIMEOUT, build, socket, until_closed

pytestmark = pytest.mark.django_db(transaction=True)

LINK_FULL = "This spectator link is open on too many screens ({}): close one."
ADDRESS_FULL = "This device or network already shows this table on {} screens: close one."


def gm_client(t) -> Client:
    client = Client()
    client.force_login(t.gm_user)
    return client


def set_limit(t, value: str, htmx: bool = True):
    """The GM's console form: the number typed, posted as the page posts it."""
    headers = {"HX-Request": "true"} if htmx else {}
    return gm_client(t).post(f"/enc/{t.enc.pk}/spectator/limit/", {"limit": value}, headers=headers)


post_limit = database_sync_to_async(set_limit)


def limit_of(t) -> int:
    return Encounter.objects.get(pk=t.enc.pk).spectator_limit


def spectator(t, address: str | None = None) -> WebsocketCommunicator:
    """A spectator page's socket; from `address` as the server (daphne) would say it."""
    comm = socket(f"/ws/s/{t.enc.spectator_token}/")
    if address is not None:
        # The application has not started yet: it reads the scope as a server gives it.
        comm.scope["client"] = [address, 50000]
    return comm


async def admitted(comm: WebsocketCommunicator) -> bool:
    """True when the socket got the view; False when it was told why and closed with 4409."""
    assert (await comm.connect(timeout=TIMEOUT))[0]
    first = await comm.receive_from(timeout=TIMEOUT)
    if 'data-testid="socket-crowded"' not in first:
        assert 'id="table"' in first or "data-version" in first, first[:300]
        return True
    comm.crowded_words = first  # type: ignore[attr-defined]
    frames, code = await until_closed(comm)
    assert code == consumers.CROWDED and not frames, (code, frames)
    return False


async def test_the_gm_sets_the_limit_and_a_raise_counts_from_the_next_connect():
    t, _, _ = await build()
    assert t.enc.spectator_limit == SPECTATOR_LIMIT_DEFAULT == 100
    answer = await post_limit(t, "3")
    assert answer.status_code == 200
    said = answer.content.decode()
    assert "The spectator link now takes up to 3 screens" in said
    assert 'value="3"' in said  # the field shows the number now in force

    screens = [spectator(t) for _ in range(3)]
    for comm in screens:
        assert await admitted(comm)
    fourth = spectator(t)
    assert not await admitted(fourth)
    assert LINK_FULL.format(3) in fourth.crowded_words
    assert "tries again in a minute" in fourth.crowded_words

    await post_limit(t, "5")
    fifth = spectator(t)
    assert await admitted(fifth)  # the three already watching stayed
    for comm in [*screens, fifth]:
        await comm.disconnect()


async def test_one_address_holds_a_few_sockets_and_another_still_connects(settings):
    settings.VTT_SPECTATORS_PER_ADDRESS = 4
    t, _, _ = await build()
    leaked = [spectator(t, "203.0.113.7") for _ in range(4)]
    for comm in leaked:
        assert await admitted(comm)
    fifth = spectator(t, "203.0.113.7")
    assert not await admitted(fifth)
    assert ADDRESS_FULL.format(4) in fifth.crowded_words
    assert "too many screens (" not in fifth.crowded_words  # not "the link is full"

    elsewhere = spectator(t, "198.51.100.20")
    assert await admitted(elsewhere)
    # Once one of the first address's screens closes, that address gets one back.
    await leaked[0].disconnect()
    again = spectator(t, "203.0.113.7")
    assert await admitted(again)
    for comm in [*leaked[1:], elsewhere, again]:
        await comm.disconnect()


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("0", "from 1 to 1,000, not 0; it is unchanged."),
        ("5000", "from 1 to 1,000, not 5,000; it is unchanged."),
        ("abc", "from 1 to 1,000; it is unchanged."),
        ("", "from 1 to 1,000; it is unchanged."),
        ("-3", "from 1 to 1,000; it is unchanged."),
        ("2.5", "from 1 to 1,000; it is unchanged."),
    ],
)
def test_a_limit_that_is_not_1_to_1000_is_refused_in_words(typed, words):
    from asgiref.sync import async_to_sync

    t, _, _ = async_to_sync(build)()
    set_limit(t, "7")
    answer = set_limit(t, typed)
    said = answer.content.decode()
    assert answer.status_code >= 400
    assert f"The spectator limit is a whole number of screens {words}" in said
    assert limit_of(t) == 7
    assert 'value="7"' in said  # the field is put back to the number in force


def test_only_the_gm_sets_the_limit():
    from asgiref.sync import async_to_sync

    t, _, _ = async_to_sync(build)()
    outsider = Client()
    outsider.force_login(t.outsider_user)
    assert outsider.post(f"/enc/{t.enc.pk}/spectator/limit/", {"limit": "1"}).status_code == 404
    assert Client().post(f"/enc/{t.enc.pk}/spectator/limit/", {"limit": "1"}).status_code in (
        302,
        403,
    )
    assert limit_of(t) == SPECTATOR_LIMIT_DEFAULT


@pytest.mark.parametrize("mode", ["setup", "resume"])
def test_export_and_import_keep_the_limit(mode):
    from asgiref.sync import async_to_sync

    t, _, _ = async_to_sync(build)()
    set_limit(t, "250")
    client = gm_client(t)
    exported = client.get(f"/enc/{t.enc.pk}/export.json").getvalue()
    assert b'"spectator_limit": 250' in exported or b'"spectator_limit":250' in exported
    upload = SimpleUploadedFile("fight.json", exported, content_type="application/json")
    answer = client.post("/library/import/", {"file": upload, "mode": mode})
    assert answer.status_code == 302, answer.content[:500]
    new = Encounter.objects.filter(owner=t.gm_user).exclude(pk=t.enc.pk).latest("pk")
    assert new.spectator_limit == 250


def test_an_import_with_a_limit_out_of_range_is_refused_in_words():
    from asgiref.sync import async_to_sync

    t, _, _ = async_to_sync(build)()
    client = gm_client(t)
    exported = client.get(f"/enc/{t.enc.pk}/export.json").getvalue()
    bad = exported.replace(b'"spectator_limit": 100', b'"spectator_limit": 5000')
    assert bad != exported
    before = Encounter.objects.count()
    upload = SimpleUploadedFile("fight.json", bad, content_type="application/json")
    answer = client.post("/library/import/", {"file": upload, "mode": "setup"}, follow=True)
    assert "from 1 to 1,000, not 5,000" in answer.content.decode()
    assert Encounter.objects.count() == before
