"""Issue 35, jumps on the map from the player's page: the Action Ladder's Jump form has the
landing cell, a jump over a pond moves the token and the GM's map shows it; a jump too
long is refused in words with its numbers and changes nothing. action-ladder.md,
"Jumping" (a standing jump reaches a quarter of the AGI bonus)."""

from __future__ import annotations

from combat import services

from .conftest import FIGHTER, add, gm
from .test_board import board_of, page

# AGI bonus 12: a standing jump reaches 3 m.
JUMPER = {**FIGHTER, "AGI": {"dice": "1d1", "bonus": 12}}


def test_a_player_jumps_over_a_pond_from_the_form(gm_user, client):
    enc = services.create_encounter(gm_user, "Pond", "action_ladder", {})
    ana = add(enc, name="Ana", side="pc", hp=30, initiative=20, stats=JUMPER)
    add(enc, name="Ogre", side="npc", hp=40, initiative=10, stats=FIGHTER)
    seat = services.create_seat(enc.pk, "Player 1", [ana])
    gm(enc, type="set_board", width=12, height=3)
    gm(enc, type="paint", cells="B2", terrain="deep_water")
    gm(enc, type="place", actor=ana, cell="A2")
    gm(enc, type="start_combat")
    url = f"/p/{seat.token}/"
    html = page(client, url)
    form = html[html.index(f'data-testid="action-{ana}-jump"') :]
    form = form[: form.index("</form>")]
    assert 'name="opt_to"' in form

    def jump(to: str):
        data = {"type": "act", "actor": ana, "action": "jump", "opt_kind": "standing"}
        return client.post(f"{url}command/", {**data, "opt_to": to}, HTTP_HX_REQUEST="true")

    before = type(enc).objects.get(pk=enc.pk).state
    said = jump("F2").content.decode()
    assert "3 m" in said and "F2" in said, said
    assert type(enc).objects.get(pk=enc.pk).state == before

    assert jump("C2").status_code == 200
    state = type(enc).objects.get(pk=enc.pk).state
    assert state["board"]["tokens"][ana]["at"] == [2, 1]
    gm_client = type(client)()
    gm_client.force_login(gm_user)
    assert "Ana: C2" in board_of(page(gm_client, f"/enc/{enc.pk}/"))
    assert "Ana: C2" in board_of(page(client, url))


def test_a_tap_with_jump_chosen_previews_the_straight_line_and_jump_here(gm_user, client):
    """Issue 35, moving by tapping a cell, with the Jump action chosen in the panel: the
    answer is the jump's straight line (over the pond a walk could not cross) with its
    metres against the jump's reach, and "Jump here"; a cell out of reach says so in
    words. Nothing changes."""
    enc = services.create_encounter(gm_user, "Pond", "action_ladder", {})
    ana = add(enc, name="Ana", side="pc", hp=30, initiative=20, stats=JUMPER)
    add(enc, name="Ogre", side="npc", hp=40, initiative=10, stats=FIGHTER)
    seat = services.create_seat(enc.pk, "Player 1", [ana])
    gm(enc, type="set_board", width=12, height=3)
    gm(enc, type="paint", cells="B1:B3", terrain="deep_water")
    gm(enc, type="place", actor=ana, cell="A2")
    gm(enc, type="start_combat")
    version = type(enc).objects.get(pk=enc.pk).version
    move = f"/p/{seat.token}/move/"
    said = client.get(move, {"to": "C2", "action": "jump", "opt_kind": "standing"})
    html = said.content.decode()
    assert "Jump, " in html and ": 2 of 3 m" in html, html
    assert "C2 is 2 m away in a straight line" in html
    assert 'data-testid="move-here">Jump here</button>' in html
    assert 'name="opt_to" value="C2"' in html and 'name="action" value="jump"' in html
    far = client.get(move, {"to": "F2", "action": "jump"}).content.decode()
    assert "Jump here" not in far and "3 m" in far
    # A walk cannot cross the deep water the jump goes over.
    walk = client.get(move, {"to": "C2", "action": "walk"}).content.decode()
    assert "Move here" not in walk
    assert type(enc).objects.get(pk=enc.pk).version == version
