"""The spectators and each seat get only the regions of their screen that changed
(issue 37, step 2).

After a command the spectators' screen is compared region by region (status, spotlight,
order, each combatant's card, log, map) with the version before, and only what differs
is pushed, with #sync saying which version it shows and which it follows. A command the
spectators see nothing of moves their version and sends nothing else. Without the
previous version's fingerprints (a restart, a cleared cache) the whole view goes out.

A seat's page is cut the same way (status, alerts, notice, order, reactions, each of its
combatants' panels, the latest lines, each other combatant's line, log, map); what allows
or forbids its actions is data of its panel, so a change of turn sends the panel again;
what is left to spend is a region of its own inside the panel.

A new log line reaches a page alone, put at the top of its list; an undo that rewrites an
older line sends the log whole.
"""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache

from combat import broadcast, screens, services
from combat.access import gm_viewer, seat_viewer
from combat.models import Encounter
from tests.markers import is_view, pushed_so_far
from tests.replay import fragments

from .conftest import HIDDEN, Table, gm_socket, player_socket, spectator_socket

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10  # a bound, not a wait: a whole console is rendered first, slowly under load


async def gm_command(t: Table, **command) -> None:
    result = await database_sync_to_async(services.run_command)(t.enc.pk, gm_viewer(t.enc), command)
    assert result.ok, result.refusal


def version_of(t: Table) -> int:
    return Encounter.objects.get(pk=t.enc.pk).version


async def watching(t: Table):
    """A spectator screen, connected and past its first whole view."""
    comm = spectator_socket(t.enc.spectator_token)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    await comm.receive_from(timeout=TIMEOUT)
    return comm


async def playing(token: str):
    """A seat's page, connected and past its first whole view."""
    comm = player_socket(token)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    await comm.receive_from(timeout=TIMEOUT)
    return comm


async def regions_pushed(t: Table, comm, seat=None) -> list[str]:
    """The ids of the regions in the one frame the last command pushed to the spectators
    (or to `seat`)."""
    if seat is None:
        group = broadcast.group_name(t.enc.pk, "spectator")
    else:
        group = broadcast.group_name(t.enc.pk, "player", seat.pk)
    views = [f for f in await pushed_so_far(comm, group) if is_view(f)]
    assert len(views) == 1, views
    ids = [ident for ident, _ in fragments(views[0])[0]]
    assert ids[-1] == "sync", ids
    return ids


async def test_damage_to_one_combatant_sends_that_card_not_the_rest(table: Table):
    comm = await watching(table)
    await gm_command(table, type="start_combat")
    first = await regions_pushed(table, comm)
    assert "order" in first  # nothing to compare with yet: the whole view

    await gm_command(table, type="damage", actor=table.goblin, amount=3)
    sent = await regions_pushed(table, comm)
    # The health on the Goblin's card (Unhurt to Hurt) and the log's new line put at the
    # top of the list, and nothing else drawn again: not the order, the map, the roster
    # around the cards, the Goblin's card around its health, Ana's or Bram's card, nor the
    # log around its lines.
    assert f"resources-{table.goblin}" in sent and "log-list" in sent, sent
    allowed = {f"resources-{table.goblin}", "log-list", "announce-events", "spotlight", "status"}
    assert set(sent) <= allowed | {"sync"}, sent
    for absent in (
        f"roster-{table.goblin}",
        "order",
        "board",
        "roster",
        "log",
        f"roster-{table.ana}",
        f"roster-{table.bram}",
    ):
        assert absent not in sent, (absent, sent)
    await comm.disconnect()


async def test_many_other_tables_pushing_between_two_commands_still_send_regions(table: Table):
    comm = await watching(table)
    await gm_command(table, type="start_combat")
    await regions_pushed(table, comm)

    # Fifty other tables push meanwhile: their digests and history (eight audiences each,
    # twenty versions back) fill the same cache. The default in-process cache held 300
    # entries and threw the oldest third out when full: the digests this table's next push
    # needed were gone, and every screen got its whole view again.
    @database_sync_to_async
    def other_tables() -> None:
        for n in range(50 * 8 * 20):
            cache.set(f"history:enc.{10_000 + n // 160}.x:c:{n % 160}", (n, b"x" * 100), 60)

    await other_tables()
    await gm_command(table, type="damage", actor=table.goblin, amount=3)
    sent = await regions_pushed(table, comm)
    assert f"resources-{table.goblin}" in sent and "roster" not in sent, sent
    await comm.disconnect()


async def test_what_only_the_gm_sees_moves_the_spectators_version_and_nothing_else(table: Table):
    comm = await watching(table)
    await gm_command(table, type="start_combat")
    await regions_pushed(table, comm)

    await gm_command(table, type="damage", actor=table.troll, amount=5)  # hidden
    group = broadcast.group_name(table.enc.pk, "spectator")
    (frame,) = [f for f in await pushed_so_far(comm, group) if is_view(f)]
    assert [ident for ident, _ in fragments(frame)[0]] == ["sync"]
    assert HIDDEN not in frame and table.troll not in frame
    version = await database_sync_to_async(version_of)(table)
    assert f'data-version="{version}"' in frame and f'data-prev-version="{version - 1}"' in frame

    # Revealed, the Troll's card appears: the roster is sent whole, with its new card.
    await gm_command(table, type="reveal", actor=table.troll)
    sent = await regions_pushed(table, comm)
    assert "roster" in sent and "order" in sent, sent
    await comm.disconnect()


async def test_the_turn_passing_sends_the_spectators_who_acts_not_the_last_outcome(table: Table):
    comm = await watching(table)
    await gm_command(table, type="start_combat")
    await regions_pushed(table, comm)
    # A roll in the open: the newest outcome with dice, shown in large type.
    await gm_command(table, type="roll", dice="1d6", label="Falling rocks")
    await regions_pushed(table, comm)

    await gm_command(table, type="end_turn", actor=table.ana)  # Bram's turn now
    sent = await regions_pushed(table, comm)
    # In large type, "Acting Bram" is sent; the newest outcome under it did not change and
    # is not sent again; nor is the status around "Turn: Bram", nor the order's rows (their
    # tags are, and app.css draws each row's marker from them).
    assert "spotlight-turn" in sent and "status-now" in sent, sent
    assert "spotlight" not in sent and "status" not in sent, sent
    for cid in (table.ana, table.bram):
        assert f"orderstate-{cid}" in sent and f"orderrow-{cid}" not in sent, sent
    await comm.disconnect()


async def test_without_the_previous_fingerprints_the_whole_view_is_sent(table: Table):
    comm = await watching(table)
    await gm_command(table, type="start_combat")
    await regions_pushed(table, comm)

    await database_sync_to_async(cache.clear)()  # a restart, or evicted
    await gm_command(table, type="damage", actor=table.goblin, amount=3)
    sent = await regions_pushed(table, comm)
    assert {"status", "spotlight", "order", "roster", "log", "board", "sync"} <= set(sent), sent
    await comm.disconnect()


# --- a seat's page ------------------------------------------------------------------------


async def test_a_blow_to_someone_else_sends_the_seat_that_line_not_its_action_panel(table: Table):
    comm = await playing(table.seat2.token)  # Bram's player; Ana acts first
    await gm_command(table, type="start_combat")
    first = await regions_pushed(table, comm, table.seat2)
    assert "order" in first and f"panel-{table.bram}" not in first  # the whole view

    await gm_command(table, type="damage", actor=table.goblin, amount=3)
    sent = await regions_pushed(table, comm, table.seat2)
    # The health on the Goblin's line (Unhurt to Hurt), and the new line at the top of the
    # log and of the latest lines; Bram's panel, the order, the map, the lists around their
    # lines, the Goblin's line around its health and Ana's line are not drawn again.
    assert {f"resources-{table.goblin}", "log-list", "recent-list"} <= set(sent), sent
    for absent in (f"panel-{table.bram}", "panels", "order", "board", "others", "log", "recent"):
        assert absent not in sent, (absent, sent)
    assert f"other-{table.goblin}" not in sent, sent
    assert f"other-{table.ana}" not in sent and "turn-alert" not in sent, sent
    await comm.disconnect()


async def test_the_turn_coming_to_the_seat_sends_its_action_panel_again(table: Table):
    comm = await playing(table.seat2.token)
    await gm_command(table, type="start_combat")
    await regions_pushed(table, comm, table.seat2)

    await gm_command(table, type="end_turn", actor=table.ana)  # Bram's turn now
    sent = await regions_pushed(table, comm, table.seat2)
    # What Bram may do changed (his actions are allowed now): his panel comes again, alone,
    # with the "Your turn" alert.
    assert f"panel-{table.bram}" in sent and "turn-alert" in sent, sent
    assert "panels" not in sent, sent
    group = broadcast.group_name(table.enc.pk, "player", table.seat2.pk)
    await gm_command(table, type="end_turn", actor=table.bram)  # the Goblin's turn
    (frame,) = [f for f in await pushed_so_far(comm, group) if is_view(f)]
    ids = [ident for ident, _ in fragments(frame)[0]]
    assert f"panel-{table.bram}" in ids, ids
    panel = fragments(frame)[0][ids.index(f"panel-{table.bram}")][1]
    assert "Not Bram&#x27;s turn" in panel and "Your turn" not in panel
    await comm.disconnect()


async def test_the_turn_passing_between_two_others_sends_a_waiting_seat_nothing_of_its_panel(
    table: Table,
):
    comm = await playing(table.seat1.token)  # Ana's player
    await gm_command(table, type="start_combat")
    await regions_pushed(table, comm, table.seat1)
    await gm_command(table, type="end_turn", actor=table.ana)  # Bram's turn now
    await regions_pushed(table, comm, table.seat1)

    await gm_command(table, type="end_turn", actor=table.bram)  # the Goblin's turn
    sent = await regions_pushed(table, comm, table.seat1)
    # Ana waits before and after, refused her actions in the same words ("Not Ana's
    # turn"): whose turn it is instead is not written on her panel, so neither the panel
    # nor any of its actions is drawn again (the status is, and the markers and tags of the
    # two rows of the order the turn passes between: not the rows, nor the whole order).
    for cid in (table.bram, table.goblin):
        assert f"orderstate-{cid}" in set(sent), sent
        assert f"orderrow-{cid}" not in sent, sent
    assert "order" not in sent and f"orderstate-{table.ana}" not in sent, sent
    # The status says whose turn it is and who is next: those words alone, not the status
    # around them (its phase and round stay).
    assert "status-now" in sent and "status" not in sent, sent
    mine = [i for i in sent if i.endswith(table.ana) or f"-{table.ana}-" in i]
    assert mine == [], sent
    await comm.disconnect()


async def test_what_only_the_gm_sees_moves_the_seats_version_and_nothing_else(table: Table):
    comm = await playing(table.seat1.token)
    await gm_command(table, type="start_combat")
    await regions_pushed(table, comm, table.seat1)

    await gm_command(table, type="damage", actor=table.troll, amount=5)  # hidden
    group = broadcast.group_name(table.enc.pk, "player", table.seat1.pk)
    (frame,) = [f for f in await pushed_so_far(comm, group) if is_view(f)]
    assert [ident for ident, _ in fragments(frame)[0]] == ["sync"]
    assert HIDDEN not in frame and table.troll not in frame
    version = await database_sync_to_async(version_of)(table)
    assert f'data-version="{version}"' in frame and f'data-prev-version="{version - 1}"' in frame
    await comm.disconnect()


# --- log lines, each an element of its own ------------------------------------------------

LINE_ID = re.compile(r'<li id="(line-\d+-\d+)"')


async def seat_frame(t: Table, comm, seat) -> list[tuple[str, str]]:
    group = broadcast.group_name(t.enc.pk, "player", seat.pk)
    (frame,) = [f for f in await pushed_so_far(comm, group) if is_view(f)]
    return fragments(frame)[0]


async def test_a_new_log_line_reaches_a_seat_alone_not_the_lines_before_it(table: Table):
    comm = await playing(table.seat2.token)
    await gm_command(table, type="start_combat")
    whole = dict(await seat_frame(table, comm, table.seat2))
    shown = LINE_ID.findall(whole["log"])
    assert shown, whole["log"]

    await gm_command(table, type="damage", actor=table.goblin, amount=3)
    sent = await seat_frame(table, comm, table.seat2)
    ids = [ident for ident, _ in sent]
    # The new line goes to the top of the list; the log around it is not sent again.
    assert "log-list" in ids and "log" not in ids, ids
    grown = dict(sent)["log-list"]
    new = LINE_ID.findall(grown)
    assert new and not set(new) & set(shown), (new, shown)
    assert "Goblin takes damage." in grown, grown
    assert len(grown.encode()) < 1000, grown
    await comm.disconnect()


async def test_an_undo_that_marks_a_line_sends_the_log_whole(table: Table):
    comm = await playing(table.seat2.token)
    await gm_command(table, type="start_combat")
    await seat_frame(table, comm, table.seat2)
    await gm_command(table, type="damage", actor=table.goblin, amount=3)
    await seat_frame(table, comm, table.seat2)

    await gm_command(table, type="undo")
    sent = dict(await seat_frame(table, comm, table.seat2))
    # The damage's line reads "undone" now: lines other than new ones changed, so the
    # whole log goes, its lines as a reload draws them.
    assert "log" in sent and "log-list" not in sent, list(sent)
    assert "undone" in sent["log"], sent["log"]
    await comm.disconnect()


def test_lines_past_the_pages_limit_are_taken_away_and_rewritten_lines_send_the_list_whole():
    def keys(*names: str) -> list[tuple[str, str]]:
        return [(name, f"d{name}") for name in names]

    # Two new lines on top; the oldest two fall off a list of four.
    assert broadcast.grown(keys("c", "b", "a", "z"), keys("e", "d", "c", "b")) == (2, ["a", "z"])
    assert broadcast.grown(keys("b", "a"), keys("c", "b", "a")) == (1, [])
    # An older line rewritten (an undo marks it), or one shown again (a reveal): whole.
    assert broadcast.grown(keys("b", "a"), [("c", "dc"), ("b", "undone"), ("a", "da")]) is None
    assert broadcast.grown(keys("c", "a"), keys("d", "c", "b", "a")) is None
    # Nothing shown yet (the page says "Nothing has happened yet"): whole.
    assert broadcast.grown([], keys("a")) is None
    # Every line shown is gone (a seat's three latest after three new ones): the new ones
    # are put in and all the old ones taken away; one of them still there but moved: whole.
    assert broadcast.grown(keys("c", "b", "a"), keys("f", "e", "d")) == (3, ["c", "b", "a"])
    assert broadcast.grown(keys("c", "b", "a"), keys("f", "e", "b")) is None


async def test_spending_on_an_action_sends_the_panels_resources_not_the_whole_panel(table: Table):
    comm = await playing(table.seat1.token)  # Ana's player; Ana acts first
    await gm_command(table, type="start_combat")
    await seat_frame(table, comm, table.seat1)

    # A move costs 1 AP of Ana's 3 (docs/rules.md, Action Points): every action she could
    # take she still can, for the same reasons; only what is left to spend changed.
    command = {"type": "act", "actor": table.ana, "action": "move", "options": {}}
    result = await database_sync_to_async(services.run_command)(
        table.enc.pk, seat_viewer(table.seat1), command
    )
    assert result.ok, result.refusal
    sent = dict(await seat_frame(table, comm, table.seat1))
    # Her AP gauge alone: not her HP or the rest of her resources.
    gauge = f"gauge-{table.ana}-ap"
    assert gauge in sent and f"resources-{table.ana}" not in sent, list(sent)
    assert f"panel-{table.ana}" not in sent and "panels" not in sent, list(sent)
    assert not [ident for ident in sent if ident.startswith("action-")], list(sent)
    assert "AP 2 of 3" in sent[gauge], sent[gauge]
    assert "HP" not in sent[gauge], sent[gauge]
    assert sum(len(html.encode()) for html in sent.values()) < 3000, list(sent)


# --- the GM's console ---------------------------------------------------------------------


async def gm_in_combat(t: Table):
    """The GM's console connected (its whole view received), then combat started."""
    comm = gm_socket(t)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    await comm.receive_from(timeout=TIMEOUT)
    await gm_command(t, type="start_combat")
    return comm


async def gm_regions_pushed(t: Table, comm) -> list[str]:
    views = [
        f for f in await pushed_so_far(comm, broadcast.group_name(t.enc.pk, "gm")) if is_view(f)
    ]
    assert len(views) == 1, views
    return [ident for ident, _ in fragments(views[0])[0]]


async def test_a_blow_sends_the_gm_the_struck_row_not_the_whole_list(table: Table):
    comm = await gm_in_combat(table)
    first = await gm_regions_pushed(table, comm)
    assert "order" in first  # nothing to compare with yet: the whole console

    await gm_command(table, type="damage", actor=table.goblin, amount=3)
    sent = await gm_regions_pushed(table, comm)
    # The line that shows the Goblin's HP and its card, which says the players now see it
    # Hurt; not the row around them, nor the "Act as" list of what it could do now (the same
    # as before the blow).
    assert {f"rowline-{table.goblin}", f"gmcard-{table.goblin}", "log-list"} <= set(sent), sent
    for absent in (
        "order",
        "board",
        "controls",
        f"combatant-{table.goblin}",
        f"actas-{table.goblin}",
        f"combatant-{table.ana}",
        f"rowline-{table.ana}",
        "log",
    ):
        assert absent not in sent, (absent, sent)
    # A second blow that leaves it Hurt: the line alone.
    await gm_command(table, type="damage", actor=table.goblin, amount=1)
    sent = await gm_regions_pushed(table, comm)
    assert f"rowline-{table.goblin}" in sent, sent
    assert f"gmcard-{table.goblin}" not in sent and f"combatant-{table.goblin}" not in sent, sent

    await comm.disconnect()


async def test_a_change_of_turn_sends_the_gm_two_lines_not_two_rows(table: Table):
    """Whose turn it is is marked on a GM row's line (app.css draws it on the whole row),
    and the "Target" button on a row is a region of its own: a change of turn sends the
    lines of who acted and who acts, and the "Target" buttons that come or go, not the rows
    around them (their initiative editor, their cards)."""
    comm = await gm_in_combat(table)
    first = await gm_regions_pushed(table, comm)
    assert "order" in first  # nothing to compare with yet: the whole console

    def picks() -> dict[str, bool]:
        enc = Encounter.objects.get(pk=table.enc.pk)
        return {c["id"]: c["pick"] for c in screens.gm_context(enc)["combatants"]}

    before = await database_sync_to_async(picks)()
    await gm_command(table, type="end_turn", actor=table.ana)  # Bram's turn now
    after = await database_sync_to_async(picks)()
    views = [
        f for f in await pushed_so_far(comm, broadcast.group_name(table.enc.pk, "gm")) if is_view(f)
    ]
    assert len(views) == 1, views
    sent = dict(fragments(views[0])[0])
    # The two lines, the one acting now marked for assistive tech; the turn panel.
    assert {f"rowline-{table.ana}", f"rowline-{table.bram}", "turn"} <= set(sent), list(sent)
    assert 'aria-current="step"' in sent[f"rowline-{table.bram}"]
    assert "is-turn" in sent[f"rowline-{table.bram}"]
    assert 'aria-current="step"' not in sent[f"rowline-{table.ana}"]
    # No row is drawn again, nor the list around them.
    rows = [ident for ident in sent if ident.startswith("combatant-")]
    assert rows == [] and "order" not in sent, list(sent)
    # Who can be targeted changed (Bram is no target of his own actions, Ana is now): their
    # "Target" buttons come and go, each alone; the others stay as they were.
    flipped = {cid for cid in before if before[cid] != after[cid]}
    assert {table.ana, table.bram} <= flipped, (before, after)
    assert {i for i in sent if i.startswith("pick-")} == {f"pick-{cid}" for cid in flipped}
    assert f'data-testid="pick-target-{table.ana}"' in sent[f"pick-{table.ana}"]
    assert "pick-target" not in sent[f"pick-{table.bram}"]
    assert sent[f"pick-{table.bram}"].startswith(f'<span id="pick-{table.bram}"')
    await comm.disconnect()


async def test_the_turn_passing_sends_the_gm_its_flow_buttons_not_the_tools(table: Table):
    comm = await gm_in_combat(table)
    await gm_regions_pushed(table, comm)

    # "Advance turn (end Bram's)" is redrawn; the dice, settings and custom actions are not.
    await gm_command(table, type="end_turn", actor=table.ana)
    sent = await gm_regions_pushed(table, comm)
    assert "flow" in sent and "controls" not in sent and "tools" not in sent, sent

    # A setting changed redraws the tools alone.
    await gm_command(table, type="add_custom_action", name="Rally", cost=1)
    sent = await gm_regions_pushed(table, comm)
    assert "tools" in sent and "flow" not in sent and "controls" not in sent, sent
    await comm.disconnect()


def test_an_action_that_moves_is_taken_from_its_list_and_put_after_the_one_before_it():
    def keys(names: str) -> list[tuple[str, str]]:
        return [(name, f"d{name}") for name in names.split()]

    # b leaves (gone from this list); x and y arrive after a, z at the top; c is redrawn.
    before = keys("a b c")
    now = [*keys("z a x y"), ("c", "changed")]
    assert broadcast.moved(before, now) == (["b"], [(None, [0]), ("a", [2, 3])], [4])
    # Nothing changed but an arrival at the end.
    assert broadcast.moved(keys("a b"), keys("a b c")) == ([], [("b", [2])], [])
    # Those that stayed swapped places: the list is sent whole. Nothing to compare: whole.
    assert broadcast.moved(keys("a b"), keys("b a")) is None
    assert broadcast.moved(None, keys("a")) is None


async def test_spending_the_last_ap_moves_the_gm_actions_alone_not_the_turn_panel(table: Table):
    """An action that can no longer be taken leaves the possible ones for "Not possible now":
    the GM's console gets it taken from one list and put in the other, the groups' new
    counts, and not the turn panel whole."""
    comm = await gm_in_combat(table)
    await gm_regions_pushed(table, comm)
    # Ana has 3 AP (docs/rules.md, Action Points); each move costs 1.
    for _ in range(2):
        await gm_command(table, type="act", actor=table.ana, action="move", options={})
        await gm_regions_pushed(table, comm)
    await gm_command(table, type="act", actor=table.ana, action="move", options={})
    views = [
        f for f in await pushed_so_far(comm, broadcast.group_name(table.enc.pk, "gm")) if is_view(f)
    ]
    assert len(views) == 1, views
    sent = fragments(views[0])[0]
    ids = [ident for ident, _ in sent]
    assert "turn" not in ids, ids
    assert f"gauge-{table.ana}-ap" in ids and f"resources-{table.ana}" not in ids, ids
    # The move (1 AP) is taken away from the possible ones and put in "Not possible now".
    moved = f"action-{table.ana}-move"
    assert moved in ids, ids
    put = [html for _, html in sent if f'id="{moved}"' in html]
    assert put and 'data-allowed="false"' in put[0], put
    assert f"head-action-{table.ana}-blocked" in ids, ids
    await comm.disconnect()


async def test_a_gm_card_and_its_act_as_list_are_sent_apart_from_the_row(table: Table):
    """A condition set on the Goblin sends the GM its line (the condition's tag) and its card
    (the "Clear" button), not the row around them nor the "Act as" list under the card."""
    comm = await gm_in_combat(table)
    await gm_regions_pushed(table, comm)

    await gm_command(
        table, type="set_condition", actor=table.goblin, name="Prone", stacks=1, until="cleared"
    )
    sent = await gm_regions_pushed(table, comm)
    assert {f"rowline-{table.goblin}", f"gmcard-{table.goblin}"} <= set(sent), sent
    for absent in (f"combatant-{table.goblin}", f"actas-{table.goblin}", "order", "turn"):
        assert absent not in sent, (absent, sent)
    await comm.disconnect()


async def test_every_part_of_a_gm_card_is_drawn_by_one_part_of_its_row(table: Table):
    """Each part of a GM row is compared by the parts of the card it draws: a new part of the
    card must be said to be drawn by one of them (or by none), or a change to it would not
    reach the console."""
    await gm_command(table, type="start_combat")
    enc = await database_sync_to_async(Encounter.objects.get)(pk=table.enc.pk)
    ctx = await database_sync_to_async(screens.gm_context)(enc)
    placed = {
        *screens.ROW_SHOWS,
        *screens.LINE_SHOWS,
        *screens.PICK_SHOWS,
        *screens.CARD_SHOWS,
        *screens.ACTAS_SHOWS,
        *screens.ROW_HIDES,
        "actions_now",  # in the "Act as" list
        "health",  # in the card, when the players see a band
    }
    for card in ctx["combatants"]:
        assert set(card) <= placed, set(card) - placed
        assert set(card["row"]) <= {
            *screens.ROW_SHOWS_ORDER,
            *screens.LINE_SHOWS_ORDER,
            *("id", "name", "side", "initiative", "group", "is_turn", "defeated", "hidden"),
            "mine",
        }, card["row"]


async def test_every_part_of_a_seats_card_is_drawn_by_one_part_of_its_panel(table: Table):
    """A seat's panel is compared by what it draws itself; its resources, its turn's
    buttons and its melee form are regions of their own, each drawn from the parts of the
    card it shows. A new part of the card must be said to be drawn by one of them (or by
    none), or a change to it would not reach the seat."""
    await gm_command(table, type="start_combat")
    enc = await database_sync_to_async(Encounter.objects.get)(pk=table.enc.pk)
    ctx = await database_sync_to_async(screens.player_context)(enc, table.seat1)
    placed = {
        *screens.PANEL_SHOWS,
        *screens.RESOURCES_SHOWS,
        *screens.TURN_BUTTONS_SHOWS,
        *screens.MELEE_SHOWS,
        *screens.PANEL_HIDES,
    }
    for card in ctx["panels"]:
        assert set(card) <= placed, set(card) - placed


async def test_the_reasons_said_once_are_sent_without_the_panel_around_them(table: Table):
    """Whose turn it is can be one of the reasons said once for the actions not possible
    now; when only those reasons change, they are sent alone (`reasons-action-<id>`), not the
    seat's panel or the GM's turn panel around them."""
    card = {"id": "x", "name": "X", "panel": {"other_reasons": [{"key": "ra", "text": "A"}]}}
    urls = {"post_url": "command/", "preview_url": "preview/"}
    before = screens.panel_regions(card, urls)
    card["panel"]["other_reasons"] = [{"key": "rb", "text": "B"}]
    after = screens.panel_regions(card, urls)
    changed = [
        n for n, r in after.items() if screens.region_digest(r) != screens.region_digest(before[n])
    ]
    assert changed == ["reasons-action-x"], changed
