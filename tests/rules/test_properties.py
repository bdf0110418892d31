"""Invariants over random command sequences, for every ruleset (Hypothesis).

Random sequences mix legal and illegal commands from the GM and from players: any
action of the catalogue with random options, reactions, turn ends, holds, seizes,
engagement, damage and GM rulings. Whatever happens:
- resources stay within 0 and their maximum;
- a refused command changes nothing;
- on a turn, only the combatant whose turn it is takes actions (reactions and
  interrupts aside);
- in Action Points, at most one reaction between the starts of a combatant's turns;
- the same commands with the same seed give the same events;
- the state survives a JSON round-trip, and a live import's checks take it
  (combat/rules/integrity.py: a state the engine made is never refused).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat.rules import apply, get_ruleset, new_encounter
from combat.rules.catalogue import ANY_TIME, REACTION
from combat.rules.integrity import restore_and_exercise
from combat.rules.state import Encounter

from .placeholders import real_ids

RULESETS = ["action_points", "action_ladder", "initiative_passes"]
STATS = {
    "attack": "1d20",
    "damage": "1d6",
    "defend": "1d20",
    "spell": "1d20",
    "spell_damage": "1d8",
    "AGI": "1d10",
    "STR": "1d10",
    "FCS": "1d10",
    "RES": "1d10",
    "defense": "1d20",
}


def setup(ruleset: str) -> Encounter:
    enc = new_encounter(ruleset)
    rng = random.Random(0)
    for name, side, grit in (
        ("Ana", "pc", 1),
        ("Bob", "pc", 0),
        ("Ogre", "npc", 1),
        ("Imp", "npc", 0),
    ):
        out = apply(
            enc,
            {
                "type": "add_combatant",
                "by": "gm",
                "name": name,
                "side": side,
                "hp": 12,
                "stats": STATS,
                "grit": grit,
            },
            rng,
        )
        assert out.ok, out.refusal
        enc = out.state
    return enc


IDS = st.sampled_from(["c1", "c2", "c3", "c4", "c9"])
SMALL = st.one_of(st.integers(-2, 6), st.none(), st.sampled_from(["x", "1", True]))


@st.composite
def command(draw, ruleset: str):
    rs = get_ruleset(ruleset)
    actions = sorted(rs.catalogue())
    kind = draw(
        st.sampled_from(
            ["act"] * 8
            + ["end_turn"] * 3
            + ["react"] * 2
            + [
                "hold",
                "seize",
                "begin_round",
                "engage",
                "damage",
                "grant",
                "adjust",
                "take_turn",
                "close_windows",
                "abandon",
                "trigger",
                "start_combat",
            ]
        )
    )
    by = draw(st.sampled_from(["gm", "player", "player"]))
    cmd = {"type": kind, "by": by, "actor": draw(IDS)}
    if kind in ("act", "grant"):
        key = draw(st.sampled_from(actions)) if actions else "none"
        cmd["action"] = key
        a = rs.catalogue()[key] if actions else None
        opts = {}
        if a is not None:
            for o in a.options:
                if draw(st.booleans()):
                    if o.kind == "target":
                        opts[o.name] = draw(IDS)
                    elif o.kind == "choice":
                        opts[o.name] = draw(st.sampled_from((*o.choices, "bogus")))
                    elif o.kind == "bool":
                        opts[o.name] = draw(st.booleans())
                    elif o.kind == "text":
                        opts[o.name] = draw(st.text(max_size=8))
                    else:
                        opts[o.name] = draw(SMALL)
        cmd["options"] = opts
    elif kind == "react":
        cmd["window"] = draw(st.sampled_from(["w1", "w5", "w6", "w7", "w8", "w9", "w10"]))
        cmd["accept"] = draw(st.booleans())
    elif kind == "engage":
        cmd["target"] = draw(IDS)
    elif kind == "damage":
        cmd["amount"] = draw(st.integers(-1, 8))
    elif kind == "adjust":
        cmd["resource"] = draw(st.sampled_from(["ap", "bonus", "effort", "grit", "hp"]))
        cmd["value"] = draw(st.integers(-1, 9))
    return cmd


def check_bounds(enc: Encounter) -> None:
    for c in enc.combatants.values():
        for key, value in c.res.items():
            assert value >= 0, (c.name, key, value)
            top = c.res.get(f"{key}_max")
            if top is not None and not key.endswith("_max"):
                assert value <= top, (c.name, key, value, top)
        if c.hp is not None:
            assert 0 <= c.hp <= (c.max_hp or 0)


def run(ruleset: str, commands: list[dict], seed: int):
    enc = setup(ruleset)
    rng = random.Random(seed)
    out0 = apply(enc, {"type": "start_combat", "by": "gm"}, rng)
    enc = out0.state
    rs = get_ruleset(ruleset)
    reactions: dict[str, int] = {}
    trail = []
    for cmd in commands:
        cmd = real_ids(enc, cmd)
        before = enc.to_dict()
        turn_before = enc.turn
        out = apply(enc, cmd, rng)
        if not out.ok:
            assert out.state.to_dict() == before, cmd
            assert out.refusal.code and out.refusal.message
            trail.append(("refused", out.refusal.code))
            continue
        trail.append(("ok", json.dumps(out.events, sort_keys=True)))
        if cmd["type"] == "act" and cmd["by"] == "player" and cmd["actor"] != turn_before:
            a = rs.catalogue(enc)[cmd["action"]]
            assert a.timing in (ANY_TIME, REACTION) or a.reaction, (cmd, turn_before)
        enc = out.state
        for e in out.events:
            if e["kind"] == "turn":
                reactions[e["actor"]] = 0
        if ruleset == "action_points":
            used = cmd["type"] == "react" and cmd["accept"]
            a = rs.catalogue(enc).get(cmd.get("action", ""))
            if used or (cmd["type"] == "act" and a is not None and a.reaction):
                reactions[cmd["actor"]] = reactions.get(cmd["actor"], 0) + 1
                assert reactions[cmd["actor"]] <= 1, cmd
        check_bounds(enc)
        stored = json.loads(json.dumps(enc.to_dict()))
        again = Encounter.from_dict(stored)
        assert again.to_dict() == enc.to_dict()
        assert restore_and_exercise(stored, ruleset).to_dict() == enc.to_dict()
    return trail


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_random_sequences_keep_every_invariant(ruleset, data, seed):
    commands = data.draw(st.lists(command(ruleset), min_size=1, max_size=40))
    first = run(ruleset, commands, seed)
    assert run(ruleset, commands, seed) == first  # same seed, same events
