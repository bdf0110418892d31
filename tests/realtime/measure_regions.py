"""Bytes of the GM's, the spectators' and the players' frames per command: the regions that changed,
and the whole view the same push would have been without them.

Not collected by the suite; run it by name:
    .venv/bin/pytest -q -n 0 -s -m fuzz tests/realtime/measure_regions.py
It plays the replay test's seeded combat once per ruleset and, for each frame pushed to the
spectators or to a seat, records its size and the size of that audience's whole view at
the same version (rendered beside it, not sent).
"""

from __future__ import annotations

import statistics

import pytest

from combat import broadcast
from combat.rules import rulesets
from tests.replay import fragments

from .test_replay import test_every_page_replays_to_what_a_reload_shows as replay

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.fuzz, pytest.mark.timeout(900)]


@pytest.mark.parametrize("ruleset", sorted(rulesets()))
async def test_frame_bytes(ruleset: str, settings, monkeypatch) -> None:
    sizes: dict[str, dict[str, list[int]]] = {
        audience: {"whole": [], "regions": []} for audience in ("gm", "spectator", "player")
    }
    real = broadcast.render_changes

    # What the frames pushed as regions are made of: bytes by kind of region (its id without
    # the combatant's or the line's own part), per audience.
    parts: dict[str, dict[str, int]] = {"gm": {}, "spectator": {}, "player": {}}
    names = {broadcast.GM: "gm", broadcast.PLAYER: "player"}

    def measured(template, regions, whole, **kw):
        html = real(template, regions, whole, **kw)
        audience = names.get(kw["audience"], "spectator")
        got = sizes[audience]
        got["regions"].append(len(html.encode()))
        whole_html = whole()
        got["whole"].append(len(whole_html.encode()))
        if html != whole_html:
            for ident, part in fragments(html)[0]:
                kind = ident.split("-")[0] if "-" in ident and ident != "log-list" else ident
                parts[audience][kind] = parts[audience].get(kind, 0) + len(part.encode())
        return html

    monkeypatch.setattr(broadcast, "render_changes", measured)
    await replay(ruleset, settings, monkeypatch)
    for audience, by in sizes.items():
        for how, got in by.items():
            print(
                f"\n{audience} frames {ruleset} {how}: {len(got)} frames, "
                f"median {statistics.median(got):.0f} B, max {max(got)} B, total {sum(got)} B"
            )
        top = sorted(parts[audience].items(), key=lambda kv: -kv[1])[:8]
        print(
            f"{audience} frames {ruleset}, bytes by region: "
            + ", ".join(f"{k} {v}" for k, v in top)
        )
