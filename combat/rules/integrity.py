"""A state from outside (an uploaded live export), checked before it may become live.

`restore(data, ruleset)` gives the `Encounter` in `data` or raises `Inconsistent` with a
sentence for the GM. It checks, in this order:

1. the shape: every field of the state's dataclasses and TypedDicts holds a value of
   its declared type (read from the annotations, so a field added to the state is
   checked without a change here), texts and collections are bounded, and no key is
   unknown (an action's own per-turn counter, any key holding a whole number, aside);
2. the invariants the rules engine keeps for every state it makes (the same ones
   tests/rules/test_properties.py checks after random commands): resources and HP
   between 0 and their maximum; every id the state refers to (the turn, the order,
   engagements, reaction windows, effects' "until the turn of", groups) names a
   combatant or group of this encounter; a turn only while combat runs.

It imports nothing from Django: the import's planning process and the tests call it
alike.
"""

from __future__ import annotations

import math
import re
import types
from dataclasses import MISSING, fields, is_dataclass
from functools import cache
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

from .state import COMBAT, ENDED, SEIZE, SETUP, Combatant, Effect, Encounter

MAX_TEXT = 2000  # characters in any one text of the state
MAX_ITEMS = 500  # entries in any one list or object of the state
MAX_NUMBER = 10**9  # any whole number, either sign
PHASES = (SETUP, SEIZE, COMBAT, ENDED)


class Inconsistent(ValueError):
    """The state cannot be taken as it is; the message says why, for a person."""


@cache
def _hints(kind: type) -> dict[str, Any]:
    return get_type_hints(kind)


def _where(path: str) -> str:
    return path or "the state"


def _is_int(value: Any) -> bool:
    # True and False count, as for Python and mypy: a per-turn counter such as Disengage's
    # holds 1 when counted and True when bought (rules/turns.py).
    return isinstance(value, int) and abs(value) <= MAX_NUMBER


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and abs(value) <= MAX_NUMBER
    )


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_TEXT and "\x00" not in value


# The plain values: how to tell one, and what to say when it is not.
_SCALARS: dict[Any, tuple[Any, str]] = {
    type(None): (lambda v: v is None, "should be empty (null)"),
    bool: (lambda v: isinstance(v, bool), "should be true or false"),
    int: (_is_int, "should be a whole number"),
    float: (_is_number, "should be a number"),
    str: (_is_text, f"should be a text of at most {MAX_TEXT} characters"),
}


def _shape(value: Any, kind: Any, path: str) -> None:
    """Raise Inconsistent unless `value` is a JSON value of the annotated type `kind`."""
    origin = get_origin(kind)
    if kind is Any:
        return
    if kind in _SCALARS:
        test, words = _SCALARS[kind]
        if not test(value):
            raise Inconsistent(f"{_where(path)} {words}.")
    elif origin in (Union, types.UnionType):
        _either(value, get_args(kind), path)
    elif origin is Literal:
        if value not in get_args(kind):
            allowed = ", ".join(repr(a) for a in get_args(kind))
            raise Inconsistent(f"{_where(path)} is {value!r}; it may be {allowed}.")
    elif origin is list or kind is list:
        if not isinstance(value, list) or len(value) > MAX_ITEMS:
            raise Inconsistent(f"{_where(path)} should be a list of at most {MAX_ITEMS} entries.")
        item = (get_args(kind) or (Any,))[0]
        for n, v in enumerate(value):
            _shape(v, item, f"{path}[{n}]")
    elif is_typeddict(kind):
        _record(value, kind, path)
    elif origin is dict or kind is dict:
        _object(value, path)
        item = (get_args(kind) or (str, Any))[1]
        for k, v in value.items():
            _shape(v, item, f"{path}.{k}")
    elif isinstance(kind, type) and is_dataclass(kind):
        _dataclass(value, kind, path)
    else:
        raise TypeError(f"integrity: no check for {kind!r} at {path}")  # a new kind of field


def _either(value: Any, options: tuple[Any, ...], path: str) -> None:
    problems = []
    for option in options:
        try:
            _shape(value, option, path)
            return
        except Inconsistent as e:
            problems.append(str(e))
    raise Inconsistent(problems[0])  # the first kind named (`int | None`: a whole number)


def _object(value: Any, path: str) -> None:
    if not isinstance(value, dict) or len(value) > MAX_ITEMS:
        raise Inconsistent(f"{_where(path)} should be an object of at most {MAX_ITEMS} entries.")
    for k in value:
        if not isinstance(k, str) or len(k) > 200:
            raise Inconsistent(f"{_where(path)} has a key that is not a short text.")


def _dataclass(value: Any, kind: type, path: str) -> None:
    _object(value, path)
    hints = _hints(kind)
    for key in value:
        if key not in hints:
            raise Inconsistent(f"{_where(path)} has {key!r}, which this site does not know.")
    for f in fields(kind):
        if f.name not in value:
            if f.default is MISSING and f.default_factory is MISSING:
                raise Inconsistent(f"{_where(path)} has no {f.name!r}.")
            continue
        _shape(value[f.name], hints[f.name], f"{path}.{f.name}" if path else f.name)


def _record(value: Any, kind: type, path: str) -> None:
    """A TypedDict: its keys of their types; any other key an action's own count."""
    _object(value, path)
    hints = _hints(kind)
    for key, v in value.items():
        _shape(v, hints.get(key, int), f"{path}.{key}")


# --- invariants ------------------------------------------------------------------------------


def _ids(values: Any, known: Any, what: str) -> None:
    for v in values:
        if v not in known:
            raise Inconsistent(f"{what} names {v!r}, who is not in this encounter.")


def _no_repeats(values: list[str], what: str) -> None:
    if len(set(values)) != len(values):
        raise Inconsistent(f"{what} names someone twice.")


def _combatant(enc: Encounter, c: Combatant) -> None:
    who = f"{c.name!r}"
    if not c.name.strip():
        raise Inconsistent("A combatant has no name.")
    for key, value in c.res.items():
        top = c.res.get(f"{key}_max")
        if value < 0 or (top is not None and not key.endswith("_max") and value > top):
            raise Inconsistent(f"{who} has {value} {key}, outside 0 to its maximum.")
    if c.max_hp is not None and c.max_hp < 1:
        raise Inconsistent(f"{who} has a maximum HP of {c.max_hp}.")
    if c.hp is not None and not 0 <= c.hp <= (c.max_hp or 0):
        raise Inconsistent(f"{who} has {c.hp} HP, outside 0 to its maximum.")
    if c.group is not None and c.group not in enc.groups:
        raise Inconsistent(f"{who} is in a group this encounter does not have.")
    _ids(c.engaged, enc.combatants, f"{who}'s melee")
    if c.id in c.engaged:
        raise Inconsistent(f"{who} is in melee with itself.")
    _ids([e.until_of for e in c.effects if e.until_of is not None], enc.combatants, who)


def _windows(enc: Encounter) -> None:
    _no_repeats([w.id for w in enc.pending], "The open reaction windows")
    for w in enc.pending:
        _ids([w.reactor, w.trigger], enc.combatants, "A reaction window")


def _turn_start_undo(enc: Encounter) -> None:
    undo = enc.turn_start_undo
    if undo is None:
        return
    _object(undo, "turn_start_undo")
    if set(undo) != {"of", "began", "fields", "effects"}:
        raise Inconsistent("turn_start_undo is not what a group's turn start keeps.")
    _shape(undo["of"], str, "turn_start_undo.of")
    _shape(undo["began"], bool, "turn_start_undo.began")
    _shape(undo["fields"], dict[str, dict[str, Any]], "turn_start_undo.fields")
    _shape(undo["effects"], dict[str, list[Effect]], "turn_start_undo.effects")
    _ids([undo["of"], *undo["fields"], *undo["effects"]], enc.combatants, "turn_start_undo")
    hints = _hints(Combatant)
    for cid, changed in undo["fields"].items():
        for key, value in changed.items():
            if key not in hints or key in ("id", "effects"):
                raise Inconsistent(f"turn_start_undo puts back {key!r}, which it may not.")
            _shape(value, hints[key], f"turn_start_undo.fields.{cid}.{key}")


# What a combatant's id looks like (state.Encounter.new_id; "c1", "c2" in older encounters).
_COMBATANT_ID = re.compile(r"c[a-z2-7]{8}|c[0-9]{1,6}")


def _loose_ids(value: Any, known: set[str]) -> None:
    """Free-form parts of the state (a window's or an effect's detail, a carried action)
    name combatants by id too: each must be one of this encounter's."""
    if isinstance(value, str):
        if _COMBATANT_ID.fullmatch(value) and value not in known:
            raise Inconsistent(f"The fight refers to {value!r}, who is not in this encounter.")
    elif isinstance(value, dict):
        for v in value.values():
            _loose_ids(v, known)
    elif isinstance(value, list):
        for v in value:
            _loose_ids(v, known)


_BOARD_KEYS = {"width", "height", "cell_m", "terrain", "fog", "tokens"}
_TOKEN_KEYS = {"at", "size", "reach"}


def _cell(k: Any, width: int, height: int, what: str) -> tuple[int, int]:
    parts = k.split(",") if isinstance(k, str) else []
    if len(parts) != 2 or not all(p.isdigit() and len(p) <= 3 for p in parts):
        raise Inconsistent(f"{what} names the cell {k!r}, which is not an x,y pair.")
    x, y = int(parts[0]), int(parts[1])
    if x >= width or y >= height:
        raise Inconsistent(f"{what} names the cell {k}, off the {width} × {height} map.")
    return x, y


def _board(enc: Encounter) -> None:
    """The map (rules/board.py) as its commands keep it: its size within bounds, terrain and
    fog on its cells, each token one of this encounter's combatants, on the map or off it."""
    from .board import DIAGONALS, MAX_SIDE, TERRAIN

    b = enc.board
    if b is None:
        return
    if set(b) - {"image", "diagonals"} != _BOARD_KEYS:
        raise Inconsistent(
            f"The map should hold exactly {', '.join(sorted(_BOARD_KEYS))} (and maybe "
            "diagonals, image)."
        )
    if "diagonals" in b and b["diagonals"] not in DIAGONALS:
        raise Inconsistent(f"The map's diagonals should be {' or '.join(DIAGONALS)}.")
    if "image" in b:
        _image(b["image"])
    for side in ("width", "height"):
        if not _is_int(b[side]) or not 1 <= b[side] <= MAX_SIDE:
            raise Inconsistent(f"The map's {side} should be 1 to {MAX_SIDE} cells.")
    w, h = b["width"], b["height"]
    if not _is_number(b["cell_m"]) or not 0.1 <= b["cell_m"] <= 100:
        raise Inconsistent("The map's cell size should be 0.1 to 100 metres.")
    _shape(b["terrain"], dict[str, str], "board.terrain")
    for k, kind in b["terrain"].items():
        _cell(k, w, h, "The map's terrain")
        if kind not in TERRAIN:
            raise Inconsistent(f"The map's terrain {kind!r} is not one of {', '.join(TERRAIN)}.")
    _shape(b["fog"], list[str], "board.fog")
    for k in b["fog"]:
        _cell(k, w, h, "The map's fog")
    _object(b["tokens"], "board.tokens")
    _ids(b["tokens"], enc.combatants, "The map's tokens")
    for cid, t in b["tokens"].items():
        _token(t, cid, w, h)


def _image(image: Any) -> None:
    """The background image: a content hash for a name and its size in pixels."""
    from .board import IMAGE_NAME, MAX_IMAGE_SIDE

    _object(image, "board.image")
    if set(image) != {"name", "w", "h"}:
        raise Inconsistent("The map's image should hold exactly h, name, w.")
    if not isinstance(image["name"], str) or not IMAGE_NAME.match(image["name"]):
        raise Inconsistent("The map's image should be named by 32 hex digits.")
    for side in ("w", "h"):
        if not _is_int(image[side]) or not 1 <= image[side] <= MAX_IMAGE_SIDE:
            raise Inconsistent(f"The map's image should be 1 to {MAX_IMAGE_SIDE} pixels a side.")


def _token(t: Any, cid: str, w: int, h: int) -> None:
    from .board import MAX_TOKEN_SIZE, footprint

    _object(t, f"board.tokens.{cid}")
    if set(t) != _TOKEN_KEYS:
        raise Inconsistent(f"A token should hold exactly {', '.join(sorted(_TOKEN_KEYS))}.")
    if not _is_int(t["size"]) or not 1 <= t["size"] <= MAX_TOKEN_SIZE:
        raise Inconsistent(f"A token's size should be 1 to {MAX_TOKEN_SIZE} cells.")
    if t["reach"] is not None and not (_is_number(t["reach"]) and 0 <= t["reach"] <= 1000):
        raise Inconsistent("A token's reach should be 0 to 1000 metres, or none.")
    if t["at"] is not None:
        _shape(t["at"], list[int], f"board.tokens.{cid}.at")
        if len(t["at"]) != 2 or min(t["at"]) < 0:
            raise Inconsistent("A token stands on a cell x,y, or off the map.")
        for x, y in footprint(t["at"], t["size"]):
            _cell(f"{x},{y}", w, h, "A token")


def check(enc: Encounter, ruleset: str) -> None:
    """Raise Inconsistent unless `enc` keeps every invariant of a state the engine makes."""
    if enc.ruleset != ruleset:
        raise Inconsistent(f"The fight is played under {enc.ruleset!r}, not {ruleset!r}.")
    if enc.phase not in PHASES:
        raise Inconsistent(f"The phase {enc.phase!r} is not one of {', '.join(PHASES)}.")
    if min(enc.round, enc.pass_no, enc.counter) < 0:
        raise Inconsistent("The round, the pass and the id counter cannot be negative.")
    for key, c in enc.combatants.items():
        if c.id != key:
            raise Inconsistent(f"The combatant kept under {key!r} calls itself {c.id!r}.")
        _combatant(enc, c)
    for key, g in enc.groups.items():
        if g.id != key:
            raise Inconsistent(f"The group kept under {key!r} calls itself {g.id!r}.")
    for what, ids in (("The order", enc.order), ("Who has acted", enc.acted)):
        _ids(ids, enc.combatants, what)
        _no_repeats(ids, what)
    _ids(enc.interject, enc.combatants, "Who acts next")
    _ids([*enc.order_after, *enc.order_after.values()], enc.combatants, "The places taken")
    if enc.turn is not None:
        _ids([enc.turn], enc.combatants, "The turn")
        if enc.phase != COMBAT:
            raise Inconsistent(f"It is someone's turn while the phase is {enc.phase!r}.")
    _windows(enc)
    _turn_start_undo(enc)
    _board(enc)
    names = {c.name for c in enc.combatants.values()}
    known = {*enc.combatants, *names}
    for c in enc.combatants.values():
        _loose_ids(
            [c.carry, c.prepared, c.plan, c.turn, c.round, [e.detail for e in c.effects]], known
        )
    _loose_ids([w.detail for w in enc.pending], known)
    _loose_ids([v for k, v in enc.settings.items() if k.startswith("_")], known)


def restore(data: Any, ruleset: str) -> Encounter:
    """The state in `data`, checked (see the module's docstring); Inconsistent if not."""
    _shape(data, Encounter, "")
    enc = Encounter.from_dict(data)
    check(enc, ruleset)
    return enc


def exercise(enc: Encounter) -> None:
    """Read the state as every page will: what each combatant can do now, and what each
    audience may see. A state the engine cannot read this way is refused now rather than
    failing in front of the table later."""
    from .view import GM, PLAYER, PUBLIC, availability, redacted, windows_for

    try:
        for cid in enc.combatants:
            availability(enc, cid)
        for audience in (GM, PLAYER, PUBLIC):
            redacted(enc, audience)
            windows_for(enc, audience)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise Inconsistent(
            f"The rules engine cannot read this fight as it stands ({type(e).__name__})."
        ) from None


def restore_and_exercise(data: Any, ruleset: str) -> Encounter:
    """`restore`, then `exercise`: a live state fit to play on."""
    enc = restore(data, ruleset)
    exercise(enc)
    return enc
