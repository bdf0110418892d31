"""What the engine says and does around hidden combatants (issue 12 items 9 and 10).

Each test cites the item it proves. The engine has no readers, so what it writes for
everyone (refusals, the reasons under disabled actions) names hidden combatants by
public name only and never repeats what the caller sent.
"""

from __future__ import annotations

import pytest

from combat.rules import apply, flow, new_encounter
from combat.rules.table import Table
from combat.rules.view import redacted
from tests.said import said

RULESETS = ["action_points", "action_ladder", "initiative_passes"]


@pytest.fixture(params=RULESETS)
def ruleset(request) -> str:
    return request.param


def add(t: Table, name: str, side: str = "npc", **fields) -> str:
    cid = t.gm("add_combatant", name=name, side=side, **fields)
    assert isinstance(cid, str), cid.refusal
    return cid


def full_order(t: Table) -> list[str]:
    return [t.c(i).name for i in flow.initiative_order(t.state)]


def shown_order(t: Table) -> list[str]:
    return [t.c(i).name for i in flow.initiative_order(t.state) if not t.c(i).hidden]


def test_refusals_repeat_nothing_the_caller_sent(ruleset):
    """Item 9: 'Refusals never echo caller text.' Unknown commands, actions, combatants,
    options, settings, numbers and dice are refused in words that hold none of it."""
    t = Table(ruleset)
    ana = add(t, "Ana", side="pc", initiative=10)
    t.gm("start_combat")
    probe = "Probe-Text-42"
    attack = "basic_attack" if ruleset != "action_ladder" else "attack"
    for command in (
        {"type": probe},
        {"type": "act", "actor": ana, "action": probe},
        {"type": "act", "actor": probe, "action": attack},
        {"type": "act", "actor": ana, "action": attack, "options": {probe: 1}},
        {"type": "set_setting", "key": probe, "value": 1},
        {"type": "adjust", "actor": ana, "resource": probe, "value": 1},
        {"type": "set_modifier", "actor": ana, "key": probe, "value": 1},
        {"type": "remove_custom_action", "action": probe},
        {"type": "roll", "dice": probe},
        {"type": "roll", "dice": f"1d20+{probe}"},
        {"type": "set_initiative", "actor": ana, "initiative": probe},
        {"type": "react", "actor": ana, "window": probe},
    ):
        out = t.send({"by": "gm", **command})
        assert out.refusal is not None, command
        assert "Probe" not in out.refusal.message and "42" not in out.refusal.message, (
            command,
            out.refusal,
        )


def test_a_visible_combatant_reorders_past_hidden_ones(ruleset):
    """Item 10: 'a reorder never swaps with a hidden combatant'. Ana, a hidden Bram and Cid
    are tied PCs: Cid moving up lands above Ana at once, as the players' order shows it,
    and Bram keeps his place; Ana at the top of what players see is refused as at the top."""
    t = Table(ruleset)
    ana = add(t, "Ana", side="pc", initiative=10)
    bram = add(t, "Bram", side="pc", initiative=10, hidden=True)
    cid = add(t, "Cid", side="pc", initiative=10)
    assert full_order(t) == ["Ana", "Bram", "Cid"]
    out = t.player("reorder", actor=cid, direction="up")
    assert out.ok, out.refusal
    assert shown_order(t) == ["Cid", "Ana"]
    assert full_order(t) == ["Cid", "Bram", "Ana"]
    # The event names the hidden one's id, so players do not get it (it is GM-only).
    assert out.events[-1]["gm_only"] is False and bram not in out.events[-1]["involved"]
    out = t.player("reorder", actor=cid, direction="up")
    assert out.refusal is not None and out.refusal.code == "no_tie"
    assert "Bram" not in out.refusal.message
    assert ana  # Ana stays second among what players see
    assert shown_order(t) == ["Cid", "Ana"]


def test_waiting_for_reactions_names_no_hidden_reactor():
    """Item 10: '"Waiting for reactions" does not reveal a hidden reactor.' Ana leaves the
    reach of a hidden Troll: the turn waits for the GM, and the sentence names nobody."""
    t = Table("action_points")
    ana = add(t, "Ana", side="pc", initiative=20, hp=10)
    stats = {"attack": {"dice": "1d20", "bonus": 0}, "damage": {"dice": "1d6", "bonus": 0}}
    troll = add(t, "Lurking Troll", initiative=5, hp=10, hidden=True, stats=stats)
    t.gm("start_combat")
    t.gm("engage", actor=ana, target=troll)
    assert t.act(ana, "move").ok
    assert t.state.pending and t.state.pending[0].reactor == troll
    out = t.player("end_turn", actor=ana)
    assert out.refusal is not None and out.refusal.code == "waiting_for_reactions"
    assert "Troll" not in out.refusal.message and "someone" not in out.refusal.message
    # Not even that a reaction is owed (issue 29): only that the table waits for the GM.
    assert out.refusal.message == "Waiting for the GM."
    # The hidden one's window is not among what players see.
    assert redacted(t.state, "player")["pending"] == []


def test_an_effect_naming_a_hidden_combatant_shows_no_id(ruleset):
    """Item 10: 'ids in effect details such as "grappled by" are redacted too'."""
    t = Table(ruleset)
    ana = add(t, "Ana", side="pc", initiative=20, hp=10)
    troll = add(t, "Lurking Troll", initiative=5, hp=10, hidden=True)
    from combat.rules.state import Effect

    t.state.combatants[ana].effects.append(
        Effect("Grappled", "turn_start", troll, {"by": troll}, "grappled by Lurking Troll")
    )
    seen = redacted(t.state, "player")["combatants"][ana]
    [effect] = seen["effects"]
    assert said(effect) == "Grappled" and effect["detail"] == {}
    assert effect["until_of"] is None
    assert troll not in repr(seen) and "Troll" not in repr(seen)
    assert "seq" not in seen and "tie" not in seen


def test_new_ids_are_opaque_and_replay_with_the_seed(ruleset):
    """Item 10: ids are random base32, not counters; a seeded die gives them again and
    its dice are the same as when ids counted up (no draw is taken for an id)."""
    import random

    runs = []
    for _ in range(2):
        rng = random.Random(11)
        state = new_encounter(ruleset)
        ids = []
        for name in ("Ana", "Bram", "Cid"):
            out = apply(state, {"type": "add_combatant", "by": "gm", "name": name}, rng)
            state = out.state
            ids.append(list(state.combatants)[-1])
        runs.append((ids, rng.random()))
    assert runs[0] == runs[1]
    assert runs[0][1] == random.Random(11).random()  # the ids drew nothing from the die
    assert all(len(i) == 9 and i[0] == "c" and not i[1:].isdigit() for i in runs[0][0])


def test_taking_a_turn_during_a_hidden_ones_names_nobody(ruleset):
    """Item 9: a refusal names others by public name: taking a turn in the hidden Troll's
    slot is refused without saying whose slot it is."""
    t = Table(ruleset)
    add(t, "Lurking Troll", initiative=30, hp=10, hidden=True)
    ana = add(t, "Ana", side="pc", initiative=10, hp=10)
    t.gm("start_combat")
    if t.state.phase != "combat":
        t.gm("begin_round")
    assert t.c(t.state.turn).name == "Lurking Troll"
    out = t.player("take_turn", actor=ana)
    assert out.refusal is not None and "Troll" not in out.refusal.message, out.refusal
