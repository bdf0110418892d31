"""Two full rounds per ruleset with a GM, two players and a spectator, each in their own browser.

Each player acts on their own turn through their page (press the action, choose its
options, submit) and ends the turn; the GM acts for the NPCs (one of them hidden) and
advances. After every click, every other page must show the change without a reload:
the log line, the HP and AP (or effort and Bonus Action) widgets, the initiative
marker, the round and pass. Ruleset by ruleset:

- Action Points: attacks, an Empowered Attack, a utility action, the AP left over lost.
- Action Ladder: every attack is held for the defender, who Dodges or lets it pass from
  their own page (Ana's player answers the Goblin; the GM answers for the NPCs, and for
  Bram against the hidden Troll, since Bram's player may not know it is there).
- Initiative Passes: Bram Seizes the Moment before round 1, two passes a round.

Every die is 1d1 (see conftest), so each attack hits for a known amount.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import HIDDEN, HP, People, Person, Table, act, end_turn, reveal

# --- what happens in a turn ---------------------------------------------------------------------


def frames_said(frames: list[str], last: int = 5) -> list[str]:
    """The last frames a page received, each as its version, the version it follows and
    the ids of what it puts on the page (what a failure needs to tell where a frame went)."""
    out = []
    for frame in frames[-last:]:
        sync = re.search(r'<form id="sync"[^>]*>', frame)
        tag = sync.group(0) if sync else ""
        v = re.search(r'data-version="(\d+)"', tag)
        prev = re.search(r'data-prev-version="(\d+)"', tag)
        ids = re.findall(
            r'<[a-z]+ id="([^"]+)"[^>]*hx-swap-oob|hx-swap-oob="[a-z]+:#([^"]+)"', frame
        )
        named = [a or b for a, b in ids][:12]
        out.append(
            f"v{v.group(1) if v else '?'}<-{prev.group(1) if prev else '-'} {len(frame)} B {named}"
        )
    return out


@dataclass
class Defence:
    """The Action Ladder holds an attack for the defender: who answers, and how."""

    dodge: bool  # Dodge (1 Bonus Action) or no reaction (plain defence)


@dataclass
class Attack:
    key: str
    name: str
    target: str
    damage: int
    cost: int
    options: dict[str, Any] = field(default_factory=dict)
    defence: Defence | None = None

    def line(self, who: str) -> re.Pattern[str]:
        dodge = r" \+ Dodge \d+ = \d+" if self.defence and self.defence.dodge else ""
        return re.compile(
            rf"^{re.escape(who)}: {re.escape(self.name)}\b.* on {re.escape(self.target)}\b.*?, "
            rf"\d+ against melee defence \d+{dodge}: hit for {self.damage} damage\.$"
        )

    def window_line(self, who: str) -> re.Pattern[str]:
        """The Action Ladder's first line: the attack is declared, the defender may react."""
        t = re.escape(self.target)
        return re.compile(
            rf"^{re.escape(who)} attacks {t} with {re.escape(self.name)} \(.*\): {t} may Dodge "
            rf"or Parry, or take it on its plain defence\.$"
        )


@dataclass
class Plain:
    key: str
    name: str
    cost: int
    text: str

    def line(self, who: str) -> re.Pattern[str]:
        return re.compile(
            rf"^{re.escape(who)} takes {re.escape(self.name)} \({self.cost} AP\): "
            rf"{re.escape(self.text)}\.$"
        )


@dataclass
class Turn:
    who: str
    actions: list[Attack | Plain]
    # After the actions: an action now out of reach, and the start of its reason.
    unaffordable: tuple[str, str] | None = None


@dataclass
class Ruleset:
    key: str
    # Turns of each round, in order (rounds 1 and 2).
    rounds: list[list[Turn]]
    pool: str  # the resource widget actions are paid from: "ap" or "effort"
    size: int  # how full it is when refilled
    start: int  # what everyone has before their first turn
    # Refilled at the start of one's own turn and lost at its end (else: once a round).
    per_turn: bool
    lost: Callable[[str, int], str] | None = None  # the log line for what is lost
    passes: bool = False
    grit: dict[str, int] = field(default_factory=dict)
    bonus: int = 0  # Bonus Actions (Action Ladder), refilled on one's own turn


def ap_round() -> list[Turn]:
    return [
        Turn(
            "Ana",
            [
                Attack("basic_attack", "Basic Attack", "Goblin", 1, 1),
                Plain("quick_utility", "Quick Utility", 1, "drinks a potion"),
            ],
            unaffordable=("complex_utility", "Not enough AP: Complex Utility costs 2, Ana has 1."),
        ),
        Turn(
            "Bram",
            [
                Attack(
                    "empowered_attack",
                    "Empowered Attack",
                    "Goblin",
                    3,
                    2,
                    {"to_hit": 0, "damage": 1},
                )
            ],
        ),
        Turn("Goblin", [Attack("basic_attack", "Basic Attack", "Ana", 1, 1)]),
        Turn(HIDDEN, [Attack("basic_attack", "Basic Attack", "Bram", 1, 1)]),
    ]


def passes_round(first: str, second: str) -> list[Turn]:
    """Two passes: a Major action (2 AP) in the first, a Minor one (1 AP) in the second."""
    target = {"Ana": "Goblin", "Bram": "Goblin", "Goblin": "Ana", HIDDEN: "Bram"}
    order = [first, second, "Goblin", HIDDEN]
    pass1 = [Turn(w, [Attack("attack", "Attack", target[w], 1, 2)]) for w in order]
    pass2 = [Turn(w, [Plain("minor_action", "Minor Action", 1, f"{w} reloads")]) for w in order]
    pass2[1].unaffordable = ("attack", f"Not enough AP: Attack costs 2, {second} has 0 left")
    return [*pass1, *pass2]


def ladder_round() -> list[Turn]:
    """Attacks (½ Action each) are held for the defender: the GM answers for the NPCs
    (and for Bram against the hidden Troll, whom Bram's player must not learn of);
    Ana's player answers the Goblin's attack herself."""

    def attack(target: str, dodge: bool) -> Attack:
        return Attack("attack", "Attack", target, 1, 1, defence=Defence(dodge))

    return [
        Turn(
            "Ana",
            [attack("Goblin", dodge=False), attack("Goblin", dodge=True)],
            unaffordable=(
                "attack",
                "Not enough effort: Attack costs ½ Action, Ana has no Actions left this turn.",
            ),
        ),
        Turn("Bram", [attack("Goblin", dodge=False)]),
        Turn("Goblin", [attack("Ana", dodge=True)]),
        Turn(HIDDEN, [attack("Bram", dodge=False)]),
    ]


def ap_lost(who: str, left: int) -> str:
    return f"{who}'s {left} unspent AP {'is' if left == 1 else 'are'} lost."


def effort_lost(who: str, left: int) -> str:
    amount = {1: "½ Action", 2: "1 Action"}[left]
    return f"{who}'s unspent {amount} is lost; Bonus Actions stay for Reactions."


RULESETS = {
    "action_points": Ruleset(
        "action_points", [ap_round(), ap_round()], "ap", 3, 3, per_turn=True, lost=ap_lost
    ),
    "action_ladder": Ruleset(
        "action_ladder",
        [ladder_round(), ladder_round()],
        "effort",
        2,
        0,
        per_turn=True,
        lost=effort_lost,
        bonus=2,
    ),
    # Bram has 1 Grit and Seizes the Moment before round 1, so he goes first in round 1 only.
    "initiative_passes": Ruleset(
        "initiative_passes",
        [passes_round("Bram", "Ana"), passes_round("Ana", "Bram")],
        "ap",
        3,
        3,
        per_turn=False,
        passes=True,
        grit={"Bram": 1},
    ),
}


# What `Play.expect_line` is about when a line concerns no combatant in particular.
PUBLIC = "public"


# --- the table as the test expects it -------------------------------------------------------


class Play:
    """Drives the pages and keeps what every page should now show."""

    def __init__(self, table: Table, people: People, rs: Ruleset) -> None:
        self.t, self.people, self.rs = table, people, rs
        self.hp = {name: HP for name in table.ids}
        self.pool = {name: rs.start for name in table.ids}
        self.bonus = {name: rs.bonus for name in table.ids}
        # The log entry of the last accepted command (the setup commands came first).
        self.seq = int(people.gm.log.locator("li").first.get_attribute("data-seq") or 0)
        self.timings: list[tuple[str, str, float, float]] = []

    def cid(self, name: str) -> str:
        return self.t.ids[name]

    def person_for(self, name: str) -> Person:
        return {"Ana": self.people.p1, "Bram": self.people.p2}.get(name, self.people.gm)

    def audience(self, name: str) -> list[Person]:
        """Everyone who may see things about this combatant (or PUBLIC: everyone)."""
        return [self.people.gm] if name == HIDDEN else self.people.everyone

    # -- expectations -----------------------------------------------------------------------
    def clicked(self) -> None:
        """One more accepted command: its log entry is the next one (data-seq)."""
        self.seq += 1

    def expect_line(self, pattern: re.Pattern[str], about: str) -> None:
        """A line like this in the newest log entry of every page that may see it; on the
        other pages that entry has no such line (if they show the entry at all)."""
        for p in self.people.everyone:
            lines = p.log.locator(f"li[data-seq='{self.seq}'] .text").filter(has_text=pattern)
            count = 1 if p in self.audience(about) else 0
            try:
                expect(lines, f"{p.name}: log #{self.seq} {pattern.pattern}").to_have_count(count)
            except AssertionError as failed:
                # What the page showed instead: its version and the newest entries' words.
                shown = p.page.evaluate(
                    "() => [document.querySelector('#sync')?.dataset.version,"
                    " [...document.querySelectorAll('#log li[data-seq]')].slice(0, 3)"
                    ".map(li => li.dataset.seq + ': ' + li.innerText)]"
                )
                self.t.enc.refresh_from_db()
                raise AssertionError(
                    f"{failed}\n{p.name}'s page at version {shown[0]} (the encounter at "
                    f"{self.t.enc.version}), its newest log entries: {shown[1]}, "
                    f"{len(p.frames)} frames received; the last ones: {frames_said(p.frames)}"
                ) from failed

    def expect_widgets(self, name: str) -> None:
        cid = self.cid(name)
        for p in self.audience(name):
            expect(p.hp(cid), f"{p.name}: {name}'s HP").to_have_text(f"HP {self.hp[name]} of {HP}")
            expect(p.resource(cid, self.rs.pool), f"{p.name}: {name}'s pool").to_have_attribute(
                "data-value", str(self.pool[name])
            )
            if self.rs.bonus:
                expect(
                    p.resource(cid, "bonus"), f"{p.name}: {name}'s Bonus Actions"
                ).to_have_attribute("data-value", str(self.bonus[name]))

    def expect_turn(self, name: str, round_no: int, pass_no: int = 1) -> None:
        where = f", pass {pass_no}" if self.rs.passes else ""
        self.expect_line(
            re.compile(rf"^{re.escape(name)}'s turn \(round {round_no}{where}\)\.$"), name
        )
        cid = self.cid(name)
        for p in self.people.everyone:
            current = p.acting_row
            round_text = f"Round {round_no}{where}"
            expect(p.status.get_by_test_id("round"), p.name).to_have_text(round_text)
            if p in self.audience(name):
                expect(current, f"{p.name}: whose turn").to_have_attribute("data-combatant", cid)
                expect(p.status.get_by_test_id("turn"), p.name).to_have_text(f"Turn: {name}")
            else:
                # The hidden NPC's turn: nobody is marked, and nobody is named.
                expect(current, f"{p.name}: whose turn").to_have_count(0)
                expect(p.status.get_by_test_id("turn"), p.name).to_have_text("Waiting for the GM…")
        # "Your turn" is called out on the acting player's page, and on no one else's.
        for p in (self.people.p1, self.people.p2):
            alert = p.page.locator("#turn-alert [data-testid^='your-turn-']")
            if p is self.person_for(name):
                expect(alert, f"{p.name}: your turn").to_have_attribute(
                    "data-testid", f"your-turn-{cid}"
                )
            else:
                expect(alert, f"{p.name}: not your turn").to_have_count(0)

    def turn_starts(self, who: str) -> None:
        if self.rs.per_turn:
            self.pool[who] = self.rs.size
        self.bonus[who] = self.rs.bonus

    def expect_no_refusal(self, p: Person) -> None:
        expect(p.page.get_by_test_id("refusal"), f"{p.name} was refused").to_have_count(0)

    # -- moves --------------------------------------------------------------------------------
    def do(self, who: str, action: Attack | Plain, measure: bool = False) -> None:
        p = self.person_for(who)
        cid = self.cid(who)
        options: dict[str, Any] = {}
        if isinstance(action, Attack):
            options = {"target": self.cid(action.target), **action.options}
        else:
            options = {"target": "", "text": action.text}
        line = action.line(who)
        held = isinstance(action, Attack) and action.defence is not None
        # What every page shows first: the result, or (Action Ladder) the held attack.
        first = action.window_line(who) if isinstance(action, Attack) and held else line
        watchers = [q for q in self.people.everyone if q is not p]
        if measure:
            start_clock(p, watchers, first, self.seq + 1)
        t0 = time.perf_counter()
        act(p, cid, action.key, **options)
        self.clicked()
        self.pool[who] -= action.cost
        self.expect_line(first, who)
        if measure:
            wall_ms = (time.perf_counter() - t0) * 1000
            for q, ms in read_clock(p, watchers):
                self.timings.append((p.name, q.name, ms, wall_ms))
        if isinstance(action, Attack) and held:
            self.defend(who, action)
        if isinstance(action, Attack):
            self.hp[action.target] -= action.damage
        self.expect_line(line, who)
        self.expect_no_refusal(p)
        self.expect_widgets(who)
        if isinstance(action, Attack):
            self.expect_widgets(action.target)

    def end(self, who: str, *, round_over: bool = False) -> None:
        p = self.person_for(who)
        if p.role == "gm":
            p.page.get_by_test_id("advance-turn").click()
        else:
            end_turn(p, self.cid(who))
        self.clicked()
        self.expect_line(re.compile(rf"^{re.escape(who)} ends the turn\.$"), who)
        if self.rs.per_turn:
            left = self.pool[who]
            self.pool[who] = 0
            if left and self.rs.lost:
                self.expect_line(re.compile(rf"^{re.escape(self.rs.lost(who, left))}$"), who)
        elif round_over:
            # The next round began at once: every pool is full again.
            self.pool = dict.fromkeys(self.pool, self.rs.size)
        self.expect_no_refusal(p)
        self.expect_widgets(who)

    def defend(self, who: str, action: Attack) -> None:
        """The attack waits for the defender: only the defender's player (or the GM for
        an NPC, or against a hidden attacker) gets the buttons; then it is rolled."""
        assert action.defence
        target = action.target
        tid = self.cid(target)
        hidden = HIDDEN in (who, target)
        about = HIDDEN if hidden else who
        self.expect_line(action.window_line(who), about)
        # Attacked by someone unseen, the defender's player still answers (the prompt says
        # "someone unseen"); only a hidden defender's answer is the GM's alone.
        answerer = self.people.gm if target == HIDDEN else self.person_for(target)
        window = answerer.page.locator(f"#reactions [data-reactor='{tid}']")
        expect(window, f"{answerer.name}: the prompt for {target}").to_have_count(1)
        if who == HIDDEN and answerer.role == "player":
            expect(window).to_contain_text("someone unseen")
        wid = (window.get_attribute("data-testid") or "").removeprefix("window-")
        for p in (self.people.gm, self.people.p1, self.people.p2):
            buttons = p.page.locator(f"#reactions [data-testid='defend-{wid}-dodge']")
            mine = p is answerer or p.role == "gm"
            if target == HIDDEN and p.role != "gm":
                expect(p.page.locator(f"#reactions [data-reactor='{tid}']"), p.name).to_have_count(
                    0
                )
            expect(buttons, f"{p.name}: Dodge for {target}").to_have_count(1 if mine else 0)
            if mine:
                expect(buttons).to_have_text("Dodge +0")
                parry = p.page.locator(f"#reactions [data-testid='defend-{wid}-parry-str']")
                expect(parry, f"{p.name}: Parry for {target}").to_have_text("Parry with STR +0")
            if p.role == "player":
                alert = p.page.get_by_test_id(f"reaction-alert-{wid}")
                expect(alert, f"{p.name}: reaction alert").to_have_count(1 if mine else 0)
        choice = f"defend-{wid}-dodge" if action.defence.dodge else f"decline-{wid}"
        answerer.page.get_by_test_id(choice).click()
        self.clicked()
        if action.defence.dodge:
            self.bonus[target] -= 1
        else:
            self.expect_line(re.compile(rf"^{re.escape(target)} lets the moment pass\.$"), about)
        for p in (self.people.gm, self.people.p1, self.people.p2):
            expect(p.page.locator("#reactions [data-testid^='window-']"), p.name).to_have_count(0)
        self.expect_no_refusal(answerer)

    def unaffordable(self, who: str, key: str, reason: str) -> None:
        """The action is shown, disabled, with the reason, on the acting person's page."""
        p = self.person_for(who)
        cid = self.cid(who)
        scope = "#turn" if p.role == "gm" else f"#panel-{cid}"
        form = p.page.locator(scope).get_by_test_id(f"action-{cid}-{key}")
        expect(form).to_have_attribute("data-allowed", "false")
        expect(form.get_by_test_id(f"action-button-{cid}-{key}")).to_be_disabled()
        reveal(form)
        expect(form.get_by_test_id("reason")).to_be_visible()
        expect(form.get_by_test_id("reason")).to_contain_text(reason)


# --- in-browser clocks: from the click on one page to the change on another ---------------------
# Date.now() in both pages: one machine, one wall clock. (performance.timeOrigin differs
# between renderer processes by up to ~0.1 s here, which gave negative delays.)

_WATCH = """([source, seq]) => {
  const pattern = new RegExp(source);
  window.__seenAt = null;
  const look = () => {
    if (window.__seenAt !== null) return;
    for (const el of document.querySelectorAll(`#log li[data-seq="${seq}"] .text`)) {
      if (pattern.test(el.textContent)) {
        window.__seenAt = Date.now();
        return;
      }
    }
  };
  new MutationObserver(look).observe(document.body,
    {subtree: true, childList: true, characterData: true});
}"""

_CLICK = """() => {
  window.__clickAt = null;
  document.addEventListener('click', () => {
    window.__clickAt = Date.now();
  }, {capture: true, once: true});
}"""


def start_clock(actor: Person, watchers: list[Person], line: re.Pattern[str], seq: int) -> None:
    """Each watcher notes when the line first shows in the log entry `seq` (not an older
    line with the same words: round 2 repeats round 1)."""
    for q in watchers:
        q.page.evaluate(_WATCH, [line.pattern, seq])
    actor.page.evaluate(_CLICK)


def read_clock(actor: Person, watchers: list[Person]) -> list[tuple[Person, float]]:
    clicked = actor.page.evaluate("window.__clickAt")
    assert clicked is not None
    out = []
    for q in watchers:
        seen = q.page.evaluate("window.__seenAt")
        assert seen is not None, f"{q.name} never showed the line"
        out.append((q, seen - clicked))
    return out


# --- the test -------------------------------------------------------------------------------------


def seize_the_moment(play, people, rs) -> None:
    """Between rounds: whoever has Grit may Seize the Moment, then the GM begins the round."""
    for p in people.everyone:
        expect(p.status, p.name).to_have_attribute("data-phase", "seize")
    for name, n in rs.grit.items():
        who = play.person_for(name)
        for p in play.audience(name):
            expect(p.resource(play.cid(name), "grit"), p.name).to_have_attribute(
                "data-value", str(n)
            )
        who.page.locator(f"#panel-{play.cid(name)}").get_by_test_id(
            f"seize-{play.cid(name)}"
        ).click()
        play.clicked()
        play.expect_line(
            re.compile(
                rf"^{name} spends 1 Grit to Seize the Moment and will act first in round 1\.$"
            ),
            name,
        )
        for p in play.audience(name):
            expect(p.resource(play.cid(name), "grit"), p.name).to_have_attribute(
                "data-value", str(n - 1)
            )
    people.gm.page.get_by_test_id("begin-round").click()
    play.clicked()


def report_timings(ruleset: str, play) -> None:
    print(
        f"\n[{ruleset}] a player's click -> the same change on another page "
        f"(in-browser clocks, {len(play.timings) // 3} clicks):"
    )
    for watcher in ("GM", "Player 1", "Player 2", "Spectator"):
        ms = sorted(m for _, w, m, _ in play.timings if w == watcher)
        if ms:
            print(
                f"  {watcher:9}: median {statistics.median(ms):4.0f} ms, "
                f"fastest {ms[0]:4.0f} ms, slowest {ms[-1]:4.0f} ms"
            )
    walls = [wall for *_, wall in play.timings]
    print(
        f"  the test's own clock, click to all four pages checked: median "
        f"{statistics.median(walls):.0f} ms"
    )


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_two_rounds_with_everyone_watching(ruleset, make_table, sit_down, capsys):
    rs = RULESETS[ruleset]
    table = make_table(ruleset, grit=rs.grit)
    people = sit_down(table)
    play = Play(table, people, rs)
    gm = people.gm

    gm.page.get_by_test_id("start-combat").click()
    play.clicked()
    play.expect_line(re.compile(r"^Combat begins\.$"), PUBLIC)
    if rs.grit:
        seize_the_moment(play, people, rs)

    for round_no, turns in enumerate(rs.rounds, start=1):
        play.expect_line(re.compile(rf"^Round {round_no} begins\.$"), PUBLIC)
        # The round's order, as everyone sees it (the hidden NPC only on the GM's page).
        first_pass = list(dict.fromkeys(t.who for t in turns))
        for p in people.everyone:
            names = [n for n in first_pass if p in play.audience(n)]
            expect(p.page.locator("#order li.order-row .name"), p.name).to_have_text(names)
        seen: set[str] = set()
        for turn in turns:
            pass_no = 2 if turn.who in seen else 1
            seen.add(turn.who)
            if rs.passes and pass_no == 2 and turn is turns[len(first_pass)]:
                play.expect_line(re.compile(rf"^Pass 2 of round {round_no} begins\.$"), PUBLIC)
            play.turn_starts(turn.who)
            play.expect_turn(turn.who, round_no, pass_no)
            play.expect_widgets(turn.who)
            for action in turn.actions:
                # Every player's click is timed until it shows on the three other pages.
                play.do(turn.who, action, measure=play.person_for(turn.who).role == "player")
            if turn.unaffordable:
                play.unaffordable(turn.who, *turn.unaffordable)
            play.end(turn.who, round_over=turn is turns[-1])
        play.expect_line(re.compile(rf"^Round {round_no} ends\.$"), PUBLIC)

    # Two full rounds are over: the third has begun for everyone.
    play.expect_line(re.compile(r"^Round 3 begins\.$"), PUBLIC)
    for p in people.everyone:
        expect(p.status.get_by_test_id("round"), p.name).to_contain_text("Round 3")

    for p in people.everyone:
        p.assert_never_reloaded()
        p.assert_no_errors()
    for p in people.not_gm:
        assert HIDDEN not in p.everything_received(), f"{HIDDEN} reached {p.name}"

    with capsys.disabled():
        report_timings(ruleset, play)
