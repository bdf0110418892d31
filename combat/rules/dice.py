"""Dice expressions: parse, roll, describe, and reason about them.

Pure Python, standard library only. The grammar is small on purpose::

    expression := sign? term (sign term)*
    sign       := "+" | "-"
    term       := dice | constant
    dice       := count? "d" sides keep?          e.g. 1d20, d20, 4d6kh3, 2d20kl1
    keep       := ("kh" | "kl") number            keep the highest / lowest N dice
    constant   := number                          e.g. 3

Letters are case-insensitive and whitespace between tokens is ignored (but not
inside a number: "1 0d6" is refused rather than read as 10d6). Every value a
person can type is bounded, so no expression can make the server roll a
million dice; see the ``MAX_*`` constants.

Rolling uses only ``rng.randint(1, sides)``, one call per die, left to right,
so a seeded ``random.Random`` replays a roll exactly. A :class:`Roll` keeps
every die rolled (including dropped ones) and round-trips through JSON-safe
dicts with :meth:`Roll.to_dict` / :meth:`Roll.from_dict`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

__all__ = [
    "MAX_CONSTANT",
    "MAX_DICE_PER_TERM",
    "MAX_DICE_TOTAL",
    "MAX_LENGTH",
    "MAX_SIDES",
    "MAX_TERMS",
    "DiceError",
    "DiceExpr",
    "DiceSpec",
    "DieTerm",
    "Roll",
    "add_modifier",
    "average",
    "maximum",
    "minimum",
    "parse",
    "roll",
]

MAX_LENGTH = 100  # characters in the expression as typed
MAX_DICE_PER_TERM = 100
MAX_SIDES = 1000
MAX_TERMS = 20
MAX_DICE_TOTAL = 200
MAX_CONSTANT = 10_000  # absolute value of any one constant

_HINT = "Try something like 1d20+3 or 4d6kh3."


class DiceError(ValueError):
    """A dice expression (or saved roll) that cannot be used. The message is for a person.

    `rule` says what is wrong without repeating the expression: a refusal never echoes
    what the caller sent (issue 12 item 9). It is the message itself unless given.
    """

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule or message


# ---------------------------------------------------------------------------
# Terms
# ---------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _term_text(count: int, sides: int, keep: str | None, keep_n: int | None) -> str:
    text = f"{count}d{sides}"
    if keep is not None:
        text += f"k{keep}{keep_n}"
    return text


def _check_dice(sign: object, count: object, sides: object, keep: object, keep_n: object) -> None:
    """Raise DiceError unless these describe a legal dice term."""
    if not (_is_int(sign) and sign in (1, -1)):
        raise DiceError(f"A dice term's sign must be +1 or -1, not {sign!r}.")
    if not (_is_int(count) and _is_int(sides)):
        raise DiceError(f"Dice count and sides must be whole numbers, not {count!r} and {sides!r}.")
    assert isinstance(count, int) and isinstance(sides, int)  # for type checkers
    if keep is None:
        if keep_n is not None:
            raise DiceError(f"A keep count ({keep_n!r}) needs kh or kl to go with it.")
        shown = _term_text(count, sides, None, None)
    else:
        if keep not in ("h", "l"):
            raise DiceError(f"Keep must be 'h' (highest) or 'l' (lowest), not {keep!r}.")
        if not _is_int(keep_n):
            raise DiceError(f"The number of dice to keep must be a whole number, not {keep_n!r}.")
        assert isinstance(keep, str) and isinstance(keep_n, int)
        shown = _term_text(count, sides, keep, keep_n)
    if count < 1:
        raise DiceError(f"A dice term needs at least 1 die: {shown} rolls nothing.")
    if count > MAX_DICE_PER_TERM:
        raise DiceError(
            f"Too many dice: {shown} asks for {count} dice; at most {MAX_DICE_PER_TERM} per term."
        )
    if sides < 1:
        raise DiceError(f"A die needs at least 1 side: {shown} has {sides} sides.")
    if sides > MAX_SIDES:
        raise DiceError(
            f"Too many sides: {shown} has {sides}-sided dice; at most {MAX_SIDES} sides per die."
        )
    if keep is not None:
        assert isinstance(keep_n, int)
        if not 1 <= keep_n <= count:
            which = "highest" if keep == "h" else "lowest"
            raise DiceError(
                f"Cannot keep the {which} {keep_n} of {count} dice in {shown}; "
                f"keep between 1 and {count}."
            )


def _check_constant(value: object) -> None:
    if not _is_int(value):
        raise DiceError(f"A constant must be a whole number, not {value!r}.")
    assert isinstance(value, int)
    if abs(value) > MAX_CONSTANT:
        raise DiceError(
            f"Constant out of range: {value}; constants must be between "
            f"-{MAX_CONSTANT} and {MAX_CONSTANT}."
        )


@dataclass(frozen=True)
class DiceSpec:
    """One dice term of a parsed expression, before rolling: ``sign * countDsides[kh|kl keep_n]``.

    ``keep`` is "h", "l" or None; ``keep_n`` is None exactly when ``keep`` is None.
    """

    sign: int
    count: int
    sides: int
    keep: str | None = None
    keep_n: int | None = None

    def __post_init__(self) -> None:
        _check_dice(self.sign, self.count, self.sides, self.keep, self.keep_n)

    @property
    def text(self) -> str:
        """The term without its sign, e.g. "4d6kh3"."""
        return _term_text(self.count, self.sides, self.keep, self.keep_n)

    @property
    def kept_count(self) -> int:
        return self.count if self.keep_n is None else self.keep_n


def _select_kept(results: tuple[int, ...], keep: str | None, keep_n: int | None) -> tuple[int, ...]:
    """Indices of the dice kept, in rolling order. Ties go to the die rolled first."""
    if keep is None or keep_n is None:
        return tuple(range(len(results)))
    if keep == "h":
        order = sorted(range(len(results)), key=lambda i: (-results[i], i))
    else:
        order = sorted(range(len(results)), key=lambda i: (results[i], i))
    return tuple(sorted(order[:keep_n]))


@dataclass(frozen=True)
class DieTerm:
    """A rolled dice term.

    ``results`` holds every die rolled, in order; ``kept`` holds the indices
    (into ``results``, ascending) of the dice that count. Without a keep
    suffix every die is kept. ``value`` is the signed contribution to the total.
    """

    sign: int
    count: int
    sides: int
    keep: str | None
    keep_n: int | None
    results: tuple[int, ...]
    kept: tuple[int, ...]

    def __post_init__(self) -> None:
        _check_dice(self.sign, self.count, self.sides, self.keep, self.keep_n)
        if not isinstance(self.results, tuple):
            object.__setattr__(self, "results", tuple(self.results))
        if not isinstance(self.kept, tuple):
            object.__setattr__(self, "kept", tuple(self.kept))
        if len(self.results) != self.count:
            raise DiceError(
                f"{self.text} needs {self.count} results, but {len(self.results)} were given."
            )
        for r in self.results:
            if not (_is_int(r) and 1 <= r <= self.sides):
                raise DiceError(f"{r!r} is not a possible result on a d{self.sides}.")
        expected = _select_kept(self.results, self.keep, self.keep_n)
        if self.kept != expected:
            raise DiceError(
                f"{self.text} rolled {list(self.results)} must keep dice {list(expected)}, "
                f"not {list(self.kept)}."
            )
        object.__setattr__(self, "kept", expected)  # plain ints, even if given equal bools

    @property
    def text(self) -> str:
        """The term without its sign, e.g. "4d6kh3"."""
        return _term_text(self.count, self.sides, self.keep, self.keep_n)

    @property
    def spec(self) -> DiceSpec:
        return DiceSpec(self.sign, self.count, self.sides, self.keep, self.keep_n)

    @property
    def dropped(self) -> tuple[int, ...]:
        """Indices of the dice rolled but not counted."""
        kept = set(self.kept)
        return tuple(i for i in range(len(self.results)) if i not in kept)

    @property
    def kept_results(self) -> tuple[int, ...]:
        return tuple(self.results[i] for i in self.kept)

    @property
    def value(self) -> int:
        return self.sign * sum(self.kept_results)


def _check_terms(terms: tuple[Any, ...]) -> None:
    """Bounds that involve the whole expression."""
    if not terms:
        raise DiceError(f"Empty dice expression. {_HINT}")
    if len(terms) > MAX_TERMS:
        raise DiceError(
            f"Too many terms: the expression has {len(terms)}; at most {MAX_TERMS} are allowed."
        )
    dice = 0
    for term in terms:
        if isinstance(term, DiceSpec | DieTerm):
            dice += term.count
        else:
            _check_constant(term)
    if dice > MAX_DICE_TOTAL:
        raise DiceError(
            f"Too many dice in total: the expression rolls {dice} dice; "
            f"at most {MAX_DICE_TOTAL} in one expression."
        )


def _settle_terms(frozen: DiceExpr | Roll, dice: type, whose: str) -> None:
    """Keep an expression's or a roll's terms as a tuple, each of them `dice` or a whole
    number, within the bounds of a whole expression."""
    if not isinstance(frozen.terms, tuple):
        object.__setattr__(frozen, "terms", tuple(frozen.terms))
    for t in frozen.terms:
        if not isinstance(t, dice) and not _is_int(t):
            raise DiceError(f"{whose} terms must be dice or whole numbers, not {t!r}.")
    _check_terms(frozen.terms)


def _format(terms: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for i, term in enumerate(terms):
        if isinstance(term, DiceSpec | DieTerm):
            negative, body = term.sign < 0, term.text
        else:
            negative, body = term < 0, str(abs(term))
        if negative:
            parts.append("-" + body)
        else:
            parts.append(body if i == 0 else "+" + body)
    return "".join(parts)


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DiceExpr:
    """A parsed, validated dice expression.

    ``terms`` are :class:`DiceSpec` for dice and plain signed ``int`` for
    constants, in the order written. ``text`` is the normalised form: no
    spaces, lower case, explicit dice count ("d20" -> "1d20"), no leading "+".
    """

    terms: tuple[DiceSpec | int, ...]
    text: str = field(init=False)

    def __post_init__(self) -> None:
        _settle_terms(self, DiceSpec, "An expression's")
        object.__setattr__(self, "text", _format(self.terms))

    def __str__(self) -> str:
        return self.text

    @property
    def dice(self) -> tuple[DiceSpec, ...]:
        return tuple(t for t in self.terms if isinstance(t, DiceSpec))

    @property
    def bonus(self) -> int:
        """Sum of the constants."""
        return sum(t for t in self.terms if isinstance(t, int))


_SIGN = re.compile(r"\s*([+-])", re.ASCII)
_TERM = re.compile(
    r"""\s*
    (?:
        (?P<count>[0-9]+)?\s*d\s*(?P<sides>[0-9]+)
        (?:\s*k(?P<keep>[hl])\s*(?P<keep_n>[0-9]+))?
      | (?P<const>[0-9]+)
    )
    (?![0-9a-z])
    \s*""",
    re.ASCII | re.IGNORECASE | re.VERBOSE,
)


def parse(expr: str) -> DiceExpr:
    """Parse and validate ``expr``; raise :class:`DiceError` with a readable message if unusable."""
    if not isinstance(expr, str):
        raise TypeError(f"A dice expression must be a string, not {type(expr).__name__}.")
    if len(expr) > MAX_LENGTH:
        raise DiceError(f"Expression too long (over {MAX_LENGTH} characters).")
    if not expr.strip():
        raise DiceError(f"Empty dice expression. {_HINT}")

    def garbage(pos: int) -> DiceError:
        rest = expr[pos:].strip()
        where = plain = ""
        if pos > 0:
            where = f" (could not read {rest!r})" if rest else " (it stops after a sign)"
            plain = f" (unreadable from character {pos + 1})" if rest else where
        return DiceError(
            f"Not a dice expression: {expr!r}{where}. {_HINT}",
            rule=f"Not a dice expression{plain}. {_HINT}",
        )

    terms: list[DiceSpec | int] = []
    pos = 0
    while pos < len(expr):
        sign = 1
        m_sign = _SIGN.match(expr, pos)
        if m_sign:
            sign = -1 if m_sign.group(1) == "-" else 1
            pos = m_sign.end()
        elif terms:
            raise garbage(pos)  # two terms need a + or - between them
        m = _TERM.match(expr, pos)
        if not m:
            raise garbage(pos)
        pos = m.end()
        if m.group("const") is not None:
            value = sign * int(m.group("const"))
            _check_constant(value)
            terms.append(value)
        else:
            keep = m.group("keep")
            terms.append(
                DiceSpec(
                    sign=sign,
                    count=int(m.group("count") or 1),
                    sides=int(m.group("sides")),
                    keep=keep.lower() if keep else None,
                    keep_n=int(m.group("keep_n")) if keep else None,
                )
            )
    return DiceExpr(tuple(terms))


def _as_expr(expr: str | DiceExpr) -> DiceExpr:
    return expr if isinstance(expr, DiceExpr) else parse(expr)


# ---------------------------------------------------------------------------
# Rolling
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Roll:
    """The outcome of rolling an expression.

    ``terms`` mirrors the expression: a :class:`DieTerm` per dice term and a
    plain signed ``int`` per constant, in order. ``bonus`` is the sum of the
    constants and ``total`` the final result; both are checked against the
    terms on construction, as is ``expression``.
    """

    expression: str
    total: int
    terms: tuple[DieTerm | int, ...]
    bonus: int

    def __post_init__(self) -> None:
        _settle_terms(self, DieTerm, "A roll's")
        text = _format(self.terms)
        if self.expression != text:
            raise DiceError(f"Roll says {self.expression!r} but its terms read {text!r}.")
        if not isinstance(self.expression, str):
            raise DiceError(f"A roll's expression must be text, not {self.expression!r}.")
        if not (_is_int(self.total) and _is_int(self.bonus)):
            raise DiceError(
                f"Roll total and bonus must be whole numbers: {self.total!r}, {self.bonus!r}."
            )
        bonus = sum(t for t in self.terms if isinstance(t, int))
        if self.bonus != bonus:
            raise DiceError(f"Roll bonus {self.bonus!r} does not match its constants ({bonus}).")
        total = sum(t.value if isinstance(t, DieTerm) else t for t in self.terms)
        if self.total != total:
            raise DiceError(f"Roll total {self.total!r} does not add up; the dice give {total}.")

    @property
    def dice(self) -> tuple[DieTerm, ...]:
        return tuple(t for t in self.terms if isinstance(t, DieTerm))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-safe data; :meth:`from_dict` rebuilds an equal Roll."""
        terms: list[dict[str, Any]] = []
        for t in self.terms:
            if isinstance(t, DieTerm):
                terms.append(
                    {
                        "type": "dice",
                        "sign": t.sign,
                        "count": t.count,
                        "sides": t.sides,
                        "keep": t.keep,
                        "keep_n": t.keep_n,
                        "results": list(t.results),
                        "kept": list(t.kept),
                        "value": t.value,
                    }
                )
            else:
                terms.append({"type": "constant", "value": t})
        return {
            "expression": self.expression,
            "total": self.total,
            "bonus": self.bonus,
            "terms": terms,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Roll:
        """Rebuild a Roll from :meth:`to_dict` output; raise DiceError if it is inconsistent."""
        try:
            raw_terms = data["terms"]
            if not isinstance(raw_terms, list | tuple):
                raise DiceError("A saved roll's terms must be a list.")
            terms: list[DieTerm | int] = []
            for t in raw_terms:
                kind = t["type"]
                if kind == "constant":
                    terms.append(t["value"])
                elif kind == "dice":
                    if not isinstance(t["results"], list | tuple) or not isinstance(
                        t["kept"], list | tuple
                    ):
                        raise DiceError("A saved dice term's results and kept must be lists.")
                    term = DieTerm(
                        sign=t["sign"],
                        count=t["count"],
                        sides=t["sides"],
                        keep=t["keep"],
                        keep_n=t["keep_n"],
                        results=tuple(t["results"]),
                        kept=tuple(t["kept"]),
                    )
                    if "value" in t and t["value"] != term.value:
                        raise DiceError(
                            f"Saved value {t['value']!r} of {term.text} does not match its dice."
                        )
                    terms.append(term)
                else:
                    raise DiceError(f"Unknown kind of roll term: {kind!r}.")
            return cls(
                expression=data["expression"],
                total=data["total"],
                terms=tuple(terms),
                bonus=data["bonus"],
            )
        except KeyError as exc:
            raise DiceError(f"Not a saved roll: {exc.args[0]!r} is missing.") from exc
        except TypeError as exc:
            raise DiceError(f"Not a saved roll: {exc}.") from exc

    def describe(self) -> str:
        """E.g. ``"4d6kh3+1: [6, 5, 2, 1 dropped] + 1 = 14"``."""
        parts: list[str] = []
        for i, t in enumerate(self.terms):
            if isinstance(t, DieTerm):
                kept = set(t.kept)
                dice = ", ".join(
                    str(r) if j in kept else f"{r} dropped" for j, r in enumerate(t.results)
                )
                negative, body = t.sign < 0, f"[{dice}]"
            else:
                negative, body = t < 0, str(abs(t))
            if i == 0:
                parts.append(("-" if negative else "") + body)
            else:
                parts.append(("- " if negative else "+ ") + body)
        return f"{self.expression}: {' '.join(parts)} = {self.total}"


def roll(expr: str | DiceExpr, rng: random.Random) -> Roll:
    """Roll ``expr``, calling only ``rng.randint(1, sides)``, once per die, left to right."""
    parsed = _as_expr(expr)
    terms: list[DieTerm | int] = []
    for t in parsed.terms:
        if isinstance(t, DiceSpec):
            results = tuple(rng.randint(1, t.sides) for _ in range(t.count))
            terms.append(
                DieTerm(
                    sign=t.sign,
                    count=t.count,
                    sides=t.sides,
                    keep=t.keep,
                    keep_n=t.keep_n,
                    results=results,
                    kept=_select_kept(results, t.keep, t.keep_n),
                )
            )
        else:
            terms.append(t)
    total = sum(t.value if isinstance(t, DieTerm) else t for t in terms)
    return Roll(expression=parsed.text, total=total, terms=tuple(terms), bonus=parsed.bonus)


# ---------------------------------------------------------------------------
# Arithmetic on expressions
# ---------------------------------------------------------------------------


def add_modifier(expr: str | DiceExpr, n: int) -> str:
    """Add ``n`` to the expression's constants and return the normalised text.

    The dice terms keep their order; all constants are merged into one at the
    end, omitted when it is zero (unless there are no dice at all).
    ``add_modifier("1d20+3", 2) == "1d20+5"``; ``add_modifier("1d20", 0) == "1d20"``.
    """
    if not _is_int(n):
        raise TypeError(f"The modifier must be a whole number, not {n!r}.")
    parsed = _as_expr(expr)
    bonus = parsed.bonus + n
    _check_constant(bonus)
    terms: list[DiceSpec | int] = list(parsed.dice)
    if bonus or not terms:
        terms.append(bonus)
    return DiceExpr(tuple(terms)).text


def minimum(expr: str | DiceExpr) -> int:
    """The lowest total the expression can roll."""
    total = 0
    for t in _as_expr(expr).terms:
        if isinstance(t, DiceSpec):
            total += t.kept_count if t.sign > 0 else -t.kept_count * t.sides
        else:
            total += t
    return total


def maximum(expr: str | DiceExpr) -> int:
    """The highest total the expression can roll."""
    total = 0
    for t in _as_expr(expr).terms:
        if isinstance(t, DiceSpec):
            total += t.kept_count * t.sides if t.sign > 0 else -t.kept_count
        else:
            total += t
    return total


def _expected_kept_sum(spec: DiceSpec) -> Fraction:
    """Exact expected sum of the kept dice of one term (ignoring its sign).

    A die showing v contributes 1 for every threshold x in 1..v, so the kept
    sum is the sum over x of (kept dice showing >= x). If j of the N dice show
    >= x, then min(K, j) of the highest K do, and max(0, K - (N - j)) of the
    lowest K do; j is binomial with p = (M - x + 1) / M. Everything is scaled
    by M**N to stay in integers: O(N * M) big-integer steps, well under a
    second at the largest allowed term.
    """
    return _expected_kept(spec.count, spec.sides, spec.keep, spec.keep_n)


@lru_cache(maxsize=256)
def _expected_kept(n: int, m: int, keep: str | None, k: int | None) -> Fraction:
    if keep is None or k is None:
        return Fraction(n * (m + 1), 2)
    binom = [comb(n, j) for j in range(n + 1)]
    scaled = 0
    for x in range(1, m + 1):
        hi, lo = m - x + 1, x - 1  # faces showing >= x, faces showing < x
        lo_pow = [1] * (n + 1)  # lo_pow[i] == lo**i
        for i in range(1, n + 1):
            lo_pow[i] = lo_pow[i - 1] * lo
        hi_pow = 1  # hi**j
        for j in range(n + 1):
            kept_here = min(k, j) if keep == "h" else max(0, k - (n - j))
            if kept_here:
                scaled += kept_here * binom[j] * hi_pow * lo_pow[n - j]
            hi_pow *= hi
    return Fraction(scaled, m**n)


def average(expr: str | DiceExpr) -> float:
    """The expected total, exact (then rounded to float), keep terms included."""
    total = Fraction(0)
    for t in _as_expr(expr).terms:
        if isinstance(t, DiceSpec):
            total += t.sign * _expected_kept_sum(t)
        else:
            total += t
    return float(total)
