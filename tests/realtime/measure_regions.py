"""Bytes of the GM's, the spectators' and the players' frames per command: the regions that changed,
and the whole view the same push would have been without them.

Not collected by the suite; run it by name:
    .venv/bin/pytest -q -n 0 -s -m fuzz tests/realtime/measure_regions.py
It plays the replay test's seeded combat once per ruleset and, for each frame pushed to the
spectators or to a seat, records its size and the size of that audience's whole view at
the same version (rendered beside it, not sent). It also says why containers (regions
holding others: a seat's panel, the GM's turn panel, a GM row) changed, and so were sent
whole: the keys of their `compared` that differ from the version before ("panel:
card.is_turn"), counted by kind of region.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

import pytest

from combat import broadcast
from combat.rules import rulesets
from tests.replay import fragments

from .test_replay import test_every_page_replays_to_what_a_reload_shows as replay

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.fuzz, pytest.mark.timeout(900)]


def kind_of(ident: str) -> str:
    """A region's id without the combatant's or the line's own part."""
    return ident.split("-")[0] if "-" in ident and ident != "log-list" else ident


def changed_keys(before: Any, now: Any, path: str = "") -> list[str]:
    """Where two compared values differ, as dotted keys two dicts deep ("card.is_turn")."""
    if isinstance(before, dict) and isinstance(now, dict) and path.count(".") < 1:
        return [
            found
            for k in dict.fromkeys([*before, *now])
            if before.get(k) != now.get(k)
            for found in changed_keys(before.get(k), now.get(k), f"{path}.{k}" if path else k)
        ]
    return [path]


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
    # Each screen's containers' compared values by version, and why each changed.
    containers: dict[tuple[str, str, int], dict[str, Any]] = {}
    why: dict[str, Counter[str]] = {"gm": Counter(), "spectator": Counter(), "player": Counter()}

    def measured(template, regions, whole, **kw):
        html = real(template, regions, whole, **kw)
        audience = names.get(kw["audience"], "spectator")
        held = {r.inside for r in regions.values() if r.inside in regions}
        now = {name: regions[name].compared for name in held}
        screen, version, prev = (audience, kw["cred"]), kw["version"], kw["prev_version"]
        containers[(*screen, version)] = now
        before = containers.pop((*screen, prev), None) if prev is not None else None
        if before is not None and version == prev + 1:
            for name, compared in now.items():
                if name in before and before[name] != compared:
                    for key in changed_keys(before[name], compared):
                        why[audience][f"{kind_of(name)}: {key or 'all'}"] += 1
        got = sizes[audience]
        got["regions"].append(len(html.encode()))
        whole_html = whole()
        got["whole"].append(len(whole_html.encode()))
        if html != whole_html:
            for ident, part in fragments(html)[0]:
                kind = kind_of(ident)
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
        print(
            f"{audience} frames {ruleset}, containers changed, by what: "
            + (", ".join(f"{k} {n}" for k, n in why[audience].most_common(8)) or "none")
        )
