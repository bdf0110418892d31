"""Issue 29: "No regular expression runs over a rendered sentence anywhere in combat/ (a
test greps for it)". Hidden things are absent by construction: a reader's sentence is
written from what they may see (combat/words.py), never cleaned afterwards. So every
regular expression in combat/ is listed here with what it reads, none of which is a
sentence; a new one makes this test fail until it is added with its reason."""

from __future__ import annotations

import ast
from pathlib import Path

COMBAT = Path(__file__).resolve().parents[1] / "combat"

# (file, pattern): what the pattern reads. None of them is words written for a reader.
ALLOWED = {
    ("access.py", "[A-Za-z0-9_-]{1,128}"): "the shape of a secret link's token",
    ("services.py", "[0-9]{1,12}"): "a number a form posted",
    ("library.py", "\\s+\\d+$"): "a combatant's name, for the next free number",
    ("library.py", "[^A-Za-z0-9_-]+"): "an encounter's name, for a file name",
    ("rules/dice.py", "\\s*([+-])"): "a dice expression the GM or a player typed",
    (
        "rules/dice.py",
        r"\s*(?:(?P<count>[0-9]+)?\s*d\s*(?P<sides>[0-9]+)(?:\s*k(?P<keep>[hl])"
        r"\s*(?P<keep_n>[0-9]+))?|(?P<const>[0-9]+))(?![0-9a-z])\s*",
    ): "a dice expression typed",
    ("rules/integrity.py", "c[a-z2-7]{8}|c[0-9]{1,6}"): "combatant ids in an imported file",
    ("rules/board.py", "^[0-9a-f]{32}$"): "a map image's content hash",
    ("rules/board.py", "^([A-Za-z]{1,2})(\\d{1,3})$"): "a cell typed as C4",
    ("rules/board.py", "^(\\d{1,3}),(\\d{1,3})$"): "a cell typed as 2,3",
    ("rules/board.py", "[\\s;]+"): "a list of cells typed by the GM",
    ("rules/engine.py", "[A-Za-z_][A-Za-z0-9_]{0,23}"): "a stat's name",
    ("rules/engine.py", "[^a-z0-9]+"): "a custom action's name, for its key",
    ("views.py", "[0-9]{1,18}"): "a number a form posted",
    ("views.py", "\\s+\\d+$"): "a combatant's name, for the next free number",
    ("views.py", "[^A-Za-z0-9_-]+"): "an encounter's name, for a file name",
    ("views.py", "chip-[A-Za-z0-9_-]{1,200}"): "an element id a page asked for",
}
RE_CALLS = {"sub", "subn", "compile", "search", "match", "fullmatch", "findall", "finditer"}
RE_CALLS |= {"split"}


def patterns_in(path: Path) -> list[str]:
    """The pattern of every call to the `re` module in one file (a name for a pattern
    built elsewhere, e.g. over several lines)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "re"):
            continue
        if node.func.attr not in RE_CALLS or not node.args:
            continue
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            found.append("".join(first.value.split()))  # a verbose pattern, on one line
        elif isinstance(first, ast.JoinedStr):
            found.append("f-string")
        else:
            found.append("a pattern built elsewhere")
    return found


def test_every_regular_expression_in_combat_reads_something_other_than_a_sentence():
    unknown = []
    for path in sorted(COMBAT.rglob("*.py")):
        rel = path.relative_to(COMBAT).as_posix()
        if rel.startswith("migrations/"):
            continue
        for pattern in patterns_in(path):
            if pattern == "f-string" and rel == "library.py":
                continue  # the next free number after a name, built from that name
            if (rel, pattern) not in ALLOWED:
                unknown.append(f"{rel}: {pattern!r}")
    assert not unknown, "Regular expressions nobody has said are not over sentences: " + str(
        unknown
    )


def test_the_check_sees_a_regular_expression_over_a_sentence(tmp_path):
    """The scan finds a scrubber if one is written (so the test above can fail)."""
    f = tmp_path / "scrub.py"
    f.write_text('import re\n\ndef clean(text):\n    return re.sub(r"Lurker", "someone", text)\n')
    assert patterns_in(f) == ["Lurker"]
