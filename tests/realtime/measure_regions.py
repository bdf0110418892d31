"""Bytes of the GM's, the spectators' and the players' frames per command: the regions that changed,
and the whole view the same push would have been without them.

Not collected by the suite; run it by name:
    .venv/bin/pytest -q -n 0 -s -m fuzz tests/realtime/measure_regions.py
It plays the replay test's seeded combat once per ruleset and, for each frame pushed to the
spectators or to a seat, records its size and the size of that audience's whole view at
the same version (rendered beside it, not sent). It also says why containers (regions
holding others: a seat's panel, the GM's turn panel, a GM row) changed, and so were sent
whole: the keys of their `compared` that differ from the version before ("panel:
card.is_turn"), counted by kind of region. And why single action items (a form in a list of
actions) were redrawn: the keys of their model that differ from the version before
("a.cost", "a.fields.default"), counted per audience.
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


def targets_change(before: list[dict[str, Any]], now: list[dict[str, Any]]) -> str:
    """How a list of targets changed: who is in it, their order, or what it says of them."""
    ids = [t["id"] for t in before], [t["id"] for t in now]
    if set(ids[0]) != set(ids[1]):
        return "(who)"
    return "(order)" if ids[0] != ids[1] else "(names)"


def item_changes(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Which keys of an action item's model differ ("a.cost"); its options field by field
    ("a.fields.targets"), when it has the same options as before."""
    found = []
    for k in dict.fromkeys([*before, *now]):
        was, is_ = before.get(k), now.get(k)
        if was == is_:
            continue
        if k != "a" or not isinstance(was, dict) or not isinstance(is_, dict):
            found.append(k)
            continue
        for ak in dict.fromkeys([*was, *is_]):
            x, y = was.get(ak), is_.get(ak)
            if x == y:
                continue
            if ak != "fields" or [f["name"] for f in x] != [f["name"] for f in y]:
                found.append(f"a.{ak}")
                continue
            for fx, fy in zip(x, y, strict=True):
                found += [
                    f"a.fields.{fk}{targets_change(fx[fk], fy[fk]) if fk == 'targets' else ''}"
                    for fk in fx
                    if fx.get(fk) != fy.get(fk)
                ]
    return found


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
    # Each screen's action items' models by version ((list, item id): model), and why each was
    # redrawn (in the same list: one moved to another is taken away and put in, not redrawn).
    acts: dict[tuple[str, str, int], dict[str, Any]] = {}
    redrawn: dict[str, Counter[str]] = {a: Counter() for a in ("gm", "spectator", "player")}

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
        items = {
            (name, ident): (digest, model)
            for name, r in regions.items()
            if r.items is not None and r.items.moves
            for (ident, digest), model in zip(r.items.keys, r.items.models, strict=True)
        }
        acts[(*screen, version)] = items
        was = acts.pop((*screen, prev), None) if prev is not None else None
        if was is not None and version == prev + 1:
            for ident, (digest, model) in items.items():
                # Redrawn: its fingerprint changed (what it draws of its model).
                if ident in was and was[ident][0] != digest:
                    for key in item_changes(was[ident][1], model) or ["order"]:
                        redrawn[audience][key] += 1
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
        print(
            f"{audience} frames {ruleset}, action items redrawn, by what: "
            + (", ".join(f"{k} {n}" for k, n in redrawn[audience].most_common(10)) or "none")
        )
