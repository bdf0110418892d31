"""What a screen reader hears of a command comes from its events, written for that reader
(issue 29): each pushed frame carries the newest command's sentences in #announce-events,
kept apart from the log, and a hidden attacker is not in a player's."""

from __future__ import annotations

import re

import pytest

from combat import broadcast, screens

from .conftest import HIDDEN, TableFixture, gm

pytestmark = pytest.mark.django_db


def announced(frame: str) -> str:
    """The #announce-events element of a frame, or "" when the frame does not carry it."""
    found = re.search(r'<div id="announce-events".*?</div>', frame, re.S)
    return found.group(0) if found else ""


def player_frame(fight: TableFixture, command: dict) -> str:
    """Seat 1's pushed frame for `command`: only the regions that changed."""
    enc = fight.refresh()
    shared = screens.Shared()
    broadcast.render_changes_of(
        broadcast.PLAYER,
        enc,
        None,
        seat=fight.seat1,
        prev_version=enc.version - 1,
        shared=shared,
        cred="c",
    )
    gm(enc, **command)
    enc = fight.refresh()
    return broadcast.render_changes_of(
        broadcast.PLAYER,
        enc,
        None,
        seat=fight.seat1,
        prev_version=enc.version - 1,
        shared=screens.Shared(),
        cred="c",
    )


def test_a_players_frame_announces_the_attack_in_their_words(fight):
    frame = player_frame(
        fight, {"type": "act", "actor": fight.ana, "action": "basic_attack", "target": fight.goblin}
    )
    region = announced(frame)
    assert 'data-seq="' in region and 'id="log"' not in region
    assert "Ana: Basic Attack" in region and "on Goblin" in region
    assert "Rolled 1d1+50: [1] + 50 = 51" in region  # the dice, as the log writes them


def test_a_hidden_attacker_is_announced_as_someone_unseen(fight):
    enc = fight.enc
    for who in (fight.ana, fight.bram, fight.goblin):
        gm(enc, type="end_turn", actor=who)
    attack = {"type": "act", "actor": fight.troll, "action": "basic_attack", "target": fight.ana}
    frame = player_frame(fight, attack)
    region = announced(frame)
    assert "Someone unseen: Basic Attack on Ana" in region
    assert HIDDEN not in frame and fight.troll not in frame
    # The GM hears the same command with every name.
    enc = fight.refresh()
    gm_frame = broadcast.render_gm(enc, prev_version=enc.version - 1)
    assert f"{HIDDEN}: Basic Attack for 1 AP on Ana" in announced(gm_frame)


def test_a_command_a_player_cannot_read_announces_nothing_to_them(fight):
    gm(fight.enc, type="act", actor=fight.ana, action="basic_attack", target=fight.goblin)
    frame = player_frame(fight, {"type": "roll", "dice": "1d6+100", "secret": True})
    region = announced(frame)
    # Nothing to read aloud, and nothing that says something happened: the region is not
    # sent, so the attack's lines are not read again either.
    assert region == ""
    assert "1d6+100" not in frame
