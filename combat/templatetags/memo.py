"""Lists and dicts keyed once by their content (the digest-keyed containers).

Left from the fragment cache of the pushes; screens.py still builds its action panels
and log lines with them. To be deleted with them.
"""

from __future__ import annotations

import hashlib
import io
import pickle
from typing import Any

# Stands before a value's own digest in a key, so it cannot be mistaken for a value.
_DIGEST = "\x00memo-digest"


def digest(value: Any) -> bytes:
    """A digest of a value's content (what `key_of` would pickle for it)."""
    key = key_of("value", [value])
    if key is None:
        raise TypeError(f"{type(value).__name__} cannot be keyed")
    return key


class KeyedDict(dict[str, Any]):
    """A dict made once and never changed, carrying the digest of its content: keying a
    fragment on it costs nothing (a log line is kept for every push that shows it)."""

    __slots__ = ("memo_key",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.memo_key = digest(dict(self))


class KeyedList(list[Any]):
    """A list keyed once by its content (the log's sixty kept lines, by their own digests;
    a combatant's actions, which the GM's card, the turn panel and the player's panel all
    show): a fragment keyed on something that holds it pickles the digest, not the list."""

    __slots__ = ("memo_key",)

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        if all(isinstance(item, KeyedDict) for item in self):
            self.memo_key = digest([item.memo_key for item in self])
        else:
            self.memo_key = digest(list(self))

    def head(self, n: int) -> KeyedList:
        return self if len(self) <= n else KeyedList(self[:n])


def _keyable(value: Any) -> Any:
    if isinstance(value, KeyedDict | KeyedList):
        return (_DIGEST, value.memo_key)
    return value


def _digest_of(key: bytes) -> tuple[str, bytes]:  # only named in pickles, never called
    return (_DIGEST, key)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        # Called only for objects that are not plain dicts, lists, strings or numbers.
        if isinstance(obj, KeyedDict | KeyedList):
            return (_digest_of, (obj.memo_key,))
        return NotImplemented


def key_of(site: str, values: list[Any]) -> bytes | None:
    """A digest of the fragment's site and values; None when a value cannot be pickled."""
    if all(type(v) is bool or isinstance(v, KeyedDict | KeyedList) for v in values):
        # Nothing to pickle: the digests themselves (a pickle never starts with b"\x01").
        parts = [b"\x01", site.encode()]
        for v in values:
            parts.append(b"T" if v is True else b"F" if v is False else b"K" + v.memo_key)
        return hashlib.blake2b(b"".join(parts), digest_size=20).digest()
    buf = io.BytesIO()
    pickler = _Pickler(buf, protocol=5)
    # No memo of repeated objects: equal values give equal bytes however they were built.
    pickler.fast = True
    try:
        pickler.dump((site, [_keyable(v) for v in values]))
    except Exception:  # noqa: BLE001 - anything unpicklable is simply rendered
        return None
    return hashlib.blake2b(buf.getbuffer(), digest_size=20).digest()
