"""The two newer window kinds, from the player's page: an Interrupt window (Action
Ladder) and a Parry or Intercept window (Action Points, with defence prompts turned on
by the GM). The player whose combatant is offered the window sees the prompt and its
buttons, answers it by posting what the page's button posts, and reads the outcome in
the log; the other player sees no prompt."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.said import said

from .conftest import FIGHTER, build_table, gm

pytestmark = pytest.mark.django_db


def page(url: str) -> str:
    return Client().get(url).content.decode()


def post(url: str, **data):
    return Client().post(f"{url}command/", data, HTTP_HX_REQUEST="true")


def no_prompt(text: str, wid: str) -> bool:
    """No answer, no alert and no "now" for this window on a page."""
    return (
        f'data-testid="accept-{wid}"' not in text
        and f'data-testid="decline-{wid}"' not in text
        and f'data-testid="offers-{wid}"' not in text
        and f'data-testid="reaction-alert-{wid}"' not in text
        and "may react to Goblin now" not in text
    )


def test_player_answers_an_interrupt_window_on_a_spell(gm_user):
    """action-ladder.md, Reactions, Interrupt: 'Interrupt an adjacent enemy (e.g. casting a
    spell ...) with a Melee Attack roll ... on a hit, their Action is lost'. The Goblin,
    in melee with Ana, declares a spell: Ana's player is offered the Interrupt, takes it
    from the page, and the log says the spell is lost; Bram's player sees no prompt."""
    parts = build_table(gm_user, "action_ladder")
    enc, ana, bram, goblin = parts["enc"], parts["ana"], parts["bram"], parts["goblin"]
    for cid in (ana, bram, goblin):
        gm(enc, type="update_combatant", actor=cid, stats=FIGHTER)
    # The Goblin takes Ana's Interrupt on its plain defence, so the outcome is logged at once.
    gm(enc, type="set_modifier", actor=goblin, key="defence_prompts", value=False)
    gm(enc, type="start_combat")
    gm(enc, type="engage", actor=ana, target=goblin)
    gm(enc, type="end_turn")
    gm(enc, type="end_turn")
    gm(enc, type="act", actor=goblin, action="ability", options={"length": "half", "text": "Hex"})
    enc.refresh_from_db()
    [window] = enc.state["pending"]
    assert window["kind"] == "interrupt" and window["reactor"] == ana
    wid = window["id"]

    p1 = f"/p/{parts['seat1'].token}/"
    p2 = f"/p/{parts['seat2'].token}/"
    mine = page(p1)
    assert "Interrupt</strong>: Ana may react to Goblin now." in mine
    assert f'data-testid="accept-{wid}"' in mine and "Accept: Interrupt" in mine
    assert f'data-testid="decline-{wid}"' in mine
    assert f'data-testid="reaction-alert-{wid}"' in mine
    assert no_prompt(page(p2), wid)

    # What the page's Accept button posts: type, actor and window, and accept=1.
    r = post(p1, type="react", actor=ana, window=wid, accept="1")
    assert r.status_code == 200, r.content
    enc.refresh_from_db()
    assert enc.state["pending"] == []
    assert enc.state["combatants"][ana]["res"]["bonus"] == 0  # 2 Bonus Actions paid
    assert enc.state["combatants"][goblin]["hp"] == 5  # 10 HP, the Interrupt's 1 + 4
    after = page(p1)
    assert "Ana Interrupts Goblin: Ability or Spell is lost" in after
    assert no_prompt(after, wid)
    line = enc.log.order_by("-seq").first()
    assert line is not None
    assert any("Ability or Spell is lost" in said(e) for e in line.events)
    assert "Ana Interrupts Goblin" in page(p2)  # the log is everyone's; no prompt was


def test_player_answers_a_parry_window_with_prompts_turned_on(gm_user):
    """action-points.md, Reactions: 'Free (no AP cost), once per round. Triggered by
    specific events (e.g., opportunity attacks, parries, intercepts ...)'. The GM turns
    defence prompts on for Ana; the Goblin's Basic Attack on her waits for her player,
    who Parries from the page: the Parry bonus is in the logged defence and her Reaction
    is spent. Bram's player sees no prompt."""
    parts = build_table(gm_user)
    enc, ana, goblin = parts["enc"], parts["ana"], parts["goblin"]
    gina = Client()
    gina.force_login(gm_user)
    r = gina.post(
        f"/enc/{enc.pk}/command/",
        {"type": "set_modifier", "actor": ana, "key": "defence_prompts", "value": "on"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200, r.content
    gm(enc, type="start_combat")
    gm(enc, type="end_turn")
    gm(enc, type="end_turn")
    gm(enc, type="act", actor=goblin, action="basic_attack", options={"target": ana})
    enc.refresh_from_db()
    [window] = enc.state["pending"]
    assert window["kind"] == "defend" and window["reactor"] == ana
    wid = window["id"]

    p1 = f"/p/{parts['seat1'].token}/"
    p2 = f"/p/{parts['seat2'].token}/"
    mine = page(p1)
    assert "Defend</strong>: Ana may react to Goblin now." in mine
    assert f'data-testid="defend-{wid}-parry"' in mine and "Parry +2" in mine
    assert "your Reaction" in mine
    assert f'data-testid="defend-{wid}-intercept"' not in mine  # a melee attack
    assert f'data-testid="decline-{wid}"' in mine and "No reaction: plain defence" in mine
    assert no_prompt(page(p2), wid)

    # What the page's Parry button posts: accept=1 and the chosen reaction as opt_reaction.
    r = post(p1, type="react", actor=ana, window=wid, accept="1", opt_reaction="parry")
    assert r.status_code == 200, r.content
    enc.refresh_from_db()
    assert enc.state["pending"] == []
    assert enc.state["combatants"][ana]["reaction"] is False
    after = page(p1)
    assert "(Parry +2)" in after
    assert no_prompt(after, wid)
    line = enc.log.order_by("-seq").first()
    assert line is not None
    assert any("(Parry +2)" in said(e) for e in line.events)
