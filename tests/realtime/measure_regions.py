"""Bytes of the spectators' frames per command, with regions and without (whole views).

Not collected by the suite; run it by name:
    .venv/bin/pytest -q -n 0 -s -m fuzz tests/realtime/measure_regions.py
It plays the replay test's seeded combat and records the size of each frame pushed to the
spectators' group (one per command that reached them).
"""

from __future__ import annotations

import statistics

import pytest

from combat import broadcast
from combat.rules import rulesets

from .test_replay import test_every_page_replays_to_what_a_reload_shows as replay

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.fuzz]


@pytest.mark.parametrize("regions", [False, True], ids=["whole", "regions"])
@pytest.mark.parametrize("ruleset", sorted(rulesets()))
async def test_spectator_bytes(ruleset: str, regions: bool, settings, monkeypatch) -> None:
    sizes: list[int] = []
    real = broadcast._send_all

    def counting(messages):
        for group, message in messages:
            if group.endswith(".public") and message.get("type") == broadcast.FRAME:
                sizes.append(len(message["html"].encode()))
        real(messages)

    monkeypatch.setattr(broadcast, "_send_all", counting)
    monkeypatch.setattr(broadcast, "REGIONS", regions)
    await replay(ruleset, settings, monkeypatch)
    print(
        f"\nspectator frames {ruleset} {'regions' if regions else 'whole'}: {len(sizes)} frames, "
        f"median {statistics.median(sizes):.0f} B, max {max(sizes)} B, "
        f"total {sum(sizes)} B"
    )
