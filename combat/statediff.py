"""The state before a command, kept as a patch instead of a whole copy.

The log keeps, for each command, what it takes to turn the state *after* it back into
the state *before* it: a list of JSON Patch operations (RFC 6902, only "add", "remove"
and "replace", paths as JSON Pointers). A roll that changes nothing keeps an empty list,
an attack that takes 5 HP keeps a handful of operations rather than the whole table.

`diff(new, old)` makes the patch that turns `new` into `old`; `patch(doc, ops)` applies it
to a copy. Objects are compared key by key and equal parts are skipped (Python's `==` on
dicts and lists is fast), lists that differ are replaced whole: the lists in a state are
short (an initiative order, a combatant's conditions).

`history` walks the log from the newest entry back and yields each entry with the state
before and after it, whichever shape the entry was stored in (see LogEntry).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from typing import Any

Ops = list[dict[str, Any]]


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def diff(new: Any, old: Any, path: str = "") -> Ops:
    """The operations that turn `new` into `old` (empty when they are equal)."""
    if new == old and type(new) is type(old):
        return []
    if isinstance(new, dict) and isinstance(old, dict):
        ops: Ops = []
        for key, value in new.items():
            here = f"{path}/{_escape(str(key))}"
            if key not in old:
                ops.append({"op": "remove", "path": here})
            else:
                ops.extend(diff(value, old[key], here))
        for key, value in old.items():
            if key not in new:
                ops.append({"op": "add", "path": f"{path}/{_escape(str(key))}", "value": value})
        return ops
    return [{"op": "replace", "path": path, "value": old}]


def patch(doc: Any, ops: Ops) -> Any:
    """`doc` with the operations applied, as a new object; `doc` itself is not changed.

    Only the objects on the way to a changed value are copied: the result shares every
    untouched part with `doc`, so neither may be changed in place afterwards.
    """
    if not ops:
        return doc
    root: list[Any] = [doc]
    copied: set[int] = set()

    def own(container: Any) -> Any:
        mine = copy.copy(container)
        copied.add(id(mine))
        return mine

    for op in ops:
        parts = [_unescape(p) for p in op["path"].split("/")[1:]] if op["path"] else []
        parent: Any = root
        key: Any = 0
        for part in parts:
            child = parent[key]
            if id(child) not in copied:
                child = own(child)
                parent[key] = child
            parent, key = child, (int(part) if isinstance(child, list) else part)
        value = copy.deepcopy(op.get("value"))
        if op["op"] == "remove":
            del parent[key]
        elif op["op"] == "add" and isinstance(parent, list):
            parent.insert(key, value)
        else:
            parent[key] = value
    return root[0]


def before_of(entry: Any, after: dict[str, Any]) -> dict[str, Any]:
    """The state before a log entry, given the state after it.

    Entries written before patches kept a whole copy in `state_before`; newer ones keep
    `state_patch` (None or [] when the entry changed nothing, as an imported one).
    """
    if entry.state_before is not None:
        return entry.state_before
    return patch(after, entry.state_patch or [])


def history(
    entries_newest_first: Iterable[Any], current: dict[str, Any]
) -> Iterator[tuple[Any, dict[str, Any], dict[str, Any]]]:
    """(entry, state before, state after) for each entry, newest first.

    The state after an entry is the state before the next one, and the encounter's
    current state after the last one. Only two states are held at a time.
    """
    after = current
    for entry in entries_newest_first:
        before = before_of(entry, after)
        yield entry, before, after
        after = before
