"""The bot at the top of docs/api.md runs as printed, against a live server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def the_example() -> str:
    start = DOC.read_text().split("## Start here", 1)[1]
    return re.search(r"```python\n(.*?)```", start, re.S).group(1)


def test_the_bot_in_the_api_guide_plays_a_turn(live_server_url, gm_user, tmp_path):
    from combat.models import ApiToken, Encounter

    code = the_example()
    assert len([line for line in code.splitlines() if line.strip()]) <= 25

    _, token = ApiToken.issue(gm_user, "bot")
    bot = tmp_path / "bot.py"
    bot.write_text(code)

    result = subprocess.run(
        [sys.executable, str(bot)],
        env={**os.environ, "VTT_URL": live_server_url, "VTT_TOKEN": token},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    # The attack, as the log tells it: who attacked whom, and what came of it.
    assert re.search(
        r"(Ana|Goblin): Basic Attack for 1 AP on (Goblin|Ana), \d+ against", result.stdout
    ), result.stdout
    enc = Encounter.objects.get(owner=gm_user, name="Bridge fight")
    attacks = [e for entry in enc.log.all() for e in entry.events if e["kind"] == "attack"]
    assert len(attacks) == 1
    # and the attacker's turn was ended (who goes next depends on the dice)
    ended = [e.command.get("actor") for e in enc.log.all() if e.command.get("type") == "end_turn"]
    assert ended == [attacks[0]["actor"]]
