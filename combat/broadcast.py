"""Pushing changes to open sockets: render once per audience, send to that audience's group.

Audiences are the GM, each player seat, and the public (spectators). Consumers
only forward what arrives here; they never render a change themselves.
An audience with nobody connected is not rendered at all.
"""

from __future__ import annotations

import hashlib
import logging
import zlib
from collections.abc import Callable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from combat import chat, presence, screens
from combat.access import (
    GM,
    PLAYER,
    SPECTATOR,
    Viewer,
    gm_viewer,
    seat_viewer,
    spectator_viewer,
    still_valid,
)
from combat.models import ChatMessage, Encounter, Seat
from combat.rules import Encounter as State

log = logging.getLogger(__name__)

# Channel-layer message types; consumers have a handler for each.
FRAME = "frame.push"
PRESENCE = "presence.push"
CHAT = "chat.push"  # one chat message (or the spectators' chat region), not a versioned frame
CLOSE = "socket.close"


def group_name(encounter_id: int, audience: str, seat_id: int | None = None) -> str:
    """The one place group names are made: enc.<id>.gm, enc.<id>.seat.<seat id>, enc.<id>.public."""
    if audience in (GM, "gm"):
        return f"enc.{encounter_id}.gm"
    if audience in (PLAYER, "player"):
        return f"enc.{encounter_id}.seat.{seat_id}"
    return f"enc.{encounter_id}.public"


def budgeted(group: str) -> bool:
    """Are the frames of this group paid from a byte budget (combat/fanout.py)? The
    spectators' and each seat's: screens anyone with the link may open, many times over.
    The GM's are not: the GM's own tabs, and the console the GM acts on."""
    return group.startswith("enc.") and (group.endswith(".public") or ".seat." in group)


def user_group(user_id: int) -> str:
    """Every GM socket of one account, whatever the encounter: closed when its log-in ends."""
    return f"user.{user_id}.gm"


def group_for(viewer: Viewer) -> str:
    return group_name(viewer.encounter_id, viewer.role, viewer.seat_id)


def credential(secret: str | int | None) -> str:
    """What a pushed frame says about the credential it was rendered for: a digest of the
    seat's or spectators' link (the GM's user id for the GM), so each socket can check,
    without a database query, that its own link is still the one the frame is for.
    The digest travels between processes only; no browser ever receives it."""
    if secret is None or secret == "":
        return ""
    return hashlib.blake2b(str(secret).encode(), digest_size=16).hexdigest()


def gm_secret(enc: Encounter) -> str:
    """What the GM's frames are rendered for: the owner of this encounter as created (an
    encounter id used again after a database is emptied, as between tests, is another
    encounter: its pushes must not be compared with, or answered from, the old one's)."""
    return f"{enc.owner_id}:{enc.created.isoformat()}"


def render_view_checked(viewer: Viewer, token: str | None) -> tuple[str, int] | None:
    """The whole view for a socket, or None if its link (or session's encounter) is no
    longer valid, so a socket whose link was just replaced gets nothing of the seat."""
    if not still_valid(viewer, token):
        return None
    view = render_view(viewer)
    # Checked after rendering: a link never comes back once replaced, so one that is valid
    # now was valid for the whole render.
    return view if still_valid(viewer, token) else None


# --- rendering (shared with the pages and the socket's first frame) ----------------------


def render_view(viewer: Viewer, *, oob: bool = True) -> tuple[str, int]:
    """The whole current view of one audience as out-of-band fragments, and its version."""
    enc = Encounter.objects.get(pk=viewer.encounter_id)
    # The reader's table talk comes with the whole view: a page that was away catches up.
    talk = render_chat_messages(viewer, enc) if oob else ""
    if viewer.role == GM:
        return render_gm(enc, oob=oob) + talk, enc.version
    if viewer.role == PLAYER:
        seat = Seat.objects.get(pk=viewer.seat_pk)
        return render_player(enc, seat, oob=oob) + talk, enc.version
    return render_public(enc, oob=oob) + talk, enc.version


def first_frames(
    viewer: Viewer, token: str | None, cred: str, shown: int
) -> tuple[list[str], int] | None:
    """What a socket opened by a page rendered at version `shown` sends first, instead of the
    whole view the page already shows: the frames it missed since, from its audience's
    history, then the #sync form of the version they bring it to, standing alone like a
    whole view's ("this page is as it is now": a reconnected page says it is back), with
    its reader's latest table talk (a message may have come between the page and its
    socket). None when the whole view is needed (the history cannot cover the gap, or a
    version the encounter never had) or the link no longer works (the whole view's path
    says so)."""
    if not still_valid(viewer, token):
        return None
    enc = Encounter.objects.get(pk=viewer.encounter_id)
    if shown > enc.version:
        return None
    frames = frames_since(group_for(viewer), cred, shown, enc.version)
    if frames is None:
        return None
    sync = {"version": enc.version, "oob": True}
    now = render_to_string(f"{PAGE_TEMPLATES[viewer.role]}#sync", sync)
    return [*frames, now + render_chat_messages(viewer, enc)], enc.version


# Each audience's page, whose partials its frames are made of.
PAGE_TEMPLATES = {
    GM: "combat/gm.html",
    PLAYER: "combat/player.html",
    SPECTATOR: "combat/spectator.html",
}


# `prev_version` is set on pushed changes only: "this frame holds every change after that
# version". A whole view (on connect, on resync) has none: it stands on its own.


def render_gm(
    enc: Encounter,
    state: Any = None,
    *,
    oob: bool = True,
    prev_version: int | None = None,
    shared: screens.Shared | None = None,
) -> str:
    ctx = screens.gm_context(enc, state, shared)
    return _render_whole("combat/gm.html", ctx, oob=oob, prev_version=prev_version)


def render_player(
    enc: Encounter,
    seat: Seat,
    state: Any = None,
    *,
    oob: bool = True,
    prev_version: int | None = None,
    shared: screens.Shared | None = None,
) -> str:
    ctx = screens.player_context(enc, seat, state, shared)
    return _render_whole("combat/player.html", ctx, oob=oob, prev_version=prev_version)


def render_public(
    enc: Encounter,
    state: Any = None,
    *,
    oob: bool = True,
    prev_version: int | None = None,
    shared: screens.Shared | None = None,
) -> str:
    ctx = screens.public_context(enc, state, shared)
    return _render_whole("combat/spectator.html", ctx, oob=oob, prev_version=prev_version)


# --- the push, region by region (issue 37, step 2) --------------------------------------
#
# After a commit the spectators' and each seat's view-models are built per region
# (screens.public_regions, screens.player_regions), and each region's digest is kept in
# Django's cache under the audience and its link, with the version they show, so that
# whichever process pushes the next version finds them. Only the regions whose digest differs from
# the previous version's are rendered and sent; with none, the frame is the #sync form
# alone ("version moved"). Without the previous version's digests (first push, a restart,
# evicted, or a push that covers several versions) every region is sent, which is always
# right.

REGION_DIGESTS_TTL = 120  # seconds: the next push is usually a moment later
# Off only to compare (docs/performance.md, "Regions"): every push is the whole view.
REGIONS = True


def region_digests_key(encounter_id: int, audience: str, cred: str) -> str:
    # The credential's digest keeps apart two encounters that share an id (a test
    # database flushed between tests) and resets the comparison when the link is replaced.
    # One entry per audience and link, holding the newest version's digests: an entry per
    # version filled a small cache with digests never read again and pushed out the ones
    # the next push needed (50 tables then got whole views every push).
    return f"regions:{encounter_id}:{audience}:{cred}"


def render_region(template: str, region: screens.Region) -> str:
    """One region as an out-of-band fragment, drawn from its own view-model alone. (A region
    held by another, a card in its roster, is marked for swapping only when sent alone.)"""
    alone = {"card_oob": True} if region.inside else {}
    return render_to_string(f"{template}#{region.partial}", {**region.model, **alone, "oob": True})


def grown(
    before: list[tuple[str, str]] | None, now: list[tuple[str, str]]
) -> tuple[int, list[str]] | None:
    """How a list that grows at the top went from `before` to `now` (its items' (id,
    fingerprint), newest first): how many items are new at the top and the ids of those
    that fell off the end (all of them, when none is left). None when the items shown
    before that are still there are not unchanged and in the same order under the new ones
    (an undo that marks a line, a reveal that shows older lines, an empty list): then the
    region is sent whole."""
    if not before or not now:
        return None
    # As pairs, however the cache kept them.
    top = [(ident, d) for ident, d in before]
    items = [(ident, d) for ident, d in now]
    if top[0] not in items:
        # Every line shown before is gone (a seat's three latest lines after an End Turn's
        # three): the new ones are put in and the old ones taken away, all of them.
        ids = {ident for ident, _ in items}
        if any(ident in ids for ident, _ in top):
            return None
        return len(items), [ident for ident, _ in top]
    new = items.index(top[0])
    kept = items[new:]
    if top[: len(kept)] != kept:
        return None
    shown = {ident for ident, _ in top}
    if any(ident in shown for ident, _ in items[:new]):
        return None
    return new, [ident for ident, _ in top[len(kept) :]]


def moved(
    before: list[tuple[str, str]] | None, now: list[tuple[str, str]]
) -> tuple[list[str], list[tuple[str | None, list[int]]], list[int]] | None:
    """How a list whose items move in and out went from `before` to `now` (its items' (id,
    fingerprint), in order): the ids of those gone; the new ones, in runs each put after
    the item that stayed before it (None: at the top), as indexes into `now`; the indexes
    of those that stayed but changed. None when the items that stayed are not in the same
    order as before (or there is no `before`): then the list is sent whole."""
    if before is None:
        return None
    was = {ident: d for ident, d in before}
    is_now = {ident for ident, _ in now}
    if [i for i, _ in before if i in is_now] != [i for i, _ in now if i in was]:
        return None
    gone = [ident for ident, _ in before if ident not in is_now]
    puts: list[tuple[str | None, list[int]]] = []
    changed: list[int] = []
    after: str | None = None
    for n, (ident, d) in enumerate(now):
        if ident in was:
            after = ident
            if was[ident] != d:
                changed.append(n)
        elif puts and puts[-1][0] == after and puts[-1][1][-1] == n - 1:
            puts[-1][1].append(n)
        else:
            puts.append((after, [n]))
    return gone, puts, changed


def render_moved(template: str, region: screens.Region, before: Any) -> str:
    """A changed list whose items move in and out: those gone taken away, those new put in
    their place, those changed redrawn (components/moves.html), or the list whole."""
    items = region.items
    assert items is not None
    found = moved(before, items.keys)
    if found is None:
        return render_region(template, region)
    gone, puts, changed = found

    def item(n: int, oob: bool) -> str:
        return render_to_string(f"{template}#{items.partial}", {**items.models[n], "card_oob": oob})

    ctx = {
        "target": items.target,
        "gone": gone,
        "puts": [
            {"after": after, "html": mark_safe("".join(item(n, False) for n in ns))}
            for after, ns in puts
        ],
        "changed": mark_safe("".join(item(n, True) for n in changed)),
    }
    return render_to_string("combat/components/moves.html", ctx)


def render_grown(
    template: str,
    region: screens.Region,
    before: Any,
    digest: str = "",
    drawn: dict[Any, str] | None = None,
) -> str:
    """A changed region: its new items and the ids of those to take away when it is a list
    that only grew at the top since `before` (its items' keys then), else the region whole.

    `drawn` holds what this push already rendered for another audience: a fragment drawn
    from the same partial and the same view-model (its `digest`, when the region is compared
    by its whole view-model; a list's new items by their keys) is the same HTML, rendered
    once per push (the players' screens share most of their regions). (A list whose items
    move in and out: `render_moved`.)"""
    drawn = {} if drawn is None else drawn
    items = region.items
    if items is not None and items.moves:
        return render_moved(template, region, before)
    grew = grown(before, items.keys) if items is not None else None
    if items is None or grew is None:
        if region.compared is not None or not digest:
            return render_region(template, region)
        key: tuple[Any, ...] = (template, region.partial, region.inside is not None, digest)
        if key not in drawn:
            drawn[key] = render_region(template, region)
        return drawn[key]
    new, dropped = grew
    key = (items.partial, tuple(items.keys[:new]), tuple(dropped))
    if key not in drawn:
        drawn[key] = render_to_string(
            items.partial, {"new": items.models[:new], "dropped": dropped}
        )
    return drawn[key]


def changed_regions(
    regions: dict[str, screens.Region], digests: dict[str, str], before: dict[str, str] | None
) -> list[str]:
    """The ids of the regions to send: all of them without `before`, else those whose
    digest differs (a region whose container, or its container's, is sent whole goes
    inside it)."""
    if before is None:
        changed = list(regions)
    else:
        changed = [name for name, d in digests.items() if before.get(name) != d]
    sent = set(changed)

    def held_by_sent(name: str) -> bool:
        inside = regions[name].inside
        while inside is not None:
            if inside in sent:
                return True
            inside = regions[inside].inside if inside in regions else None
        return False

    return [name for name in changed if not held_by_sent(name)]


def drawn_items(
    regions: dict[str, screens.Region], names: list[str], before_lists: dict[str, Any]
) -> set[str]:
    """The ids of the items that the lists sent among `names` draw (those put in or
    redrawn, or all of a list sent whole): a region such an item draws too (`Region.item`)
    is not sent apart."""
    out: set[str] = set()
    for name in names:
        items = regions[name].items
        if items is None or not items.moves:
            continue
        found = moved(before_lists.get(name), items.keys)
        if found is None:
            out.update(ident for ident, _ in items.keys)
            continue
        _, puts, changed = found
        out.update(items.keys[n][0] for _, ns in puts for n in ns)
        out.update(items.keys[n][0] for n in changed)
    return out


def render_changes(
    template: str,
    regions: dict[str, screens.Region],
    whole: Callable[[], str],
    *,
    encounter_id: int,
    audience: str,
    cred: str,
    version: int,
    prev_version: int | None,
    drawn: dict[Any, str] | None = None,
) -> str:
    """One audience's frame for a push: the regions that changed since `prev_version`, then
    #sync (the version shown and the version followed); `whole()` when there is nothing
    to compare with (the previous version's digests are missing, or the push spans
    several versions). With no region changed the frame is #sync alone: "version moved".

    A list (the log) gets its new lines put at its top and its lines gone from the end
    taken away, rather than being sent whole."""
    digests = {name: screens.region_digest(r) for name, r in regions.items()}
    # The items of each list region too: what the next push compares its new items with.
    lists = {name: r.items.keys for name, r in regions.items() if r.items is not None}
    key = region_digests_key(encounter_id, audience, cred)
    kept = cache.get(key)
    kept_version = kept[0] if isinstance(kept, tuple) and len(kept) == 3 else None
    # A push of an older version that comes late does not replace a newer one's digests.
    if kept_version is None or kept_version < version:
        cache.set(key, (version, digests, lists), REGION_DIGESTS_TTL)
    if not (REGIONS and prev_version is not None and version == prev_version + 1):
        return whole()
    if kept_version != prev_version:
        return whole()
    assert isinstance(kept, tuple)
    _, before, before_lists = kept
    names = changed_regions(regions, digests, before)
    if any(regions[name].item is not None for name in names):
        within = drawn_items(regions, names, before_lists)
        names = [name for name in names if regions[name].item not in within]
    parts = [
        render_grown(template, regions[name], before_lists.get(name), digests[name], drawn)
        for name in names
    ]
    sync = {"version": version, "prev_version": prev_version, "oob": True}
    parts.append(render_to_string(f"{template}#sync", sync))
    return "".join(parts)


# --- the history of frames (issue 37, step 3) ---------------------------------------------
#
# Every frame a push builds for an audience (the changes from its previous version to its
# version) is kept in Django's cache under the audience's group, its link's credential and
# the version it shows, for HISTORY_TTL seconds and HISTORY_DEPTH versions back, so that
# whichever process holds a page's socket can answer its resync with the frames it missed
# instead of the whole view.

HISTORY_DEPTH = 20  # versions
HISTORY_TTL = 120  # seconds: a page notices a gap at the next push or heartbeat (15 s)


def history_key(group: str, cred: str, version: int) -> str:
    return f"history:{group}:{cred}:{version}"


def packed(html: str) -> bytes:
    """A frame as the history keeps it: compressed (a frame's HTML repeats itself; kept
    for every audience of every table, twenty versions back, it is most of a server's
    memory), at the fastest level: it is read back only for a page that missed it."""
    return zlib.compress(html.encode(), 1)


def unpacked(kept: bytes) -> str:
    return zlib.decompress(kept).decode()


def keep_frames(frames: list[tuple[str, str, int, int, str]]) -> None:
    """Keep each (group, credential, version, previous version, html) pushed, and let go of
    the frame HISTORY_DEPTH versions older."""
    if not frames:
        return
    cache.set_many(
        {history_key(g, cred, v): (prev, packed(html)) for g, cred, v, prev, html in frames},
        HISTORY_TTL,
    )
    cache.delete_many([history_key(g, cred, v - HISTORY_DEPTH) for g, cred, v, _, _ in frames])


def frames_since(group: str, cred: str, shown: int, upto: int) -> list[str] | None:
    """The frames that bring a page of this group and credential from version `shown` to
    `upto`, oldest first, each as it was pushed; None when the history cannot cover the gap
    (too old, expired, or a push that was never kept), so the whole view is needed."""
    if upto <= shown:
        return []
    if upto - shown > HISTORY_DEPTH:
        return None
    versions = range(shown + 1, upto + 1)
    found = cache.get_many([history_key(group, cred, v) for v in versions])
    chain: list[str] = []
    version = upto
    while version > shown:
        entry = found.get(history_key(group, cred, version))
        if not isinstance(entry, tuple):
            return None
        prev, kept = entry
        if prev >= version or not isinstance(kept, bytes):
            return None
        chain.append(unpacked(kept))
        # A frame that follows an older version than the page shows covers it too (one
        # push that spans several versions sends the whole view, naming what it follows).
        version = prev
    chain.reverse()
    return chain


def _render_whole(
    template: str,
    ctx: dict[str, Any],
    *,
    oob: bool,
    prev_version: int | None,
) -> str:
    """An audience's whole view (`template`'s `live` partial), as the page and the socket's
    first frame render it."""
    return render_to_string(
        f"{template}#live",
        {**ctx, "oob": oob, "prev_version": prev_version},
    )


# Where a push keeps, in its `screens.Shared`, the fragments it rendered (render_grown):
# gone with the push.
DRAWN = "drawn"


def render_changes_of(
    audience: str,
    enc: Encounter,
    state: Any,
    *,
    seat: Seat | None = None,
    prev_version: int | None,
    shared: screens.Shared,
    cred: str,
) -> str:
    """One audience's frame for a push (the GM's, `seat`'s or the spectators'): the regions
    of its screen that changed since `prev_version`."""
    if audience == GM:
        template, ctx = "combat/gm.html", screens.gm_context(enc, state, shared)
        regions = screens.gm_regions(ctx)
    elif audience == PLAYER and seat is not None:
        template, ctx = "combat/player.html", screens.player_context(enc, seat, state, shared)
        regions = screens.player_regions(ctx)
    else:
        template, ctx = "combat/spectator.html", screens.public_context(enc, state, shared)
        regions = screens.public_regions(ctx)
    return render_changes(
        template,
        regions,
        lambda: _render_whole(template, ctx, oob=True, prev_version=prev_version),
        encounter_id=enc.pk,
        audience=audience,
        cred=cred,
        version=enc.version,
        prev_version=prev_version,
        drawn=shared.setdefault(DRAWN, {}),
    )


def render_presence(enc: Encounter) -> str:
    ctx = {"presence": screens.presence_counts(enc), "enc": enc, "oob": True}
    return render_to_string("combat/gm.html#presence", ctx)


# --- sending ------------------------------------------------------------------------------


def _send(group: str, message: dict[str, Any]) -> None:
    _send_all([(group, message)])


def _send_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send each (group, message) in order, in one trip to the event loop."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    try:
        async_to_sync(_group_send_each)(layer, messages)
    except Exception:  # a push that fails must not undo a committed command
        log.exception("Could not push to %s", ", ".join(group for group, _ in messages))


async def _group_send_each(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
    for group, message in messages:
        try:
            await layer.group_send(group, message)
        except Exception:  # a push that fails must not undo a committed command
            log.exception("Could not push to %s", group)


def publish(encounter_id: int, committed_version: int | None = None) -> None:
    """After a commit: the current view to every audience that has someone connected.

    `committed_version` is the version the triggering change committed. The frame shows
    the encounter as it is now (later changes included, when they committed meanwhile)
    and says it follows `committed_version - 1`: a page showing an older version than
    that missed a push, and asks for the whole view (static/js/sync.js). Without it the
    frame claims nothing and is taken as a whole view.
    """
    enc = Encounter.objects.filter(pk=encounter_id).first()
    if enc is None:
        return
    version = enc.version
    prev = committed_version - 1 if committed_version is not None else None
    live_rows = presence.rows(encounter_id)
    gm, seat_ids, public = presence.audiences(encounter_id, live_rows)
    if not (gm or seat_ids or public):
        log.debug("pushed enc=%s version=%s prev=%s audiences=0", enc.pk, version, prev)
        return
    # Read only, and `enc` was loaded for this push alone: its parts need no copy.
    state = State.from_dict(enc.state, copy=False)
    shared = screens.Shared(presence=live_rows, seats=list(enc.seats.all()))
    frame = {"type": FRAME, "version": version, "prev": prev}
    # Rendered first, then sent together: one trip to the event loop for the whole push.
    out: list[tuple[str, dict[str, Any]]] = []
    if gm:
        cred = credential(gm_secret(enc))
        html = render_changes_of(GM, enc, state, prev_version=prev, shared=shared, cred=cred)
        out.append((group_name(enc.pk, GM), {**frame, "html": html, "cred": cred}))
    for seat in shared["seats"]:
        if seat.revoked or seat.pk not in seat_ids:
            continue
        cred = credential(seat.token)
        html = render_changes_of(
            PLAYER, enc, state, seat=seat, prev_version=prev, shared=shared, cred=cred
        )
        out.append((group_name(enc.pk, PLAYER, seat.pk), {**frame, "html": html, "cred": cred}))
    if public and enc.spectator_token:
        cred = credential(enc.spectator_token)
        html = render_changes_of(SPECTATOR, enc, state, prev_version=prev, shared=shared, cred=cred)
        out.append((group_name(enc.pk, SPECTATOR), {**frame, "html": html, "cred": cred}))
    if prev is not None:
        keep_frames([(group, m["cred"], version, prev, m["html"]) for group, m in out])
    _send_all(out)
    sent = len(out)
    # One line per push: the integrity tests count pushes with it (tests/integrity).
    log.debug("pushed enc=%s version=%s prev=%s audiences=%s", enc.pk, version, prev, sent)


def publish_presence(encounter_id: int) -> None:
    """Tell the GM who is connected now."""
    enc = Encounter.objects.filter(pk=encounter_id).first()
    if enc is None:
        return
    _send(group_name(enc.pk, GM), {"type": PRESENCE, "html": render_presence(enc)})


def close_seat(encounter_id: int, seat_id: int) -> None:
    _send(group_name(encounter_id, PLAYER, seat_id), {"type": CLOSE})


def close_user(user_id: int) -> None:
    """The account logged out or changed its password: its GM sockets check their log-in."""
    _send(user_group(user_id), {"type": CLOSE})


def close_spectators(encounter_id: int) -> None:
    _send(group_name(encounter_id, SPECTATOR), {"type": CLOSE})


# --- table talk (combat/chat.py) ------------------------------------------------------------


def chat_urls(viewer: Viewer) -> dict[str, str]:
    """The chat region's addresses for one reader. A link's pages post to addresses
    relative to themselves: no secret link is ever written into a page's forms or sent
    over a socket (docs/decisions.md, "Secret links never travel over sockets")."""
    from django.urls import reverse

    if viewer.role == GM:
        args = [viewer.encounter_id]
        return {
            "post": reverse("chat_gm_post", args=args),
            "older": reverse("chat_gm_older", args=args),
            "delete": reverse("chat_gm_delete", args=args),
            "spectators": reverse("chat_gm_spectators", args=args),
            "spectators_write": reverse("chat_gm_spectators_write", args=args),
            "mute": reverse("chat_gm_mute", args=args),
            "unmute": reverse("chat_gm_unmute", args=args),
        }
    if viewer.role == PLAYER:
        return {"post": "chat/", "older": "chat/older/"}
    return {"post": "chat/", "older": "chat/older/"}


def render_chat_messages(viewer: Viewer, enc: Encounter) -> str:
    """The reader's latest messages, swapped over their list (part of a whole view, so a
    page that was away catches up)."""
    ctx = chat.context(viewer, enc, chat_urls(viewer))
    # Spectators get their whole region (the GM may have opened or closed it meanwhile);
    # the table keeps its form (and what is typed in it) and gets the list morphed.
    part = "region" if viewer.role == SPECTATOR else "messages"
    return render_to_string(f"combat/components/chat.html#{part}", {**ctx, "oob": True})


def publish_chat(message_id: int) -> None:
    """After a commit: the one message, rendered per audience that may see it, to exactly
    those groups (a deletion replaces it in place): a whisper reaches no one else."""
    msg = ChatMessage.objects.select_related("encounter").filter(pk=message_id).first()
    if msg is None:
        return
    enc = msg.encounter
    recipients = set(msg.recipients.values_list("pk", flat=True))
    how = "replace" if msg.deleted else "new"
    out: list[tuple[str, dict[str, Any]]] = []
    gm = gm_viewer(enc)
    urls = chat_urls(gm)
    html = chat.render_line(msg, gm, urls["delete"], oob=how, mute_url=urls["mute"])
    out.append(
        (group_name(enc.pk, GM), {"type": CHAT, "html": html, "cred": credential(gm_secret(enc))})
    )
    for seat in enc.seats.filter(revoked=False):
        viewer = seat_viewer(seat)
        if chat.can_see(viewer, msg, recipients, enc):
            html = chat.render_line(msg, viewer, "", oob=how)
            cred = credential(seat.token)
            out.append(
                (group_name(enc.pk, PLAYER, seat.pk), {"type": CHAT, "html": html, "cred": cred})
            )
    public = spectator_viewer(enc)
    if enc.spectator_token and chat.can_see(public, msg, recipients, enc):
        html = chat.render_line(msg, public, "", oob=how)
        cred = credential(enc.spectator_token)
        out.append((group_name(enc.pk, SPECTATOR), {"type": CHAT, "html": html, "cred": cred}))
    _send_all(out)


def publish_chat_region(encounter_id: int) -> None:
    """The spectators' chat region anew (the GM let them read it, or stopped)."""
    enc = Encounter.objects.filter(pk=encounter_id).first()
    if enc is None or not enc.spectator_token:
        return
    viewer = spectator_viewer(enc)
    ctx = chat.context(viewer, enc, chat_urls(viewer))
    html = render_to_string("combat/components/chat.html#region", {**ctx, "oob": True})
    cred = credential(enc.spectator_token)
    _send(group_name(enc.pk, SPECTATOR), {"type": CHAT, "html": html, "cred": cred})
