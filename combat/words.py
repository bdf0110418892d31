"""Sentences, written for the person who reads them.

The rules engine records facts (combat/rules/events.py): a kind, the combatants involved,
the dice and the numbers. This module is the one place those facts become words. Each
sentence is a small function registered under a name (`@says("damage")`) that reads the
fact through `Said`, which knows who is reading: a combatant the reader cannot see is
"someone unseen", and a number about the health of a combatant whose HP the reader may not
know exactly is left out (`Said.exact`). So a hidden name or a veiled number never enters
a reader's sentence in the first place; nothing is scrubbed afterwards.

Events written before a family moved to facts carry their words (`text`) and are read as
they are; those stored by earlier versions keep their words as the fact `written`
(combat/migrations/0009_old_log_words.py), each reader's own version in its own data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

UNSEEN = "someone unseen"
# Events written before their family moved to facts keep their words (data.words) under
# this sentence (combat/sentences/written.py).
WRITTEN = "written"


@dataclass(frozen=True)
class Reader:
    """Who reads: the GM sees everyone and every number; anyone else does not see the
    combatants in `hidden` and does not know the exact HP of those in `veiled`."""

    gm: bool = True
    hidden: frozenset[str] = field(default_factory=frozenset)
    veiled: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, gm: bool, hidden: Iterable[str] = (), veiled: Iterable[str] = ()) -> Reader:
        if gm:
            return GM_READER
        return cls(False, frozenset(hidden), frozenset(veiled))


GM_READER = Reader()


class Said:
    """One fact as one reader may know it: the arguments a sentence function reads."""

    def __init__(self, ev: dict[str, Any], reader: Reader) -> None:
        self.ev = ev
        self.reader = reader
        self.data: dict[str, Any] = ev.get("data") or {}

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    @property
    def actor(self) -> str | None:
        actor = self.ev.get("actor")
        return actor if isinstance(actor, str) else None

    def name(self, cid: str | None) -> str:
        """The combatant's name when the fact happened, or "someone unseen" for a reader
        who cannot see it."""
        if cid is None:
            return "someone"
        if not self.reader.gm and cid in self.reader.hidden:
            return UNSEEN
        names = self.ev.get("names") or {}
        return str(names.get(cid) or "someone")

    def Name(self, cid: str | None) -> str:  # noqa: N802 - the name at a sentence's start
        n = self.name(cid)
        return n[:1].upper() + n[1:]

    def sees(self, cid: str | None) -> bool:
        """Whether this reader can see `cid` (a hidden attacker's own roll and bonus are
        left out of the sentence for a reader who cannot)."""
        return self.reader.gm or cid not in self.reader.hidden

    def exact(self, cid: str | None) -> bool:
        """Whether this reader may know the exact HP of `cid`."""
        return self.reader.gm or cid not in self.reader.veiled


Sentence = Callable[[Said], str]
SAYS: dict[str, Sentence] = {}


def says(*names: str) -> Callable[[Sentence], Sentence]:
    """Register a sentence under the names facts use (`Events.add(..., say=name)`)."""

    def register(fn: Sentence) -> Sentence:
        for n in names:
            if n in SAYS:
                raise ValueError(f"Two sentences are registered as {n!r}.")
            SAYS[n] = fn
        return fn

    return register


class Unsayable(Exception):  # noqa: N818 - a fact with no sentence, not a failure of ours
    """A fact whose sentence is unknown or whose data does not fit it (an import)."""


def text(ev: dict[str, Any], reader: Reader = GM_READER) -> str:
    """The sentence `reader` reads for the event: written from its facts, or, for an event
    recorded before its family moved to facts, the words it carries."""
    say = ev.get("say")
    if say is None:
        return str(ev.get("text", ""))
    fn = SAYS.get(str(say))
    if fn is None:
        raise Unsayable(f"No sentence is known for {say!r}.")
    try:
        return fn(Said(ev, reader))
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise Unsayable(f"The facts of {say!r} do not fit its sentence.") from e


def inner(ev: Any, reader: Reader) -> str:
    """The sentence of an event quoted inside another (an undo repeats the undone line), as
    this reader reads it: for an event that carries its words, the number-free version
    when it tells the health of a combatant the reader may not know exactly."""
    if not isinstance(ev, dict):
        raise Unsayable("A quoted event is not an event.")
    health = ev.get("health")
    if not reader.gm and isinstance(health, dict) and set(health.get("of") or ()) & reader.veiled:
        if "say" not in ev:
            return str(health.get("text", ""))
        if ev.get("say") == WRITTEN:  # words kept from before facts: the number-free ones
            return text({**ev, "data": health.get("data") or {}}, reader)
    return text(ev, reader)


def written(ev: dict[str, Any], reader: Reader = GM_READER) -> dict[str, Any]:
    """The event with `text` set to the sentence for `reader` (what pages and the API
    read). A player or spectator gets no name of a combatant they cannot see, and no data
    at all when the event is about a combatant whose HP they may not know exactly (the
    sentence was written from the facts first, leaving the number out)."""
    if "say" not in ev:
        return ev
    out = {**ev, "text": text(ev, reader)}
    if reader.gm:
        return out
    names = ev.get("names") or {}
    out["names"] = {i: n for i, n in names.items() if i not in reader.hidden}
    about = set(names) | set(ev.get("involved") or ())
    if about & reader.veiled:
        out["data"] = {}
    else:
        out["data"] = _unhidden(ev.get("data") or {}, reader.hidden)
    if ev.get("say") == WRITTEN:
        # Kept words are the sentence itself, in `text`: the data does not repeat them.
        out["data"] = {k: v for k, v in out["data"].items() if k != "words"}
    return out


def _unhidden(value: Any, hidden: frozenset[str]) -> Any:
    """`value` without the ids of combatants the reader cannot see (and events quoted in it
    only as their kind)."""
    if isinstance(value, dict):
        if "say" in value or "text" in value:  # a quoted event: the sentence says it
            return {"kind": value.get("kind")}
        return {k: _unhidden(v, hidden) for k, v in value.items() if not _is_hidden(v, hidden)}
    if isinstance(value, list):
        return [_unhidden(v, hidden) for v in value if not _is_hidden(v, hidden)]
    return value


def _is_hidden(value: Any, hidden: frozenset[str]) -> bool:
    return isinstance(value, str) and value in hidden


def _register_all() -> None:
    """Sentences live in combat/sentences/, one module per family; importing them
    registers them."""
    import importlib
    import pkgutil

    from combat import sentences

    for module in pkgutil.iter_modules(sentences.__path__):
        importlib.import_module(f"{sentences.__name__}.{module.name}")


_register_all()
