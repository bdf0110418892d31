"""Turning submitted forms into commands. Forms parse; the rules engine decides.

Field names follow the command's own keys (`type`, `actor`, `target`, ...);
an action's declared options arrive as `opt_<name>`. A checkbox is sent after
a hidden "0" of the same name, so the last value is the one that counts.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.http import QueryDict

from combat.models import SPECTATOR_LIMIT_RANGE
from combat.rules import get_ruleset

# Plain fields copied into a command when present and not blank.
COMMAND_FIELDS = (
    "actor",
    "target",
    "action",
    "window",
    "accept",
    "direction",
    "before",
    "after",
    "initiative",
    "amount",
    "resource",
    "value",
    "dice",
    "label",
    "secret",
    "engaged",
    "how",
    "key",
    "cost",
    "name",
    "bonus",
    "attack",
    "spell",
    "reaction",
    "interrupt",
    "summary",
    "hidden",
    # the battle map
    "width",
    "height",
    "cell_m",
    "diagonals",
    "cells",
    "terrain",
    "fogged",
    "cell",
    "size",
    "reach",
    "image",
    # set_condition and the Action Ladder's set_pace
    "stacks",
    "until",
    "of",
    "rounds",
    "step",
    "pace",
    "to",
    "reset",
)
MAX_STAT_ROWS = 30
# Longer than any field accepts (notes: 2000), so the rules' own limits and sentences speak
# first; this only stops junk riding along in fields a command does not read.
MAX_FIELD = 20_000
MAX_SEAT_NAME = 80


EMAIL_HELP = (
    "Optional. Used only to send you a link if you forget your password, once you have "
    "confirmed it with the link mailed to it."
)


class SignUpForm(UserCreationForm):
    """A GM account: a username, an optional e-mail address and a password."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")
        help_texts = {"email": EMAIL_HELP}


class EmailForm(forms.Form):
    """A new e-mail address for the account (blank removes it), with the current password:
    a session left open somewhere must not be enough to redirect reset links elsewhere."""

    email = forms.EmailField(label="E-mail address", required=False, help_text=EMAIL_HELP)
    password = forms.CharField(
        label="Current password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


def _field(key: str) -> str:
    return repr(key if len(key) <= 40 else key[:40] + "…")


def input_problem(post: QueryDict) -> str | None:
    """A sentence if a posted form holds what no field takes: a NUL byte, or a huge value.

    PostgreSQL cannot store a NUL in text or JSON, so one would fail deep in a write
    instead of being refused here with the field's name.
    """
    for key, values in post.lists():
        if "\x00" in key:
            return "A field name holds a NUL character, which no field accepts."
        for value in values:
            if "\x00" in value:
                return f"The field {_field(key)} holds a NUL character, which no field accepts."
            if len(value) > MAX_FIELD:
                return (
                    f"The field {_field(key)} is too long: at most {MAX_FIELD} characters, "
                    f"got {len(value)}."
                )
    return None


def seat_name_problem(name: str) -> str | None:
    if not name:
        return "A seat needs a name."
    if len(name) > MAX_SEAT_NAME:
        return f"A seat name is at most {MAX_SEAT_NAME} characters; this one has {len(name)}."
    return None


def spectator_limit(raw: object) -> tuple[int | None, str | None]:
    """The GM's number of screens the spectators' link may hold: (the number, None), or
    (None, the sentence saying why not)."""
    low, high = SPECTATOR_LIMIT_RANGE
    rule = f"The spectator limit is a whole number of screens from {low} to {high:,}"
    text = str(raw if raw is not None else "").strip().replace(",", "")
    if not text.isdigit() or len(text) > 6:
        return None, f"{rule}; it is unchanged."
    number = int(text)
    if not low <= number <= high:
        return None, f"{rule}, not {number:,}; it is unchanged."
    return number, None


def command_from_post(post: QueryDict) -> dict[str, Any]:
    """A command from a form: `type`, the plain fields, and `opt_*` as the options."""
    command: dict[str, Any] = {"type": post.get("type", "")}
    for key in COMMAND_FIELDS:
        value = post.get(key)
        if value not in (None, ""):
            command[key] = value
    options: dict[str, Any] = {}
    for key in post:
        if key.startswith("opt_"):
            values = [v for v in post.getlist(key) if v != ""]
            name = key[4:]
            if key.endswith("[]"):
                options[name[:-2]] = values
            elif values:
                options[name] = values[-1]
    if options:
        command["options"] = options
    return command


def combatant_fields(post: QueryDict, ruleset_key: str) -> dict[str, Any]:
    """The fields of add_combatant / update_combatant from the combatant form."""
    rs = get_ruleset(ruleset_key)
    out: dict[str, Any] = {}
    for key in (
        "name",
        "side",
        "notes",
        "initiative_bonus",
        "initiative",
        "hp",
        "group",
        "grit",
        "npc_health",
    ):
        if key in post:
            out[key] = post.get(key, "").strip()
    # Blank numbers mean "leave as it is" to the engine except where a blank is meaningful.
    for key in ("initiative_bonus",):
        if out.get(key) == "":
            out[key] = 0
    out["hidden"] = post.get("hidden", "0")
    for s in rs.all_settings():
        if s.per_combatant and post.get(s.key, "") != "":
            out[s.key] = post.get(s.key)
    stats: dict[str, dict[str, Any]] = {}
    for i in range(MAX_STAT_ROWS):
        name = (post.get(f"stat_name_{i}") or "").strip()
        dice = (post.get(f"stat_dice_{i}") or "").strip()
        if name and dice:
            stats[name] = {
                "dice": dice,
                "bonus": (post.get(f"stat_bonus_{i}") or "0").strip() or "0",
            }
    out["stats"] = stats
    return out


def encounter_settings(post: QueryDict, ruleset_key: str) -> dict[str, Any]:
    """The create form's settings for one ruleset: only those given, defaults stay defaults."""
    rs = get_ruleset(ruleset_key)
    out: dict[str, Any] = {}
    for s in rs.all_settings():
        field = f"setting_{s.key}"
        if s.kind == "bool":
            values = post.getlist(field)
            if values:
                out[s.key] = values[-1]
        elif post.get(field, "") != "":
            out[s.key] = post.get(field)
    return out
