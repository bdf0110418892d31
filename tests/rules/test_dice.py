"""Tests for combat.rules.dice: parsing, refusals, rolling, replay, serialisation, statistics."""

from __future__ import annotations

import ast
import dataclasses
import itertools
import json
import random
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from combat.rules import dice
from combat.rules.dice import (
    DiceError,
    DiceExpr,
    DiceSpec,
    DieTerm,
    Roll,
    add_modifier,
    average,
    maximum,
    minimum,
    parse,
    roll,
)

# No example database on disk: these tests must not leave files in the repository.
hyp = settings(database=None, deadline=None)
HINT = "Try something like 1d20+3 or 4d6kh3."


class ScriptedRng(random.Random):
    """Hands out scripted results and records every call; anything but randint fails."""

    def __init__(self, values: list[int]) -> None:
        super().__init__(0)
        self.values = list(values)
        self.calls: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        self.calls.append((a, b))
        value = self.values.pop(0)
        assert a <= value <= b, f"scripted {value} outside {a}..{b}"
        return value

    def random(self) -> float:
        raise AssertionError("roll() must use only randint")

    def getrandbits(self, k: int) -> int:
        raise AssertionError("roll() must use only randint")


# ---------------------------------------------------------------------------
# Parsing and normalisation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "normal", "terms"),
    [
        ("1d10+3", "1d10+3", (DiceSpec(1, 1, 10), 3)),
        ("2d6-1", "2d6-1", (DiceSpec(1, 2, 6), -1)),
        ("4d6kh3", "4d6kh3", (DiceSpec(1, 4, 6, "h", 3),)),
        ("1d8+1d4+2", "1d8+1d4+2", (DiceSpec(1, 1, 8), DiceSpec(1, 1, 4), 2)),
        ("d20", "1d20", (DiceSpec(1, 1, 20),)),
        ("3", "3", (3,)),
        ("-1+1d6", "-1+1d6", (-1, DiceSpec(1, 1, 6))),
        ("2d20kl1", "2d20kl1", (DiceSpec(1, 2, 20, "l", 1),)),
        ("1d20-1d4", "1d20-1d4", (DiceSpec(1, 1, 20), DiceSpec(-1, 1, 4))),
        ("-d4", "-1d4", (DiceSpec(-1, 1, 4),)),
        ("0", "0", (0,)),
    ],
)
def test_parse_examples(text: str, normal: str, terms: tuple[object, ...]) -> None:
    expr = parse(text)
    assert isinstance(expr, DiceExpr)
    assert expr.text == normal
    assert str(expr) == normal
    assert expr.terms == terms


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("  1D20 + 3 ", "1d20+3"),
        ("4D6KH3", "4d6kh3"),
        ("4d6 kh 3", "4d6kh3"),
        ("2d20Kl1", "2d20kl1"),
        ("+1d20", "1d20"),
        ("D20\t-\t2", "1d20-2"),
        ("01d006+007", "1d6+7"),
        ("1d20+0", "1d20+0"),
        ("1d20-0", "1d20+0"),
        ("3+1d20", "3+1d20"),  # order is kept
    ],
)
def test_normalisation(text: str, normal: str) -> None:
    assert parse(text).text == normal


def test_parse_summaries() -> None:
    expr = parse("1d8+1d4+2-1")
    assert expr.bonus == 1
    assert [d.text for d in expr.dice] == ["1d8", "1d4"]


def test_dice_expr_is_frozen() -> None:
    expr = parse("1d20")
    with pytest.raises(dataclasses.FrozenInstanceError):
        expr.text = "1d4"  # type: ignore[misc]


@pytest.mark.parametrize(
    "text",
    [
        "100d6",
        "1d1000",
        "d1",
        "4d6kh4",
        "4d6kl1",
        "100d6+100d6",  # exactly 200 dice
        "+".join(["1"] * 20),  # exactly 20 terms
        "10000",
        "-10000",
        "1d20" + " " * 94 + "+3",  # exactly 100 characters
    ],
)
def test_bounds_are_inclusive(text: str) -> None:
    parse(text)


# ---------------------------------------------------------------------------
# Refusals
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "1000000d1000000",
            "Too many dice: 1000000d1000000 asks for 1000000 dice; at most 100 per term.",
        ),
        ("101d6", "Too many dice: 101d6 asks for 101 dice; at most 100 per term."),
        ("1d0", "A die needs at least 1 side: 1d0 has 0 sides."),
        ("d0", "A die needs at least 1 side: 1d0 has 0 sides."),
        ("0d6", "A dice term needs at least 1 die: 0d6 rolls nothing."),
        ("1d1001", "Too many sides: 1d1001 has 1001-sided dice; at most 1000 sides per die."),
        (
            "4d6kh5",
            "Cannot keep the highest 5 of 4 dice in 4d6kh5; keep between 1 and 4.",
        ),
        ("2d20kl3", "Cannot keep the lowest 3 of 2 dice in 2d20kl3; keep between 1 and 2."),
        ("4d6kh0", "Cannot keep the highest 0 of 4 dice in 4d6kh0; keep between 1 and 4."),
        ("abc", f"Not a dice expression: 'abc'. {HINT}"),
        ("4d6k3", f"Not a dice expression: '4d6k3'. {HINT}"),
        ("1d20+abc", f"Not a dice expression: '1d20+abc' (could not read 'abc'). {HINT}"),
        ("1d20 3", f"Not a dice expression: '1d20 3' (could not read '3'). {HINT}"),
        ("1 0d6", f"Not a dice expression: '1 0d6' (could not read '0d6'). {HINT}"),
        ("1d20--3", f"Not a dice expression: '1d20--3' (could not read '-3'). {HINT}"),
        ("1d20+", f"Not a dice expression: '1d20+' (it stops after a sign). {HINT}"),
        ("1d20*2", f"Not a dice expression: '1d20*2' (could not read '*2'). {HINT}"),
        ("4d6kh", f"Not a dice expression: '4d6kh'. {HINT}"),
        ("1d٣", f"Not a dice expression: '1d٣'. {HINT}"),  # non-ASCII digit
        ("", f"Empty dice expression. {HINT}"),
        ("   ", f"Empty dice expression. {HINT}"),
        ("1d20" + " " * 95 + "+3", "Expression too long (over 100 characters)."),
        ("1" * 5000, "Expression too long (over 100 characters)."),
        ("+".join(["1"] * 21), "Too many terms: the expression has 21; at most 20 are allowed."),
        (
            "100d1+100d1+1d1",
            "Too many dice in total: the expression rolls 201 dice; at most 200 in one expression.",
        ),
        (
            "1d20+10001",
            "Constant out of range: 10001; constants must be between -10000 and 10000.",
        ),
        ("-10001", "Constant out of range: -10001; constants must be between -10000 and 10000."),
    ],
)
def test_refusals(text: str, message: str) -> None:
    with pytest.raises(DiceError) as info:
        parse(text)
    assert str(info.value) == message


def test_dice_error_is_a_value_error() -> None:
    assert issubclass(DiceError, ValueError)


@pytest.mark.parametrize("bad", [None, 20, b"1d20"])
def test_parse_rejects_non_strings(bad: object) -> None:
    with pytest.raises(TypeError):
        parse(bad)  # type: ignore[arg-type]


@given(st.text(max_size=120))
@hyp
def test_any_text_parses_or_raises_dice_error(text: str) -> None:
    try:
        expr = parse(text)
    except DiceError as exc:
        assert str(exc).endswith(".")
        return
    assert parse(expr.text) == expr


@given(
    st.text(alphabet="0123456789dDkKhHlL+- ", max_size=40),
)
@hyp
def test_dice_like_text_parses_or_raises_dice_error(text: str) -> None:
    try:
        expr = parse(text)
    except DiceError:
        return
    assert minimum(expr) <= maximum(expr)


# ---------------------------------------------------------------------------
# Generated valid expressions
# ---------------------------------------------------------------------------


@st.composite
def expressions(draw: st.DrawFn) -> tuple[str, str]:
    """A valid expression as a person might type it, and its normal form (built independently)."""
    n_terms = draw(st.integers(1, 5))
    raw: list[str] = []
    normal: list[str] = []
    space = st.sampled_from(["", " "])
    for i in range(n_terms):
        negative = draw(st.booleans())
        if draw(st.booleans()):
            count = draw(st.integers(1, 8))
            sides = draw(st.sampled_from([1, 2, 4, 6, 8, 10, 12, 20, 100, 1000]))
            keep = draw(st.sampled_from([None, "h", "l"]))
            keep_n = draw(st.integers(1, count)) if keep else None
            count_text = "" if count == 1 and draw(st.booleans()) else str(count)
            body = count_text + draw(space) + draw(st.sampled_from("dD")) + draw(space)
            body += str(sides)
            norm = f"{count}d{sides}"
            if keep:
                k = draw(st.sampled_from(["k", "K"])) + draw(st.sampled_from([keep, keep.upper()]))
                body += draw(space) + k + draw(space) + str(keep_n)
                norm += f"k{keep}{keep_n}"
        else:
            value = draw(st.integers(0, 10000))
            body = norm = str(value)
            negative = negative and value != 0  # "-0" normalises to "+0"/"0"
        if i == 0:
            sign = "-" if negative else draw(st.sampled_from(["", "+"]))
            normal.append(("-" if negative else "") + norm)
        else:
            sign = "-" if negative else "+"
            normal.append(sign + norm)
        raw.append(draw(space) + sign + draw(space) + body + draw(space))
    text = "".join(raw)
    assume(len(text) <= 100)
    return text, "".join(normal)


@given(expressions())
@hyp
def test_generated_expressions_normalise(pair: tuple[str, str]) -> None:
    text, normal = pair
    expr = parse(text)
    assert expr.text == normal
    assert parse(expr.text) == expr  # normal form is stable


@given(expressions(), st.integers(0, 2**32))
@hyp
def test_total_within_minimum_and_maximum(pair: tuple[str, str], seed: int) -> None:
    text, _ = pair
    r = roll(text, random.Random(seed))
    assert minimum(text) <= r.total <= maximum(text)
    assert minimum(text) <= average(text) <= maximum(text)


def _scripted_extreme(expr: DiceExpr, high: bool) -> list[int]:
    """Dice values that push the total to its maximum (high) or minimum."""
    values: list[int] = []
    for t in expr.dice:
        top = (t.sign > 0) == high
        values += [t.sides if top else 1] * t.count
    return values


@given(expressions())
@hyp
def test_minimum_and_maximum_are_reachable(pair: tuple[str, str]) -> None:
    expr = parse(pair[0])
    assert roll(expr, ScriptedRng(_scripted_extreme(expr, high=False))).total == minimum(expr)
    assert roll(expr, ScriptedRng(_scripted_extreme(expr, high=True))).total == maximum(expr)


@given(expressions(), st.integers(0, 2**32))
@hyp
def test_seeded_replay_is_identical(pair: tuple[str, str], seed: int) -> None:
    text, _ = pair
    first = roll(text, random.Random(seed))
    second = roll(parse(text), random.Random(seed))
    assert first == second
    # Exactly one randint(1, sides) per die, left to right.
    mirror = random.Random(seed)
    expected = [mirror.randint(1, t.sides) for t in first.dice for _ in range(t.count)]
    assert [r for t in first.dice for r in t.results] == expected


@given(expressions(), st.integers(0, 2**32))
@hyp
def test_kept_dice(pair: tuple[str, str], seed: int) -> None:
    r = roll(pair[0], random.Random(seed))
    for t in r.dice:
        assert len(t.results) == t.count
        assert all(1 <= v <= t.sides for v in t.results)
        assert list(t.kept) == sorted(set(t.kept))
        kept = [t.results[i] for i in t.kept]
        dropped = [t.results[i] for i in t.dropped]
        assert len(kept) == (t.keep_n if t.keep else t.count)
        if t.keep == "h" and dropped:
            assert min(kept) >= max(dropped)
        if t.keep == "l" and dropped:
            assert max(kept) <= min(dropped)
        if t.keep is None:
            assert dropped == []
        assert t.value == t.sign * sum(kept)
    assert r.total == sum(t.value for t in r.dice) + r.bonus


@given(expressions(), st.integers(0, 2**32))
@hyp
def test_to_dict_round_trips_through_json(pair: tuple[str, str], seed: int) -> None:
    r = roll(pair[0], random.Random(seed))
    data = json.loads(json.dumps(r.to_dict()))
    back = Roll.from_dict(data)
    assert back == r
    assert back.to_dict() == r.to_dict()
    assert back.describe() == r.describe()


# ---------------------------------------------------------------------------
# Rolling with scripted dice
# ---------------------------------------------------------------------------


def test_roll_uses_only_randint_with_each_die_size() -> None:
    rng = ScriptedRng([3, 4, 2, 5])
    r = roll("1d8+2d4-1d6", rng)
    assert rng.calls == [(1, 8), (1, 4), (1, 4), (1, 6)]
    assert rng.values == []
    assert [t.results for t in r.dice] == [(3,), (4, 2), (5,)]


def test_roll_terms_and_totals() -> None:
    r = roll("1d8+2d4-1d6+2", ScriptedRng([3, 4, 2, 5]))
    assert r.expression == "1d8+2d4-1d6+2"
    assert r.total == 3 + 4 + 2 - 5 + 2
    assert r.bonus == 2
    assert r.terms == (
        DieTerm(1, 1, 8, None, None, (3,), (0,)),
        DieTerm(1, 2, 4, None, None, (4, 2), (0, 1)),
        DieTerm(-1, 1, 6, None, None, (5,), (0,)),
        2,
    )


def test_keep_highest_keeps_the_highest() -> None:
    r = roll("4d6kh3", ScriptedRng([2, 6, 1, 5]))
    (t,) = r.dice
    assert t.results == (2, 6, 1, 5)
    assert t.kept == (0, 1, 3)
    assert t.dropped == (2,)
    assert r.total == 13


def test_keep_lowest_keeps_the_lowest() -> None:
    r = roll("2d20kl1", ScriptedRng([17, 4]))
    assert r.dice[0].kept == (1,)
    assert r.total == 4


def test_ties_keep_the_die_rolled_first() -> None:
    assert roll("3d6kh1", ScriptedRng([5, 5, 2])).dice[0].kept == (0,)
    assert roll("3d6kl2", ScriptedRng([2, 5, 2])).dice[0].kept == (0, 2)


def test_constant_only_roll_uses_no_dice() -> None:
    rng = ScriptedRng([])
    r = roll("3", rng)
    assert rng.calls == []
    assert r.total == 3
    assert r.terms == (3,)


def test_known_seed_gives_known_dice() -> None:
    """Pins the rolling order so saved seeds keep replaying the same way."""
    rng = random.Random(2024)
    expected = [rng.randint(1, 6) for _ in range(4)] + [rng.randint(1, 20)]
    r = roll("4d6kh3+1d20", random.Random(2024))
    assert list(r.dice[0].results) + list(r.dice[1].results) == expected


# ---------------------------------------------------------------------------
# describe
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "values", "described"),
    [
        ("4d6kh3+1", [6, 5, 2, 1], "4d6kh3+1: [6, 5, 2, 1 dropped] + 1 = 14"),
        ("2d20kl1", [7, 7], "2d20kl1: [7, 7 dropped] = 7"),
        ("1d20-1d4", [15, 3], "1d20-1d4: [15] - [3] = 12"),
        ("-1+1d6", [4], "-1+1d6: -1 + [4] = 3"),
        ("-1d4+2", [3], "-1d4+2: -[3] + 2 = -1"),
        ("1d8+1d4+2", [5, 3], "1d8+1d4+2: [5] + [3] + 2 = 10"),
        ("3", [], "3: 3 = 3"),
    ],
)
def test_describe(text: str, values: list[int], described: str) -> None:
    assert roll(text, ScriptedRng(values)).describe() == described


# ---------------------------------------------------------------------------
# to_dict / from_dict
# ---------------------------------------------------------------------------


def test_to_dict_shape() -> None:
    r = roll("4d6kh3+1", ScriptedRng([6, 5, 2, 1]))
    assert r.to_dict() == {
        "expression": "4d6kh3+1",
        "total": 14,
        "bonus": 1,
        "terms": [
            {
                "type": "dice",
                "sign": 1,
                "count": 4,
                "sides": 6,
                "keep": "h",
                "keep_n": 3,
                "results": [6, 5, 2, 1],
                "kept": [0, 1, 2],
                "value": 13,
            },
            {"type": "constant", "value": 1},
        ],
    }


def _saved() -> dict[str, object]:
    return roll("4d6kh3+1", ScriptedRng([6, 5, 2, 1])).to_dict()


def _tamper(change: str) -> object:
    d: dict = json.loads(json.dumps(_saved()))
    match change:
        case "total":
            d["total"] = 15
        case "bonus":
            d["bonus"] = 2
        case "expression":
            d["expression"] = "4d6kh3+2"
        case "kept":
            d["terms"][0]["kept"] = [0, 1, 3]
        case "result out of range":
            d["terms"][0]["results"][0] = 7
        case "result count":
            d["terms"][0]["results"].append(1)
        case "value":
            d["terms"][0]["value"] = 12
        case "bool total":
            d = json.loads(json.dumps(roll("1d1", ScriptedRng([1])).to_dict()))
            d["total"] = True
        case "missing terms":
            del d["terms"]
        case "unknown kind":
            d["terms"][1]["type"] = "bonus"
        case "not a dict":
            return [1, 2, 3]
        case "terms not a list":
            d["terms"] = "4d6"
        case "dice bomb":
            d["terms"][0]["count"] = 10**6
    return d


@pytest.mark.parametrize(
    "change",
    [
        "total",
        "bonus",
        "expression",
        "kept",
        "result out of range",
        "result count",
        "value",
        "bool total",
        "missing terms",
        "unknown kind",
        "not a dict",
        "terms not a list",
        "dice bomb",
    ],
)
def test_from_dict_refuses_inconsistent_data(change: str) -> None:
    with pytest.raises(DiceError):
        Roll.from_dict(_tamper(change))


def test_from_dict_accepts_untampered() -> None:
    assert Roll.from_dict(_saved()).total == 14


def test_roll_construction_checks_totals() -> None:
    term = DieTerm(1, 1, 6, None, None, (4,), (0,))
    assert Roll("1d6+1", 5, (term, 1), 1).total == 5
    with pytest.raises(DiceError, match="does not add up"):
        Roll("1d6+1", 6, (term, 1), 1)


# ---------------------------------------------------------------------------
# minimum / maximum / average
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("1d20+3", 4, 23),
        ("2d6-1", 1, 11),
        ("4d6kh3", 3, 18),
        ("2d20kl1", 1, 20),
        ("1d20-1d4", -3, 19),
        ("-1+1d6", 0, 5),
        ("3", 3, 3),
        ("d1", 1, 1),
    ],
)
def test_minimum_and_maximum(text: str, low: int, high: int) -> None:
    assert minimum(text) == low
    assert maximum(text) == high
    assert minimum(parse(text)) == low


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1d6", 3.5),
        ("2d6-1", 6.0),
        ("1d20+3", 13.5),
        ("3", 3.0),
        ("1d20-1d4", 8.0),
        ("4d6kh3", 15869 / 1296),
        ("2d20kh1", 13.825),
        ("2d20kl1", 7.175),
        ("4d6kh4", 14.0),  # keeping every die is the same as no keep
    ],
)
def test_average_known_values(text: str, expected: float) -> None:
    assert average(text) == pytest.approx(expected, rel=1e-12)


@given(
    st.integers(1, 4),
    st.integers(1, 6),
    st.sampled_from(["h", "l"]),
    st.data(),
)
@hyp
def test_average_keep_matches_brute_force(
    count: int, sides: int, keep: str, data: st.DataObject
) -> None:
    keep_n = data.draw(st.integers(1, count))
    outcomes = list(itertools.product(range(1, sides + 1), repeat=count))
    total = 0
    for dice_rolled in outcomes:
        ordered = sorted(dice_rolled, reverse=(keep == "h"))
        total += sum(ordered[:keep_n])
    exact = Fraction(total, len(outcomes))
    assert average(f"{count}d{sides}k{keep}{keep_n}") == float(exact)


def test_average_of_largest_keep_terms_is_exact_and_symmetric() -> None:
    # Mirroring every die (v -> 1001 - v) swaps highest and lowest.
    high, low = average("100d1000kh50"), average("100d1000kl50")
    assert high + low == pytest.approx(50 * 1001, rel=1e-12)
    assert 50 * 500.5 < high < 50 * 1000
    assert average("100d1000kh99+100d1000kl1") == pytest.approx(100 * 500.5)


def test_average_agrees_with_many_rolls() -> None:
    rng = random.Random(7)
    n = 20_000
    mean = sum(roll("5d10kh2-1d4", rng).total for _ in range(n)) / n
    assert mean == pytest.approx(average("5d10kh2-1d4"), abs=0.15)


# ---------------------------------------------------------------------------
# add_modifier
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "n", "result"),
    [
        ("1d20+3", 2, "1d20+5"),
        ("1d20", -1, "1d20-1"),
        ("1d20", 0, "1d20"),
        ("1d20+3", -3, "1d20"),
        ("1d20+3", -5, "1d20-2"),
        ("1d8+1d4+2", 1, "1d8+1d4+3"),
        ("1d20+1+2", 0, "1d20+3"),
        ("-1+1d6", 2, "1d6+1"),
        (" D20 ", 4, "1d20+4"),
        ("3", -3, "0"),
        ("4d6kh3", 1, "4d6kh3+1"),
    ],
)
def test_add_modifier(text: str, n: int, result: str) -> None:
    assert add_modifier(text, n) == result
    assert parse(result).text == result


def test_add_modifier_keeps_constants_in_bounds() -> None:
    assert add_modifier("1d20+9999", 1) == "1d20+10000"
    with pytest.raises(DiceError, match="Constant out of range"):
        add_modifier("1d20+9999", 2)


def test_add_modifier_refuses_bad_input() -> None:
    with pytest.raises(DiceError, match="Not a dice expression"):
        add_modifier("abc", 1)
    with pytest.raises(TypeError):
        add_modifier("1d20", 1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        add_modifier("1d20", True)


@given(expressions(), st.integers(-100, 100))
@hyp
def test_add_modifier_shifts_every_bound(pair: tuple[str, str], n: int) -> None:
    text = pair[0]
    if abs(parse(text).bonus + n) > dice.MAX_CONSTANT:
        with pytest.raises(DiceError, match="Constant out of range"):
            add_modifier(text, n)
        return
    shifted = add_modifier(text, n)
    assert minimum(shifted) == minimum(text) + n
    assert maximum(shifted) == maximum(text) + n
    assert average(shifted) == pytest.approx(average(text) + n)


# ---------------------------------------------------------------------------
# Purity
# ---------------------------------------------------------------------------


def test_module_imports_only_the_standard_library() -> None:
    source = Path(dice.__file__).read_text(encoding="utf-8")
    imported: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "dice.py must not import from the project"
            imported.add((node.module or "").split(".")[0])
    assert imported, "the parser found no imports at all"
    outside = {m for m in imported if m not in sys.stdlib_module_names and m != "__future__"}
    assert outside == set()


def test_error_messages_are_sentences() -> None:
    for bad in ["abc", "", "0d6", "1d0", "101d6", "4d6kh9", "x" * 101]:
        with pytest.raises(DiceError) as info:
            parse(bad)
        message = str(info.value)
        assert re.match(r"[A-Z]", message) and message.endswith(".")
