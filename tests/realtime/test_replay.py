"""Replaying every pushed frame onto the first page gives exactly the page a reload gives.

For each ruleset a demo table plays a seeded combat of 150 commands (turns, actions with
their options, damage, hiding and revealing the Lurking Troll, seats given combatants,
undo, and reaction windows: the GM turns defence prompts on, combatants are put in melee,
attacks, spells and moves out of reach open defence, Interrupt and Opportunity Attack
windows, some by a hidden attacker, and the reactors' players answer or pass them),
through the real ASGI application. The GM, every
seat and the spectators each fetch their page, connect a socket, and apply every frame
it pushes, in order and by id, as htmx and static/js/sync.js do. At checkpoints and at
the end each page must equal a fresh fetch of the same version: a region a push left
out or got wrong is a screen that shows something other than the truth until reload.

Two more pages take the harder road: one of Player 1's tabs loses its socket half-way
(commands go on without it) and connects again; one spectator screen misses frames (a
message lost on the way), which it must notice by data-prev-version and mend with a resync
(answered with the frames it lost, from the server's history of frames);
when the frame it lost is the last before a checkpoint, no later frame shows the gap, and
the page's heartbeat (static/js/sync.js sends the version it shows) brings the frames it
lost, from the same history.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import random
import secrets
import time
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from combat import broadcast, services
from combat.access import gm_viewer
from combat.management.commands.seed_demo import PLACES
from combat.models import Encounter, Presence, Seat
from combat.rules import get_ruleset, rulesets
from combat.rules.state import Encounter as State
from combat.rules.view import UNSEEN
from tests.markers import TIMEOUT, is_whole_view
from tests.replay import SYNC_VERSION, Page, a_command, element, first_difference, normalised

from .conftest import socket

# About 15-50 s per ruleset on two busy cores: more than `make quick` should wait for.
# 150 commands per ruleset, every frame applied to every audience's page: about a minute
# on a quiet machine, several on a loaded one (the suite's limit is 300 s a test).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.fuzz, pytest.mark.timeout(600)]

COMMANDS = 150
CHECKPOINTS = range(25, COMMANDS, 25)
# One of Player 1's tabs is away for these commands; the spectator screen loses these frames.
AWAY = range(70, 78)
# 50 and 100 are checkpoints: no later frame shows that gap, the page's heartbeat mends it.
LOST = (40, 41, 42, 50, 90, 100, 110, 120)
APART = {"Ana": "B3", "Bram": "C4", "Goblin": "H3", "Ogre": "H5", "Lurking Troll": "K7"}
# Initiative Passes has no reaction windows (docs/rules.md: no Opportunity Attacks; its
# Interrupts are actions taken off one's turn).
WINDOWLESS = {"initiative_passes"}


class Audience:
    """One page: how to fetch it, its socket, the group its pushes come through."""

    def __init__(self, name: str, url: str, ws: str, group: str, client: Client) -> None:
        self.name, self.url, self.ws, self.group, self.client = name, url, ws, group, client
        self.page: Page | None = None
        self.comm: WebsocketCommunicator | None = None
        self.resyncs = 0
        self.from_history = 0  # resyncs the history of frames answered
        self.caught_up = 0  # heartbeats that brought the page up to date

    def fetch(self) -> str:
        response = self.client.get(self.url)
        assert response.status_code == 200, (self.name, response.status_code)
        return response.content.decode()

    async def open(self) -> None:
        """Fetch the page, then connect its socket, as a browser loading it does."""
        self.page = Page(await database_sync_to_async(self.fetch)())
        await self.connect()

    async def connect(self) -> None:
        """Connect the page's socket and apply what it sends up to the whole view it sends
        on connecting. That view comes straight from the socket's consumer, not through the
        group, so a marker sent to the group could overtake it: it is awaited by itself."""
        assert self.page is not None
        session = self.client.cookies.get(django_settings.SESSION_COOKIE_NAME)
        self.comm = socket(self.ws, cookie=session.value if session else None)
        connected, _ = await self.comm.connect(timeout=TIMEOUT)
        assert connected, self.name
        frames = []
        while not is_whole_view(frame := await self.comm.receive_from(timeout=TIMEOUT)):
            frames.append(frame)
        await self.take([*frames, frame])

    async def take(self, frames: list[str]) -> None:
        """Apply frames in order; on a gap (the frame that shows it is held back), ask for
        what the page missed, as static/js/sync.js does, and apply what answers until the
        page shows the version of the frame held back (each wait bounded): the missed
        frames from the server's history, or the whole view."""
        assert self.page is not None and self.comm is not None
        queue = list(frames)
        while queue:
            frame = queue.pop(0)
            if not self.page.apply(frame):
                continue
            self.resyncs += 1
            held = SYNC_VERSION.search(frame)
            assert held is not None
            wanted = int(held.group(1))
            shown = self.page.version()
            await self.comm.send_to(text_data=json.dumps({"type": "resync", "version": shown}))
            whole = False
            while (self.page.version() or 0) < wanted:
                answer = await self.comm.receive_from(timeout=TIMEOUT)
                whole = whole or is_whole_view(answer)
                self.page.apply(answer)
            self.from_history += not whole

    async def heartbeat(self, current: int) -> None:
        """Send the heartbeat static/js/sync.js sends (the version the page shows); a page
        behind `current` gets what it lacks (the frames from the history, or the whole
        view), and takes it frame by frame until it shows `current`."""
        assert self.page is not None and self.comm is not None
        shown = self.page.version()
        await self.comm.send_to(text_data=json.dumps({"type": "heartbeat", "version": shown}))
        if shown == current:
            return  # nothing to answer (anything sent anyway is caught by the next drain)
        while (self.page.version() or 0) < current:
            await self.take([await self.comm.receive_from(timeout=TIMEOUT)])
        self.caught_up += 1

    async def close(self) -> None:
        if self.comm is not None:
            await self.comm.disconnect()
            self.comm = None


def _table(ruleset: str) -> tuple[int, list[Audience]]:
    # The play starts from where the demo's tokens stood when its seed was chosen: apart,
    # so attackers step in first and hidden ones open windows (the demo now starts in
    # melee).
    with mock.patch.dict(PLACES, APART):
        call_command("seed_demo", stdout=io.StringIO())
    enc = Encounter.objects.get(ruleset=ruleset)
    services.create_seat(enc.pk, "Player 3", [])
    enc.refresh_from_db()
    assert enc.spectator_token
    gm = Client()
    gm.force_login(enc.owner)
    audiences = [
        Audience(
            "GM",
            f"/enc/{enc.pk}/",
            f"/ws/enc/{enc.pk}/gm/",
            broadcast.group_name(enc.pk, "gm"),
            gm,
        )
    ]
    for seat in Seat.objects.filter(encounter=enc, revoked=False).order_by("pk"):
        group = broadcast.group_name(enc.pk, "player", seat.pk)
        audiences.append(
            Audience(seat.name, f"/p/{seat.token}/", f"/ws/p/{seat.token}/", group, Client())
        )
    spectators = broadcast.group_name(enc.pk, "spectator")
    token = enc.spectator_token
    for name in ("spectators", "spectators, losing frames"):
        audiences.append(Audience(name, f"/s/{token}/", f"/ws/s/{token}/", spectators, Client()))
    seat1 = next(a for a in audiences if a.name == "Player 1")
    audiences.append(Audience("Player 1, reconnecting", seat1.url, seat1.ws, seat1.group, Client()))
    return enc.pk, audiences


class Windows:
    """The reaction windows of a play: opened (by kind), answered, passed, and those a
    hidden attacker opened on a visible combatant."""

    def __init__(self) -> None:
        self.opened: dict[str, int] = {}
        self.answered = 0
        self.passed = 0
        self.unseen: list[str] = []  # ids of windows whose trigger was hidden when opened
        self.shown_unseen = 0  # of those, shown on their reactor's player's page

    def __str__(self) -> str:
        return (
            f"windows opened {self.opened}, {self.answered} answered, {self.passed} passed, "
            f"{len(self.unseen)} by a hidden attacker ({self.shown_unseen} seen by a player)"
        )

    __repr__ = __str__


def _a_sure_push(enc_pk: int) -> None:
    """1 damage from the GM to the visible combatant with the most HP (never a defeat):
    a command every page hears of, the spectators included (its log line)."""
    enc = Encounter.objects.get(pk=enc_pk)
    state = State.from_dict(enc.state)
    seen = [c for c in state.combatants.values() if not c.hidden and (c.hp or 0) > 1]
    target = max(seen, key=lambda c: c.hp or 0)
    result = services.run_command(
        enc.pk, gm_viewer(enc), {"type": "damage", "actor": target.id, "amount": 1}
    )
    assert result.ok, result.refusal


def _play(enc_pk: int, rng: random.Random, windows: Windows) -> tuple[str, list[str]]:
    """One command of the seeded play: its kind, and the windows a hidden attacker opened
    with it."""
    enc = Encounter.objects.get(pk=enc_pk)
    before = {w["id"] for w in enc.state.get("pending", [])}
    viewer, command = a_command(enc, rng, windows=True)
    result = services.run_command(enc.pk, viewer, command)
    enc.refresh_from_db()
    state = State.from_dict(enc.state)
    unseen = []
    shown = get_ruleset(enc.ruleset).unseen_windows  # those a player sees, attacker unnamed
    for w in state.pending:
        if w.id in before:
            continue
        windows.opened[w.kind] = windows.opened.get(w.kind, 0) + 1
        trigger, reactor = state.combatants.get(w.trigger), state.combatants.get(w.reactor)
        if trigger and trigger.hidden and reactor and not reactor.hidden and w.kind in shown:
            unseen.append(w.id)
    if command["type"] == "react" and result.ok:
        if command["accept"]:
            windows.answered += 1
        else:
            windows.passed += 1
    windows.unseen += unseen
    return command["type"], unseen


async def pushed_to_group(group: str, comms: list[WebsocketCommunicator]) -> list[list[str]]:
    """What each socket of one group got so far: like `pushed_so_far`, with one marker for
    the whole group (each socket of a group gets every marker sent to it)."""
    marker = f"<!-- marker {secrets.token_hex(8)} -->"
    layer = get_channel_layer()
    assert layer is not None
    await layer.group_send(group, {"type": broadcast.PRESENCE, "html": marker})

    async def until_marker(comm: WebsocketCommunicator) -> list[str]:
        frames = []
        while (frame := await comm.receive_from(timeout=TIMEOUT)) != marker:
            frames.append(frame)
        return frames

    return list(await asyncio.gather(*(until_marker(c) for c in comms)))


def touch_all(enc_pk: int) -> None:
    Presence.objects.filter(encounter_id=enc_pk).update(last_seen=timezone.now())


async def drain(audiences: list[Audience], lose: str | None = None) -> bool:
    """Everything pushed so far reaches each open page (all sockets at once), but the
    frames to `lose`; whether there were any to lose."""
    live = [a for a in audiences if a.comm is not None]
    lost = False
    groups = sorted({a.group for a in live})
    members = {g: [a for a in live if a.group == g] for g in groups}
    got = await asyncio.gather(
        *(pushed_to_group(g, [a.comm for a in members[g] if a.comm]) for g in groups)
    )
    for group, frame_lists in zip(groups, got, strict=True):
        for audience, frames in zip(members[group], frame_lists, strict=True):
            if audience.name == lose:
                kept = [f for f in frames if 'id="sync"' not in f]  # lost on the way
                lost = len(kept) < len(frames)
                frames = kept
            await audience.take(frames)
    return lose is not None and lost


async def assert_true_to_a_reload(audiences: list[Audience], when: str) -> None:
    for audience in audiences:
        if audience.comm is None or audience.page is None:
            continue
        fresh = normalised(await database_sync_to_async(audience.fetch)())
        replayed = normalised(audience.page.html)
        assert replayed == fresh, (
            f"{audience.name}'s page {when} is not what a reload shows: "
            + first_difference(replayed, fresh)
        )
        assert audience.page.missing == [], (audience.name, audience.page.missing)


@pytest.mark.parametrize("ruleset", sorted(rulesets()))
async def test_every_page_replays_to_what_a_reload_shows(
    ruleset: str, settings, monkeypatch
) -> None:
    # Seeded dice too (a die of its own for each command): the same play every run, so the
    # windows it opens and the frames it loses are the same.
    seeds = itertools.count(sum(map(ord, ruleset)) * 1000)
    monkeypatch.setattr(services, "make_rng", lambda: random.Random(next(seeds)))
    # A browser sends a heartbeat every 15 s, which keeps its socket open; these sockets
    # send none, so the server's watch for silent sockets (40 s) is off for this test, or
    # a slow run would see its sockets closed as gone silent.
    settings.PRESENCE_TIMEOUT_SECONDS = 0
    # 150 commands in a few seconds, far faster than a table plays: no byte budget here,
    # or pages would get whole views in place of the frames this test follows.
    settings.VTT_PUSH_BYTES_BURST = 1 << 40
    started = time.monotonic()
    enc_pk, audiences = await database_sync_to_async(_table)(ruleset)
    by_name = {a.name: a for a in audiences}
    for audience in audiences:
        await audience.open()
    await drain(audiences)
    await assert_true_to_a_reload(audiences, "once connected")

    rng = random.Random(f"replay-{ruleset}")
    kinds: dict[str, int] = {}
    windows = Windows()
    lossy = by_name["spectators, losing frames"]
    players = [a for a in audiences if a.url.startswith("/p/")]
    losing = False
    for n in range(1, COMMANDS + 1):
        # What each page's heartbeat (every 15 s) does for the GM's list of who is there:
        # a socket unheard of for 75 s no longer counts, nor gets pushes, and a slow run
        # takes longer than that between two checkpoints. (The heartbeats' versions are
        # sent at the checkpoints, below.)
        await database_sync_to_async(touch_all)(enc_pk)
        kind, unseen = await database_sync_to_async(_play)(enc_pk, rng, windows)
        kinds[kind] = kinds.get(kind, 0) + 1
        away = by_name["Player 1, reconnecting"]
        if n == AWAY.start:
            await away.close()
        # A command refused (or pushing nothing) loses nothing: the loss waits for the next
        # frame, but never past a checkpoint (those losses are the heartbeat's to mend).
        losing = n in LOST or (losing and n not in CHECKPOINTS)
        if await drain(audiences, lose=lossy.name if losing else None):
            losing = False
        if losing and n in CHECKPOINTS:
            # The checkpoint's command pushed nothing (a refusal): a blow from the GM
            # pushes the frame to lose, so the heartbeat below has a loss to mend.
            await database_sync_to_async(_a_sure_push)(enc_pk)
            if await drain(audiences, lose=lossy.name):
                losing = False
        for wid in unseen:
            # The reactor's player sees the window, and "someone unseen" behind it.
            shown = [
                html
                for a in players
                if a.page is not None and (html := element(a.page.html, f"window-{wid}"))
            ]
            assert all(UNSEEN in html for html in shown), shown
            windows.shown_unseen += bool(shown)
        if n == AWAY.stop:
            # A tab that comes back is the page it had, then the whole view on connecting.
            assert away.page is not None
            await away.connect()
            await drain(audiences)
            await assert_true_to_a_reload([away], f"reconnected after command {n}")
        if n in CHECKPOINTS:
            # Every page's heartbeat: one that lost the last frame is brought up to date.
            current = (await database_sync_to_async(Encounter.objects.get)(pk=enc_pk)).version
            stale = [a for a in audiences if a.page and a.comm and a.page.version() != current]
            assert stale in ([], [lossy]), [a.name for a in stale]
            await asyncio.gather(*(a.heartbeat(current) for a in audiences if a.comm))
            await drain(audiences)
            await assert_true_to_a_reload(audiences, f"after command {n}")

    await drain(audiences)
    await assert_true_to_a_reload(audiences, f"after all {COMMANDS} commands")

    # The run covered the game, not one corner of it, and every page took every frame.
    assert {"act", "end_turn", "undo", "hide", "reveal", "react"} <= kinds.keys() or (
        ruleset in WINDOWLESS and {"act", "end_turn", "undo", "hide", "reveal"} <= kinds.keys()
    ), kinds
    assert {"damage", "heal"} & kinds.keys(), kinds  # the GM's hand on HP
    for audience in audiences:
        assert audience.page is not None
        assert audience.page.frames >= COMMANDS // 2, (audience.name, audience.page.frames)
    assert lossy.resyncs >= 2, "the page never noticed the frames it lost"
    assert lossy.from_history >= 1, "no resync was answered with the frames the page lost"
    assert lossy.caught_up >= 1, "no lost frame was the last before a checkpoint"
    assert all(a.caught_up == 0 for a in audiences if a is not lossy), "a heartbeat out of step"
    if ruleset in WINDOWLESS:
        assert not windows.opened, windows
    else:
        assert sum(windows.opened.values()) >= 5, windows
        assert windows.answered >= 1 and windows.passed >= 1, windows
        assert windows.answered + windows.passed >= 4, windows
        assert windows.shown_unseen >= 1, windows
    assert all(a.resyncs == 0 for a in audiences if a is not lossy), "a gap that was not one"
    enc = await database_sync_to_async(Encounter.objects.get)(pk=enc_pk)
    for audience in audiences:
        await audience.close()
    print(
        f"{ruleset}: {COMMANDS} commands to version {enc.version}, "
        f"{len(audiences)} pages, {lossy.resyncs} resyncs ({lossy.from_history} from the "
        f"history of frames), {lossy.caught_up} caught up by "
        f"heartbeat, {windows}, {kinds}, "
        f"{time.monotonic() - started:.1f} s"
    )
