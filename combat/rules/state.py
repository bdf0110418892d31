"""Encounter state as plain data.

Everything here round-trips through JSON-safe dicts unchanged, so the state can
be stored in one database column and replayed in tests. Ids are strings (JSON
object keys are strings): random ("cq3x7k2ma", see `Encounter.new_id`), or
"c1", "c2", ... in encounters made before ids were random.
"""

from __future__ import annotations

import base64
import copy as _copy
import hashlib
import random
import secrets
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, cast

from .turns import Turn

PC = "pc"
NPC = "npc"

SETUP = "setup"  # combatants are being added; no turns yet
SEIZE = "seize"  # between rounds: Seize the Moment may be declared
COMBAT = "combat"  # turns are running
ENDED = "ended"

# Refusals never repeat what the caller sent: a name or id guessed back at them would
# tell a guess that hit a hidden combatant from one that missed (issue 12 item 9).
UNKNOWN_COMBATANT = "There is no such combatant in this encounter."


@dataclass
class Effect:
    """Something lasting on a combatant, such as a Defensive Stance bonus.

    `expires` says when it goes away: "turn_start" or "turn_end" of the
    combatant named in `until_of`, or "round_end".
    """

    name: str
    expires: str
    until_of: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    text: str = ""


@dataclass
class Window:
    """An open chance to react (an Opportunity Attack, a defence, ...)."""

    id: str
    kind: str
    reactor: str
    trigger: str  # the combatant whose deed opened the window
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class Combatant:
    id: str
    name: str
    side: str = NPC
    initiative_bonus: int = 0
    initiative: int | None = None
    initiative_roll: dict[str, Any] | None = None
    group: str | None = None
    hidden: bool = False
    defeated: bool = False
    hp: int | None = None
    max_hp: int | None = None
    notes: str = ""
    seq: int = 0  # order of adding, the last tie-break
    tie: int = 0  # hand-set order among tied combatants (1 first; 0: not set by hand)
    # Dice expressions and flat bonuses, e.g. {"attack": {"dice": "1d20", "bonus": 2}}.
    stats: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Resources: whatever the ruleset tracks (ap, ap_max, bonus, bonus_max, grit, ...).
    res: dict[str, int] = field(default_factory=dict)
    # Per-combatant settings and homebrew modifiers (ap_max, attacks_per_turn, quicken, ...).
    mods: dict[str, Any] = field(default_factory=dict)
    # Counters that reset with the turn: attacks made, free actions used, and so on
    # (its keys per ruleset: turns.py).
    turn: Turn = field(default_factory=Turn)
    # Counters that reset with the round (Guard once per round, ...).
    round: dict[str, Any] = field(default_factory=dict)
    reaction: bool = True  # the one Reaction of the Action Points ruleset
    engaged: list[str] = field(default_factory=list)  # enemies whose melee reach holds us
    effects: list[Effect] = field(default_factory=list)
    # A multi-turn action being paid off (Action Ladder), or a Skip/Prepare plan.
    carry: dict[str, Any] | None = None
    prepared: dict[str, Any] | None = None
    held: bool = False  # Initiative Passes: keeps its AP for Interrupts only
    seized: bool = False  # Initiative Passes: acts at the top this round
    # The action its player set up off-turn, taken when its turn starts (plans.py).
    plan: dict[str, Any] | None = None

    @property
    def is_pc(self) -> bool:
        return self.side == PC

    def stat(self, name: str) -> dict[str, Any] | None:
        return self.stats.get(name)


@dataclass
class Group:
    id: str
    name: str
    initiative_bonus: int = 0
    initiative: int | None = None
    seq: int = 0  # order of making, a tie-break as a combatant's own


@dataclass
class Encounter:
    ruleset: str
    name: str = "Encounter"
    settings: dict[str, Any] = field(default_factory=dict)
    phase: str = SETUP
    round: int = 0
    pass_no: int = 0
    turn: str | None = None
    # The order for the current round (or pass), built from initiative and seizing.
    order: list[str] = field(default_factory=list)
    acted: list[str] = field(default_factory=list)
    # Combatants who will take a turn right after the current one (a sprung Skip/Prepare).
    interject: list[str] = field(default_factory=list)
    # Places taken in the order for later rounds: combatant → the one it now follows
    # (Action Ladder: a sprung Skip/Prepare, RULINGS ladder 7).
    order_after: dict[str, str] = field(default_factory=dict)
    combatants: dict[str, Combatant] = field(default_factory=dict)
    groups: dict[str, Group] = field(default_factory=dict)
    pending: list[Window] = field(default_factory=list)
    custom_actions: dict[str, dict[str, Any]] = field(default_factory=dict)
    cost_overrides: dict[str, int] = field(default_factory=dict)
    counter: int = 0
    # Group Initiative: how to put back the current member's turn start if another
    # member goes first (see turn_start.py); the GM's alone.
    turn_start_undo: dict[str, Any] | None = None
    # The battle map (board.py): size, terrain, fog and tokens; None when there is none.
    board: dict[str, Any] | None = None

    # --- identity -----------------------------------------------------------------
    def new_id(self, prefix: str, rng: random.Random | None = None) -> str:
        """A fresh id: the prefix and 8 random base32 letters ("cq3x7k2ma"), so ids that
        players see neither count nor order what is hidden from them (issue 12 item 10).

        From a seeded die the letters are derived from its state, without drawing from
        it: a seeded test gets the same ids and the same dice as before. Ids made before
        this (c1, w5) stay as they are.
        """
        self.counter += 1
        taken = {*self.combatants, *self.groups, *(w.id for w in self.pending)}
        for n in range(100):
            new = prefix + _token(rng, f"{prefix}:{self.counter}:{n}")
            if new not in taken:
                return new
        raise RuntimeError("no free id after 100 tries")

    def get(self, cid: str | None) -> Combatant:
        from .refusal import refuse

        # A malformed command (a list or a number for an id) is refused, not a crash.
        if not isinstance(cid, str) or cid not in self.combatants:
            raise refuse("unknown_combatant", UNKNOWN_COMBATANT)
        return self.combatants[cid]

    def public_name(self, cid: str | None) -> str:
        """A name fit for every audience: a hidden combatant is just "someone"."""
        if cid and cid in self.combatants and not self.combatants[cid].hidden:
            return self.combatants[cid].name
        return "someone else"

    def name_of(self, cid: str | None) -> str:
        if cid and cid in self.combatants:
            return self.combatants[cid].name
        return "someone"

    # --- JSON ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """What `dataclasses.asdict` gives (a deep copy, as plain dicts and lists), made
        several times faster: a command and its push make one per audience."""
        return cast("dict[str, Any]", _plain(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, copy: bool = True) -> Encounter:
        """The state in `data`; with copy=False it takes `data`'s parts as its own."""
        d = _copy.deepcopy(data) if copy else dict(data)
        combatants = {}
        # In the order they were added: PostgreSQL's jsonb keeps keys in its own order,
        # and ids are random.
        stored = d.pop("combatants", {})
        for cid, cd in sorted(stored.items(), key=lambda item: item[1].get("seq", 0)):
            effects = [Effect(**e) for e in cd.get("effects", [])]
            combatants[cid] = Combatant(**{**cd, "effects": effects})
        groups = {gid: Group(**gd) for gid, gd in d.pop("groups", {}).items()}
        pending = [Window(**w) for w in d.pop("pending", [])]
        settings = d.get("settings") or {}
        if "_order_after" in settings:
            # States saved when these places were kept among the GM's settings.
            d["settings"] = {k: v for k, v in settings.items() if k != "_order_after"}
            d["order_after"] = {**(settings["_order_after"] or {}), **d.get("order_after", {})}
        return cls(**d, combatants=combatants, groups=groups, pending=pending)

    def copy(self) -> Encounter:
        """A deep copy (rebuilt from a plain copy: deepcopy walks dataclasses slowly)."""
        return Encounter.from_dict(_plain(self), copy=False)


_B32 = "abcdefghijklmnopqrstuvwxyz234567"


def _token(rng: random.Random | None, salt: str) -> str:
    state: Any = None
    if rng is not None and not isinstance(rng, random.SystemRandom):
        try:
            state = rng.getstate()
        except (AttributeError, NotImplementedError):
            state = None
    if state is None:
        return "".join(secrets.choice(_B32) for _ in range(8))
    digest = hashlib.sha256(f"{state!r}|{salt}".encode()).digest()
    return base64.b32encode(digest)[:8].decode().lower()


_ATOMS = frozenset((str, int, float, bool, type(None)))
_FIELDS: dict[type, tuple[str, ...]] = {}


def _plain(value: Any) -> Any:
    """`dataclasses.asdict` for the state's values: dataclasses become dicts, dicts, lists
    and tuples are copied all the way down, anything else is deep-copied."""
    atoms = _ATOMS
    kind = type(value)
    if kind in atoms:
        return value
    if kind is dict:
        return {k: v if type(v) in atoms else _plain(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in atoms else _plain(v) for v in value]
    names = _FIELDS.get(kind)
    if names is None and is_dataclass(value) and not isinstance(value, type):
        names = _FIELDS[kind] = tuple(f.name for f in fields(value))
    if names is not None:
        out = {}
        for name in names:
            v = getattr(value, name)
            out[name] = v if type(v) in atoms else _plain(v)
        return out
    if kind is tuple:
        return tuple(_plain(v) for v in value)
    return _copy.deepcopy(value)
