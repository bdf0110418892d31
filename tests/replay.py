"""A seeded play, and pages kept as a browser keeps them, for the replay tests.

`a_command` is what a GM or a player might do next in a seeded combat
(tests/realtime/test_replay.py plays 150 of them per ruleset); with `windows=True` the
play also seeks out reaction windows (defence prompts turned on, combatants put in melee,
attacks aimed at enemies, moves out of reach, spells and ranged attacks declared in melee)
and has each window answered by the reactor's own player where it has one. `Page` is one audience's
page as a browser holds it: the first page fetched, then every pushed frame applied in the
order it came, by id, with static/js/sync.js's gap rule deciding when to ask for a resync.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from combat import screens, services
from combat.access import Viewer, gm_viewer, seat_viewer
from combat.models import Encounter
from combat.rules import get_ruleset
from combat.rules.paths import reaches
from combat.rules.state import Encounter as State

# Actions that may open a reaction window: attacks and spells (the target's defence
# window; in melee, the Action Ladder's Interrupt windows on a spell or a ranged attack)
# and movement (Opportunity Attack windows for the enemies left behind).
MAY_OPEN_A_WINDOW = frozenset(
    [
        "attack",
        "throw",
        "ability",
        "basic_attack",
        "empowered_attack",
        "cast_spell",
        "empowered_spell",
        "move",
        "step",
        "walk",
        "run",
    ]
)


def a_command(
    enc: Encounter, rng: random.Random, *, windows: bool = False
) -> tuple[Any, dict[str, Any]]:
    """Something a GM or a player might do now (allowed or not: refusals count too).

    `windows` steers the play towards reaction windows; without it the play (and what a
    seed gives) is as it always was. On a map an action aimed at someone out of reach is
    made from beside it (`step_in`)."""
    state = screens.load_state(enc)
    gm = gm_viewer(enc)
    ids = list(state.combatants)
    if windows:
        seeking = a_window_command(enc, state, rng)
        if seeking is not None:
            return seeking
    roll = rng.random()
    if state.pending and roll < 0.5:
        w = rng.choice(state.pending)
        accept = rng.random() < 0.5
        return gm, {"type": "react", "window": w.id, "actor": w.reactor, "accept": accept}
    if state.phase == "setup":
        return gm, {"type": "start_combat"}
    if state.phase == "seize":
        return gm, {"type": "begin_round"}
    if state.phase == "ended":
        return gm, {"type": "undo"}
    turn = state.turn
    if roll < 0.06:
        return gm, {"type": "undo"}
    if roll < 0.12 and ids:
        return gm, hide_or_reveal(state, ids, rng.choice(ids), toggle=roll >= 0.09)
    if roll < 0.2 and ids:
        return gm, {"type": rng.choice(["damage", "heal"]), "actor": rng.choice(ids), "amount": 3}
    if roll < 0.24 and ids:
        seat = enc.seats.filter(revoked=False).order_by("?").first()
        if seat is not None:
            services.assign_combatant(enc.pk, rng.choice(ids), rng.choice([seat.pk, None]))
        return gm, {"type": "roll", "dice": "1d6"}
    if turn is None:
        return gm, {"type": "end_combat"}
    who = gm
    seat = next((s for s in enc.seats.filter(revoked=False) if turn in s.combatant_ids), None)
    if seat is not None and rng.random() < 0.7:
        who = seat_viewer(seat)
    panel = screens.action_panel(state, turn, ids)
    allowed = [a for a in panel if a["allowed"]]
    if allowed and roll < 0.8:
        key, options = an_action(state, turn, allowed, rng, windows=windows)
        step_in(enc, state, turn, key, options)
        return who, {"type": "act", "actor": turn, "action": key, "options": options}
    return who, {"type": "end_turn", "actor": turn}


def hide_or_reveal(state: State, ids: list[str], cid: str, *, toggle: bool) -> dict[str, Any]:
    """The GM hides the combatant picked, or reveals it when it is hidden. With `toggle`
    (half of these commands) the GM hides a visible NPC while fewer than two are hidden,
    else reveals one of them: so the play sees both, and always has a hidden attacker
    (picked among five, the one hidden combatant would seldom come up). No die is rolled
    for it."""
    hidden = [i for i in ids if state.combatants[i].hidden]
    shown = [i for i in ids if state.combatants[i].side != "pc" and i not in hidden]
    pool = hidden if len(hidden) >= 2 or not shown else shown
    if toggle and pool:
        cid = pool[ids.index(cid) % len(pool)]
    return {"type": "reveal" if state.combatants[cid].hidden else "hide", "actor": cid}


def an_action(
    state: State, cid: str, allowed: list[dict[str, Any]], rng: random.Random, *, windows: bool
) -> tuple[str, dict[str, Any]]:
    """One of the allowed actions of the action panel, with its options."""
    prone = [a for a in allowed if a["key"] in MAY_OPEN_A_WINDOW]
    a = rng.choice(prone if windows and prone and rng.random() < 0.7 else allowed)
    options = {f["name"]: f["default"] for f in a["fields"] if f["default"] != ""}
    if windows:
        aim(state, cid, a["fields"], options, rng)
    return a["key"], options


def player_of(enc: Encounter, cid: str) -> Viewer | None:
    """The viewer of the seat that plays a combatant, if one does."""
    seat = next((s for s in enc.seats.filter(revoked=False) if cid in s.combatant_ids), None)
    return seat_viewer(seat) if seat is not None else None


def a_window_command(enc: Encounter, state: State, rng: random.Random) -> Any:
    """A command that answers a reaction window or makes one likelier, or None (the
    ordinary play goes on)."""
    gm = gm_viewer(enc)
    if state.pending and rng.random() < 0.6:
        w = rng.choice(state.pending)
        # The reactor's player answers (a player cannot see a hidden combatant of theirs:
        # that answer is refused, and counts too); the GM answers for the rest.
        who = player_of(enc, w.reactor) if rng.random() < 0.8 else None
        accept = rng.random() < 0.6
        return who or gm, {"type": "react", "window": w.id, "actor": w.reactor, "accept": accept}
    if state.phase in ("setup", "seize", "ended"):
        return None
    roll = rng.random()
    standing = [c for c in state.combatants.values() if not c.defeated]
    per_combatant = {s.key for s in get_ruleset(enc.ruleset).settings if s.per_combatant}
    if roll < 0.08 and standing and "defence_prompts" in per_combatant:
        # The GM turns the PCs' prompts on (their players answer), then an NPC's on or off.
        unset = [c for c in standing if c.side == "pc" and not c.mods.get("defence_prompts")]
        npcs = [c for c in standing if c.side != "pc"]
        c = rng.choice(unset or npcs or standing)
        on = bool(unset) or rng.random() < 0.7
        command = {"type": "set_modifier", "actor": c.id, "key": "defence_prompts", "value": on}
        return gm, command
    if roll < 0.12:
        pairs = [
            (a, b)
            for a in standing
            for b in standing
            if a.side == "pc" and b.side != "pc" and b.id not in a.engaged
        ]
        if pairs:
            a, b = rng.choice(pairs)
            beside = _cell_beside(state, a.id, b.id)
            if beside is not None:
                # On a map, engagement follows from where the tokens stand.
                return gm, {"type": "place", "actor": a.id, "cell": beside}
            return gm, {"type": "engage", "actor": a.id, "target": b.id}
    return None


# Actions aimed at a combatant from afar: the map does not bring their maker next to it.
AFAR = frozenset(["throw", "toss"])


def step_in(enc: Encounter, state: State, cid: str, key: str, options: dict[str, Any]) -> None:
    """On a map, an action aimed at someone farther than the next cell (a melee attack
    needs its target within reach, an Interrupt an adjacent one) is made from beside it:
    the GM first places the actor's token there, as a table whose player walked up would
    have it. So the play's attacks, hidden attackers' included, still open their windows.
    A ranged attack, a throw or a toss stays where it is. Rolls no die of the play."""
    target = state.combatants.get(str(options.get("target") or ""))
    c = state.combatants.get(cid)
    if c is None or target is None or target.id == cid or key in AFAR or options.get("ranged"):
        return
    if reaches(state, c, target, adjacent=True):
        return  # no map, either token off it, or next to each other already
    beside = _cell_beside(state, cid, target.id)
    if beside is not None:
        services.run_command(
            enc.pk, gm_viewer(enc), {"type": "place", "actor": cid, "cell": beside}
        )


def _cell_beside(state: State, mover: str, enemy: str) -> str | None:
    """A free cell next to `enemy`'s token ("x,y") for `mover`'s token, or None without a
    map (or with either off it)."""
    board = state.board
    tokens = board["tokens"] if board else {}
    if not board or not (tokens.get(mover) or {}).get("at") or not tokens.get(enemy, {}).get("at"):
        return None
    taken = {tuple(t["at"]) for cid, t in tokens.items() if t.get("at") and cid != mover}
    walls = {k for k, v in (board.get("terrain") or {}).items() if v in ("wall", "deep_water")}
    ex, ey = tokens[enemy]["at"]
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)):
        x, y = ex + dx, ey + dy
        inside = 0 <= x < board["width"] and 0 <= y < board["height"]
        if inside and (x, y) not in taken and f"{x},{y}" not in walls:
            return f"{x},{y}"
    return None


def aim(
    state: State,
    cid: str,
    fields: list[dict[str, Any]],
    options: dict[str, Any],
    rng: random.Random,
) -> None:
    """Aim an action at a random standing enemy (not always the first), and make some
    attacks ranged."""
    side = state.combatants[cid].side
    for f in fields:
        if f["kind"] == "target":
            enemies = [
                t["id"]
                for t in f["targets"]
                if (c := state.combatants.get(t["id"])) and c.side != side and not c.defeated
            ]
            if enemies:
                options[f["name"]] = rng.choice(enemies)
        elif f["name"] == "ranged":
            options["ranged"] = rng.random() < 0.35


# --- pages as a browser keeps them ----------------------------------------------------------

# Elements that never have an end tag (the HTML spec's void elements).
VOID = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    ]
)


# Elements whose end tag may be left out (those the templates use).
OPTIONAL_END = frozenset(["option", "optgroup", "li", "p", "dt", "dd", "tr", "td", "th"])


class _Spans(HTMLParser):
    """Where each element with an id starts and ends in a piece of HTML, and which of
    them stand at the top (not inside another element)."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=False)
        self.lines = [0]
        for line in html.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.open: list[tuple[str, str | None, int]] = []
        self.spans: dict[str, tuple[int, int]] = {}
        self.top: list[tuple[str | None, int, int]] = []
        self.html = html
        self.feed(html)
        self.close()
        assert not self.open, f"unclosed elements: {[tag for tag, _, _ in self.open]}"

    def _here(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def _ended(self, tag: str, ident: str | None, start: int, end: int) -> None:
        if ident is not None:
            assert ident not in self.spans, f"two elements with id {ident!r}"
            self.spans[ident] = (start, end)
        if not self.open:
            self.top.append((ident, start, end))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._here()
        ident = dict(attrs).get("id")
        if tag in VOID:
            end = start + len(self.get_starttag_text() or "")
            self._ended(tag, ident, start, end)
        else:
            self.open.append((tag, ident, start))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._here()
        end = start + len(self.get_starttag_text() or "")
        self._ended(tag, dict(attrs).get("id"), start, end)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        at = self._here()
        end = self.html.index(">", at) + 1
        # Elements whose end tag HTML lets a page leave out (<option>, <li>, <p>...) end
        # with their parent; no span is kept for them. Anything else is a broken page.
        while (top := self.open.pop())[0] != tag:
            assert top[0] in OPTIONAL_END, f"</{tag}> closes <{top[0]}> at {at}"
        self._ended(tag, top[1], top[2], end)


OOB = re.compile(r'\s+hx-swap-oob="([^"]*)"')


def swaps(frame: str) -> tuple[list[tuple[str, str, str]], str]:
    """The out-of-band elements of a frame as (how, target id, html) in order, and what is
    left.

    htmx takes each element marked hx-swap-oob out of the message and swaps it by its own
    id, or into the element its value names ("afterbegin:#log-list"); it removes that
    attribute first (htmx.min.js: `r.removeAttribute(e)`), and for a swap that is not
    "outer" it puts the element's children in, not the element. The rest of the message
    goes to the socket's target, #ws-sink."""
    spans = _Spans(frame)
    out, rest, last = [], [], 0
    for ident, start, end in spans.top:
        element = frame[start:end]
        tag_end = element.index(">")
        found = OOB.search(element[:tag_end])
        if found is None:
            continue
        how, _, target = found.group(1).partition(":")
        if how == "true":
            how = "outerHTML"
        html = OOB.sub("", element[:tag_end], count=1) + element[tag_end:]
        if not how.startswith("outer"):
            html = html[html.index(">") + 1 : html.rindex("<")]
        named = target.removeprefix("#") if target else ident
        assert named, f"an out-of-band element with no target: {element[:tag_end]}"
        out.append((how, named, html))
        rest.append(frame[last:start])
        last = end
    rest.append(frame[last:])
    return out, "".join(rest)


def fragments(frame: str) -> tuple[list[tuple[str, str]], str]:
    """The out-of-band elements of a frame as (target id, html) in order, and what is left."""
    out, rest = swaps(frame)
    return [(ident, html) for _, ident, html in out], rest


SYNC_VERSION = re.compile(r'<form id="sync"[^>]*?\sdata-version="(\d+)"')
SYNC_FOLLOWS = re.compile(r'<form id="sync"[^>]*?\sdata-prev-version="(\d+)"')


@dataclass
class Page:
    """One audience's page in a browser: the page as fetched, then each frame applied."""

    html: str
    asked: bool = False  # a resync was asked for and no whole view has come since
    gaps: int = 0  # gaps noticed (each would ask for a resync)
    frames: int = 0
    missing: list[str] = field(default_factory=list)  # ids a frame carried, the page lacked

    def version(self, pattern: re.Pattern[str] = SYNC_VERSION) -> int | None:
        found = pattern.search(self.html)
        return int(found.group(1)) if found else None

    def replace(self, elements: list[tuple[str, str, str]]) -> None:
        """Each (how, id, html) swapped into the page's element with that id: in its place
        ("outerHTML", "outerMorph"), before its first child or after its last ("afterbegin",
        "beforeend"), right after it ("afterend"), or the element taken away ("delete"). As
        htmx 4 does, every target is found on the page as it was before the frame."""
        spans = _Spans(self.html).spans
        found = []
        for how, ident, element in elements:
            if ident not in spans:
                # htmx finds no target and drops the element: what it carried is never
                # shown. (Taking away what is not there loses nothing.)
                if how != "delete":
                    self.missing.append(ident)
                continue
            start, end = spans[ident]
            if how == "afterbegin":
                start = end = self.html.index(">", start) + 1
            elif how == "beforeend":
                start = end = self.html.rindex("<", start, end)
            elif how == "afterend":
                start = end
            elif how == "delete":
                element = ""
            else:
                assert how.startswith("outer"), f"a swap the page does not take: {how}"
            found.append((start, end, element))
        # One parse for the whole frame: replaced from the end, so earlier offsets hold.
        found.sort(reverse=True)
        for (start, end, element), after in zip(found, [None, *found], strict=False):
            assert after is None or end <= after[0], "a frame's regions overlap"
            self.html = self.html[:start] + element + self.html[end:]

    def apply(self, frame: str) -> bool:
        """Follow static/js/sync.js, then swap a frame in as htmx does: True if the page
        asks for what it missed (the frame follows a newer version than the page shows,
        so it is not applied); a frame of a version the page shows already is not applied
        either."""
        shown = self.version()
        found = SYNC_FOLLOWS.search(frame)
        version = SYNC_VERSION.search(frame)
        if found and version and shown is not None:
            pushed, follows = int(version.group(1)), int(found.group(1))
            if not (pushed > shown and follows <= shown):
                if pushed <= shown:
                    return False  # shown already
                self.gaps += 1
                if self.asked:
                    return False  # asked already; sync.js asks again only after 2 s
                self.asked = True
                return True
        parts, rest = swaps(frame)
        if rest.strip():
            # hx-ws: what is not out of band goes into the socket's hx-target (innerHTML),
            # unless it is empty (swapEmpty:false).
            parts.append(("outerHTML", "ws-sink", f'<div id="ws-sink" hidden>{rest}</div>'))
        self.replace(parts)
        self.frames += 1
        if version is not None:
            self.asked = False  # a whole view, or a push in step: nothing is missing any more
        return False


CSRF_INPUT = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="[^"]*">')
CSRF_HEADER = re.compile(r'"X-CSRFToken": "[^"]*"')
NONCE = re.compile(r'nonce="[^"]*"')
PREV_VERSION = re.compile(r'(<form id="sync"[^>]*?)\sdata-prev-version="\d+"')
LOADED_AT = re.compile(r'(hx-ws:connect="[^"?]*)\?v=\d+"')


def normalised(html: str) -> str:
    """A page with what legitimately differs between two renders of one version taken out.

    - The CSRF token: a fetched page carries one (masked afresh on every request) in
      <body hx-headers> and in its forms; a pushed fragment is rendered outside any request
      and carries none. htmx sends the token from <body>'s hx-headers:inherited with every
      request, so a form without its hidden input still posts.
    - The Content-Security-Policy nonce on <script>: new for every response, by design.
    - data-prev-version on #sync: it says which version the last push followed (the page's
      history, read by static/js/sync.js); the version the page shows, data-version, stays.
    - `?v=` on the socket's address: the version the page was loaded at, so that its socket
      gets what it missed since rather than the whole view (static/js/sync.js moves it on
      before a reconnect); frames never redraw it.
    """
    html = CSRF_INPUT.sub("", html)
    html = CSRF_HEADER.sub('"X-CSRFToken": "-"', html)
    html = NONCE.sub('nonce="-"', html)
    html = LOADED_AT.sub(r'\1"', html)
    return PREV_VERSION.sub(r"\1", html)


def element(html: str, ident: str) -> str | None:
    """The element of a page with that id, or None."""
    span = _Spans(html).spans.get(ident)
    return html[span[0] : span[1]] if span else None


def first_difference(replayed: str, fresh: str) -> str:
    """Where two pages part, by the innermost element with an id, for a failure message."""
    at = next(
        (i for i, (a, b) in enumerate(zip(replayed, fresh, strict=False)) if a != b),
        min(len(replayed), len(fresh)),
    )
    spans = _Spans(fresh).spans
    around = [(end - start, ident) for ident, (start, end) in spans.items() if start <= at < end]
    region = min(around)[1] if around else "(outside every region)"
    return (
        f"#{region} differs at character {at}:\n"
        f"  replayed: ...{replayed[max(0, at - 120) : at + 200]!r}\n"
        f"  fresh:    ...{fresh[max(0, at - 120) : at + 200]!r}"
    )
