"""`{% memo %}`: render a fragment once for every push that shows the same thing.

A command changes a few things at a table (the actor's points, the target's HP, a
log line) but every audience's view is pushed whole, and most of it is the same as
the last push, or the same for every player. Inside a push the body of

    {% memo card post_url enc.pk %} ... {% endmemo %}

is rendered only when no earlier render of this very fragment had the same values
for the variables named; otherwise the HTML made then is used again. The key is the
pickled values (so a safe string and a plain one differ), and the body must depend on
nothing else: tests/web/test_memo.py renders every view, push by push through whole
combats of each ruleset, with and without memo, and compares them byte for byte.

Only renders that set `memo` in their context use it (the pushes in
`combat/broadcast.py`, which set a `PerPush`); pages and forms rendered for a request
always render in full (they carry a CSRF token). The store is per process, bounded by
size, least recently used first out; see docs/performance.md.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import threading
from collections import OrderedDict
from typing import Any

from django import template
from django.conf import settings
from django.template.base import FilterExpression, NodeList, Parser, Token
from django.template.context import Context
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


class Store:
    """Least recently used fragments by key, bounded by their total size in characters
    (`VTT_FRAGMENT_CACHE_MB`: the pushed templates write their symbols as character
    references, so a character of kept markup is a byte)."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self._items: OrderedDict[bytes, SafeString] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: bytes) -> SafeString | None:
        with self._lock:
            html = self._items.get(key)
            if html is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return html

    def put(self, key: bytes, html: SafeString) -> None:
        if len(html) > self.max_chars // 8:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._chars -= len(old)
            self._items[key] = html
            self._chars += len(html)
            while self._chars > self.max_chars:
                _, dropped = self._items.popitem(last=False)
                self._chars -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._chars = 0
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._items)


STORE = Store(settings.FRAGMENT_CACHE_MB * 1_000_000)

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


class PerPush:
    """Set as `memo` by a push that renders several views of one state: the digests it
    made so far, by the identity of the values keyed. The views of a push share most of
    their values (the same card of the Ogre for every player), built before any is
    rendered and never changed while they are; each is pickled once per push, not once
    per view. The values are kept with their digest, so an identity is never reused."""

    def __init__(self) -> None:
        self.seen: dict[tuple[Any, ...], tuple[list[Any], bytes | None]] = {}
        # Fragments of `{% memo this_push ... %}`: for the other views of this push only.
        self.kept: dict[bytes, SafeString] = {}

    def __bool__(self) -> bool:
        return True

    def key(self, site: str, values: list[Any]) -> bytes | None:
        ident = (site, *map(id, values))
        known = self.seen.get(ident)
        if known is not None and all(a is b for a, b in zip(known[0], values, strict=True)):
            return known[1]
        key = key_of(site, values)
        self.seen[ident] = (values, key)
        return key


class MemoNode(template.Node):
    def __init__(
        self, site: str, exprs: list[FilterExpression], nodelist: NodeList, this_push: bool
    ) -> None:
        self.site = site
        self.exprs = exprs
        self.nodelist = nodelist
        self.this_push = this_push

    def render(self, context: Context) -> str:
        memo = context.get("memo")
        if not memo or (self.this_push and not isinstance(memo, PerPush)):
            return self.nodelist.render(context)
        values = [context.autoescape, *(e.resolve(context) for e in self.exprs)]
        keyer = memo.key if isinstance(memo, PerPush) else key_of
        key = keyer(self.site, values)
        if key is None:
            return self.nodelist.render(context)
        if self.this_push:
            html = memo.kept.get(key)
            if html is None:
                html = memo.kept[key] = mark_safe(self.nodelist.render(context))
            return html
        html = STORE.get(key)
        if html is None:
            html = mark_safe(self.nodelist.render(context))
            STORE.put(key, html)
        return html


@register.tag("memo")
def do_memo(parser: Parser, token: Token) -> MemoNode:
    """{% memo var1 var2 ... %}body{% endmemo %}: the body depends on those variables only.

    `{% memo this_push var1 ... %}` keeps the fragment for the other views of the same push
    only: for one that changes with every command (the whole log), which would otherwise
    fill the store with HTML never shown again and push out what is (docs/performance.md).
    """
    bits = token.split_contents()[1:]
    this_push = bool(bits) and bits[0] == "this_push"
    if this_push:
        bits = bits[1:]
    if not bits:
        raise template.TemplateSyntaxError("{% memo %} names the variables its body shows.")
    nodelist = parser.parse(("endmemo",))
    parser.delete_first_token()
    origin = getattr(parser, "origin", None)
    site = f"{getattr(origin, 'name', '?')}:{token.lineno}:{token.position}"
    return MemoNode(site, [parser.compile_filter(b) for b in bits], nodelist, this_push)
