"""What each audience may see (combat.rules.view), and edits that must not leak or heal."""

from __future__ import annotations

import json

from combat import words
from combat.rules.table import Table
from combat.rules.view import availability, redacted
from tests.said import said

STATS = {"attack": "1d20+7", "damage": "1d6", "defend": "1d20"}


def hidden_turn_table() -> tuple[Table, str, str]:
    t = Table("action_points", seed=1)
    lurker = t.gm(
        "add_combatant",
        name="Lurker",
        initiative=20,
        hidden=True,
        stats=STATS,
        notes="ambush from the rafters",
    )
    ana = t.gm("add_combatant", name="Ana", side="pc", initiative=10, stats=STATS, hp=12)
    t.gm("start_combat")
    assert t.state.turn == lurker
    return t, lurker, ana


def test_refusals_never_name_a_hidden_combatant():
    """RULINGS 3: hidden combatants stay hidden; the reason on a disabled button is shown
    to players, so it must not name whoever hides at the top of the order."""
    t, lurker, ana = hidden_turn_table()
    out = t.act(ana, "basic_attack")
    assert out.refusal.code == "not_your_turn"
    assert "Lurker" not in out.refusal.message
    reasons = " ".join(a["reason"] for a in availability(t.state, ana))
    assert "Lurker" not in reasons and "Not Ana's turn" in reasons


def test_public_and_player_views_drop_hidden_combatants_and_npc_dice():
    t, lurker, ana = hidden_turn_table()
    ogre = t.gm("add_combatant", name="Ogre", stats={"attack": "1d20+13"}, hp=30)
    for audience in ("player", "public"):
        text = json.dumps(redacted(t.state, audience))
        assert "Lurker" not in text and "rafters" not in text and lurker not in text
        assert "1d20+13" not in text  # a visible NPC's dice stay the GM's
        view = redacted(t.state, audience)
        # An NPC's health reaches them as a band by default (docs/rules.md, "NPC health").
        assert view["combatants"][ogre]["hp"] is None
        assert view["combatants"][ogre]["health"] == "Unhurt"
        assert view["combatants"][ana]["stats"]["attack"]["dice"] == "1d20+7"
    assert "Lurker" in json.dumps(redacted(t.state, "gm"))


def test_editing_max_hp_keeps_wounds():
    """Changing a combatant's HP maximum mid-fight does not heal it to full."""
    t = Table("action_points")
    ana = t.gm("add_combatant", name="Ana", side="pc", hp=20)
    assert t.gm("damage", actor=ana, amount=8).ok
    assert t.c(ana).hp == 12
    assert t.gm("update_combatant", actor=ana, hp=25).ok
    assert (t.c(ana).hp, t.c(ana).max_hp) == (17, 25)
    assert t.gm("update_combatant", actor=ana, hp=10).ok
    assert (t.c(ana).hp, t.c(ana).max_hp) == (2, 10)


def test_npc_health_bands():
    """docs/rules.md, "NPC health": Unhurt at full HP, Hurt above half, Bloodied at half
    or less, Down at 0 HP or defeated; the GM always reads the HP."""
    t = Table("action_points", seed=1)
    ogre = t.gm("add_combatant", name="Ogre", hp=40)
    seen = []
    for hp in (40, 21, 20, 1, 0):
        t.gm("adjust", actor=ogre, resource="hp", value=hp)
        view = redacted(t.state, "public")["combatants"][ogre]
        seen.append(view["health"])
        assert view["hp"] is None and view["max_hp"] is None
        assert redacted(t.state, "gm")["combatants"][ogre]["hp"] == hp
    assert seen == ["Unhurt", "Hurt", "Bloodied", "Bloodied", "Down"]


def test_a_pcs_health_is_always_exact_and_an_npcs_override_wins():
    t = Table("action_points", seed=1)
    t.gm("set_setting", key="npc_health", value="hidden")
    ana = t.gm("add_combatant", name="Ana", side="pc", hp=12)
    ogre = t.gm("add_combatant", name="Ogre", hp=30, npc_health="exact")
    troll = t.gm("add_combatant", name="Troll", hp=30)
    view = redacted(t.state, "player")["combatants"]
    assert view[ana]["hp"] == 12 and view[ogre]["hp"] == 30
    assert view[troll]["hp"] is None and view[troll]["health"] is None
    assert view[troll]["health_shown"] == "hidden"


def test_damage_events_carry_words_without_the_amount():
    """A hit's and the GM's damage's number-free words (Events.health), for readers who
    may not know the target's HP exactly."""
    t = Table("action_points", seed=1)
    ogre = t.gm("add_combatant", name="Ogre", hp=30)
    events = t.gm("damage", actor=ogre, amount=7).events
    [line] = [e for e in events if e["kind"] == "damage"]
    assert said(line) == "Ogre takes 7 damage."
    reader = words.Reader.of(False, veiled=[ogre])
    assert words.text(line, reader) == "Ogre takes damage."
