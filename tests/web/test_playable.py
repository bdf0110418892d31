"""What a GM and players can play from the pages (issue 14, "Playable from the browser")."""

from __future__ import annotations

import pytest

from .conftest import TableFixture

pytestmark = pytest.mark.django_db


def test_healing_a_defeated_combatant_from_the_console_revives_it(fight: TableFixture):
    """docs/rules.md, HP: healed above 0 HP, a defeated combatant is back on its feet."""
    fight.gm_post(type="damage", actor=fight.goblin, amount="10")
    assert fight.refresh().state["combatants"][fight.goblin]["defeated"]
    r = fight.gm_post(type="heal", actor=fight.goblin, amount="4")
    assert r.status_code == 200
    c = fight.refresh().state["combatants"][fight.goblin]
    assert c["hp"] == 4 and not c["defeated"]
    for page in (fight.gm.get(fight.gm_url), fight.p1.get(fight.player1_url)):
        assert b"Goblin is back on their feet." in page.content
