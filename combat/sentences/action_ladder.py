"""The Action Ladder's facts (combat/rules/action_ladder/): actions, attacks and their
defences, reactions, grapples, items and the turn's effort."""

from __future__ import annotations

from typing import Any

from combat.rules.action_ladder.common import metres
from combat.rules.action_ladder.ladder import STEP_LABEL, cost_text, effort_label, left_label
from combat.words import UNSEEN, Said, says


def spent(s: Said) -> str:
    """What the action cost, in brackets after its name: " (1 Action)"."""
    paid = s.get("spent")
    if paid == "carried":
        return " (carried over, now fully paid)"
    if not paid:
        return ""
    return f" ({cost_text(*paid)})"


def _or_list(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


# --- abilities -----------------------------------------------------------------------

# What each ability that marks its user says: the verb, and what it does.
_MARKS = {
    "Aim": ("takes Aim", "+2 FCS on its next Ranged Attack."),
    "Evade": (
        "Evades",
        "its AGI bonus counts double on its first AGI Save or Dodge before its next turn.",
    ),
    "Guard": ("Guards", "one free Parry or Block before its next turn."),
}


@says("ladder.mark")
def _mark(s: Said) -> str:
    verb, does = _MARKS[s["ability"]]
    return f"{s.Name(s.actor)} {verb}{spent(s)}: {does}"


@says("ladder.brace")
def _brace(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} Braces{spent(s)}: +{s['bonus']} (double RES) "
        "on every defence roll until its next turn."
    )


@says("ladder.assist")
def _assist(s: Said) -> str:
    what = f" with {s['with']}" if s.get("with") else ""
    return (
        f"{s.Name(s.actor)} Assists {s.name(s['ally'])}{what}{spent(s)}: the GM "
        "judges what the help is worth, until its next turn."
    )


@says("ladder.feint")
def _feint(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} Feints {s.name(s['other'])}{spent(s)}: "
        f"Deception {s['mine']} against Focus save {s['theirs']}: "
        f"{'+5 to hit with its next melee attack' if s['won'] else 'no effect'}."
    )


@says("ladder.hide")
def _hide(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} Hides from {s.name(s['other'])}{spent(s)}: "
        f"Stealth {s['mine']} against Perception {s['theirs']}: "
        f"{'Unseen' if s['won'] else 'spotted'}."
    )


# --- attacks -------------------------------------------------------------------------


def _notes(s: Said) -> str:
    return ", ".join(s["notes"])


@says("ladder.attack_untargeted")
def _attack_untargeted(s: Said) -> str:
    return (
        f"{s.Name(s.actor)}: {s['name']} ({_notes(s)}), roll {s['roll']}, damage "
        f"{s['rolled_damage']} (no target named; the GM judges)."
    )


@says("ladder.defend_window")
def _defend_window(s: Said) -> str:
    t = s.name(s["reactor"])
    return (
        f"{s.Name(s['attacker'])} attacks {t} with {s['name']} ({_notes(s)}): {t} may "
        f"{_or_list([k.capitalize() for k in s['choices']])}, or take it on its plain defence."
    )


def _reaction(r: dict[str, Any]) -> str:
    if r["kind"] == "dodge":
        text = f"Dodge {r['total']}" + (f", Evade +{r['evade']}" if r.get("evade") else "")
    elif r["kind"] == "parry":
        text = f"Parry ({r['with']}, rating {r['rating']}) {r['total']}"
    else:
        text = f"Block (rating {r['rating']}) {r['total']}"
    return text + (" (Guard)" if r.get("guard") else "")


def _against(a: dict[str, Any]) -> str:
    """The defence an attack met: "melee defence 12 (Brace +4) + Parry (AGI, rating 2) 9 =
    21"."""
    parts = [
        f"{'ranged' if a['ranged'] else 'melee'} defence {a['defence']}"
        + (f" (Brace +{a['brace']})" if a.get("brace") else "")
    ]
    if a.get("reaction"):
        parts.append(_reaction(a["reaction"]))
    return " + ".join(parts) + (f" = {a['total']}" if len(parts) > 1 else "")


@says("ladder.attack")
def _attack(s: Said) -> str:
    attacker, target = s["attacker"], s["target"]
    against = _against(s["against"])
    # The version for readers who could not see the attacker when it struck (it has no
    # actor, screens.event_for), or who cannot see it now: what reached the defender and
    # the defender's own rolls, not the attacker's name, bonuses or dice.
    unseen = s.actor is None or not s.sees(attacker)
    if unseen:
        head = f"{UNSEEN.capitalize()}: {s['name']} on {s.name(target)}, against {against}"
    else:
        head = (
            f"{s.Name(attacker)}: {s['name']} on {s.name(target)} ({_notes(s)}), "
            f"{s['roll']} against {against}"
        )
    if not s["hit"]:
        return f"{head}: miss."
    if not unseen and not s.exact(target):
        return f"{head}: hit."
    return f"{head}: hit for {s['damage']} damage."


@says("ladder.trip_save")
def _trip_save(s: Said) -> str:
    how = "keeps its feet" if s["kept"] else "falls prone"
    evade = f" (Evade +{s['evade']})" if s.get("evade") else ""
    return f"{s.Name(s.actor)} {how}: AGI save {s['save']}{evade} against {s['dc']}."


def _lost(s: Said, x: dict[str, Any]) -> str:
    if "prepared" in x:
        return f"the prepared action ({x['prepared']})"
    if "on" in x:
        return f"{x['name']} on {s.name(x['on']) if x['on'] else 'someone else'}"
    return str(x["name"])


@says("ladder.interrupted")
def _interrupted(s: Said) -> str:
    lost = [_lost(s, x) for x in s["lost"]]
    if not lost:
        return f"{s.Name(s['interrupted'])} had nothing under way to lose."
    return (
        f"{s.Name(s.actor)} Interrupts {s.name(s['interrupted'])}: {' and '.join(lost)} "
        f"{'is' if len(lost) == 1 else 'are'} lost."
    )


@says("ladder.disarm")
def _disarm(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} tries to Disarm {s.name(s['other'])}{spent(s)} "
        f"({_notes(s)}): {s['mine']} against {s['theirs']}: "
        f"{'the weapon falls to the ground' if s['won'] else 'no effect'}."
    )


# --- grappling -----------------------------------------------------------------------


@says("ladder.shove")
def _shove(s: Said) -> str:
    c, t = s.Name(s.actor), s.name(s["other"])
    text = f"STR {s['mine']} against {s['theirs']}"
    if not s["won"]:
        text += ": it holds its ground"
    else:
        if s.get("to") is None:
            text += f": {t} is pushed back {s['back']} m, out of {s.name(s.actor)}'s reach"
        elif s["stopped"]:
            by = {"wall": "a wall", "token": "someone in the way", "edge": "the map's edge"}
            text += (
                f": {t} is pushed back {s['moved']:g} of {s['back']} m, to {s['to']}, "
                f"where {by[s['stopped']]} stops it"
            )
        else:
            text += f": {t} is pushed back {s['back']} m, to {s['to']}"
        if s["kept"]:
            text += f" and keeps its feet (STR save {s['save']})"
        else:
            text += f" and falls prone (STR save {s['save']} against {s['mine']})"
    return f"{c} Shoves {t}{spent(s)}: {text}."


@says("ladder.grapple")
def _grapple(s: Said) -> str:
    what = "sustains" if s["sustains"] else "grapples"
    slipped = "it slips free" if s["sustains"] else "no hold"
    result = "held" if s["won"] else slipped
    return (
        f"{s.Name(s.actor)} {what} {s.name(s['other'])}{spent(s)}: grappling test "
        f"{s['mine']} against {s['theirs']}: {result}."
    )


@says("ladder.free_of_nobody")
def _free_of_nobody(s: Said) -> str:
    return f"{s.Name(s.actor)} is free (nobody holds it any more)."


@says("ladder.break_free")
def _break_free(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} tries to break free of {s.name(s['other'])}{spent(s)}: "
        f"{s['mine']} against {s['theirs']}: {'free' if s['won'] else 'still held'}."
    )


_LET_GO = {
    "nobody_left": "there is nobody left to hold",
    "not_sustained": "the grapple was not sustained",
}


@says("ladder.let_go")
def _let_go(s: Said) -> str:
    return f"{s.Name(s.actor)} lets go of {s.name(s['held'])}: {_LET_GO[s['why']]}."


# --- items ---------------------------------------------------------------------------


@says("ladder.free_action")
def _free_action(s: Said) -> str:
    verb = {"draw": "draws", "stow": "stows"}.get(str(s.get("which")), "")
    done = f"{verb} a weapon" if verb else f"takes {s['name']}"
    price = cost_text(*s["paid"]) if s.get("paid") else "free"
    detail = f": {s['what']}" if s.get("what") else ""
    return f"{s.Name(s.actor)} {done} ({price}){detail}."


@says("ladder.pick_up")
def _pick_up(s: Said) -> str:
    return f"{s.Name(s.actor)} picks up {s.get('what') or 'an item'}{spent(s)}."


@says("ladder.first_aid")
def _first_aid(s: Said) -> str:
    head = f"{s.Name(s.actor)} administers First Aid to {s.name(s['patient'])}{spent(s)}"
    if not s.exact(s["patient"]):
        return f"{head}."
    healed = "" if s.get("before") is None else f" ({s['before']} → {s['hp']} HP)"
    return f"{head}: heals {s['level']}{healed}."


@says("ladder.potion")
def _potion(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} helps {s.name(s['patient'])} drink {s.get('what') or 'a potion'}"
        f"{spent(s)}: its benefits apply at once."
    )


@says("ladder.aid_nothing")
def _aid_nothing(s: Said) -> str:
    return f"{s.Name(s.actor)} aids {s.name(s['ally'])}, who is no longer {s['condition']}."


@says("ladder.aid")
def _aid(s: Said) -> str:
    cond = str(s["condition"])
    if cond == "incapacitated":
        text = "is no longer Incapacitated"
    else:
        text = f"loses {s['lost']} {cond.capitalize()} stacks ({s['left']} left)"
        if cond == "bleeding":
            text += f" (First Aid roll {s['roll']} − 10)"
    t = s.name(s["ally"])
    return f"{s.Name(s.actor)} aids {t}{spent(s)}: {t} {text}."


@says("ladder.toss")
def _toss(s: Said) -> str:
    to = f" to {s.name(s['to'])}" if s.get("to") else ""
    return f"{s.Name(s.actor)} tosses {s['what']}{spent(s)}{to}."


@says("ladder.lands")
def _lands(s: Said) -> str:
    what = str(s["what"])
    return f"{what.capitalize()} lands at {s.name(s.actor)}'s feet."


# --- movement ------------------------------------------------------------------------


@says("ladder.stand")
def _stand(s: Said) -> str:
    return f"{s.Name(s.actor)} stands up{spent(s)}."


@says("ladder.swim_not_prone")
def _swim_not_prone(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} cannot fall prone in water waist-deep or deeper: it begins to "
        f"swim instead{spent(s)}, and keeps to Swim until a Step gets it up or out."
    )


@says("ladder.prone")
def _prone(s: Said) -> str:
    return f"{s.Name(s.actor)} falls prone{spent(s)}."


@says("ladder.disengage")
def _disengage(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} Disengages (Bonus Action): the Movement Action "
        "directly after it does not provoke."
    )


# --- reactions -----------------------------------------------------------------------


@says("ladder.interrupt_window")
def _interrupt_window(s: Said) -> str:
    return (
        f"{s.Name(s['declarer'])} declares {s['name']}: {s.name(s['reactor'])} may Interrupt "
        "it (2 Bonus Actions, a melee attack; on a hit it is lost)."
    )


@says("ladder.target_gone")
def _target_gone(s: Said) -> str:
    return f"{s.Name(s.actor)}'s {s['name']} comes to nothing: its target is gone."


@says("ladder.comes_to_nothing")
def _comes_to_nothing(s: Said) -> str:
    return f"{s.Name(s.actor)}'s {s['name']} comes to nothing: {s['reason']}"


@says("ladder.attack_comes_to_nothing")
def _attack_comes_to_nothing(s: Said) -> str:
    return f"The attack comes to nothing: {s['reason']}"


@says("ladder.catch_window")
def _catch_window(s: Said) -> str:
    return f"{s.Name(s['reactor'])} may try to Catch {s['name']} (Bonus Action)."


@says("ladder.drop_to_catch")
def _drop_to_catch(s: Said) -> str:
    return f"{s.Name(s.actor)} drops what it held to free a hand (Free Action)."


@says("ladder.catch_throw")
def _catch_throw(s: Said) -> str:
    c = s.name(s.actor)
    if s["caught"]:
        return (
            f"{s.Name(s.actor)} catches {s['name']}: AGI + FCS save {s['save']} against {s['dc']}."
        )
    return (
        f"{s.Name(s.actor)} fails to catch {s['name']} (AGI + FCS save {s['save']} "
        f"against {s['dc']}): it hits and falls to {c}'s feet."
    )


@says("ladder.catch_toss")
def _catch_toss(s: Said) -> str:
    return f"{s.Name(s.actor)} catches {s['name']}: FCS check {s['check']} against {s['dc']}."


@says("ladder.fumble")
def _fumble(s: Said) -> str:
    c = s.name(s.actor)
    fumble = f"{s.Name(s.actor)} fumbles {s['name']} (FCS check {s['check']} against {s['dc']})"
    if not s.exact(s.actor):
        return f"{fumble}: it falls to {c}'s feet."
    return f"{fumble}: {s['hurt']} damage and it falls to {c}'s feet."


@says("ladder.not_caught")
def _not_caught(s: Said) -> str:
    return f"{s['name']} hits {s.name(s.actor)} and falls to its feet."


# --- the turn, its costs and plans ---------------------------------------------------


@says("ladder.disengage_wasted")
def _disengage_wasted(s: Said) -> str:
    return f"{s.Name(s.actor)}'s Disengage is wasted: no Movement Action directly after it."


@says("ladder.disengage_unused")
def _disengage_unused(s: Said) -> str:
    return f"{s.Name(s.actor)}'s Disengage goes unused."


@says("ladder.action_started")
def _action_started(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} starts {s['name']} ({cost_text(*s['paid'])}): pays "
        f"{left_label(s['now'])} now, {effort_label(s['rest'])} carries over to the next "
        "turn, and it resolves when fully paid."
    )


@says("ladder.pace_reset")
def _pace_reset(s: Said) -> str:
    return "The GM restores the printed Slow and Quicken table."


@says("ladder.pace_set")
def _pace_set(s: Said) -> str:
    return f"The GM rules that a {s['pace']} {STEP_LABEL[s['step']]} takes {STEP_LABEL[s['to']]}."


@says("ladder.acts_on_plan")
def _acts_on_plan(s: Said) -> str:
    return f"{s.Name(s.actor)} acts on the prepared action: {s['plan']}."


@says("ladder.still_waiting")
def _still_waiting(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} is still waiting ({s['plan']}): a full round has passed, so it "
        "may abandon the plan and act, or end the turn and keep waiting."
    )


@says("ladder.sustain_due")
def _sustain_due(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} must sustain the grapple on {s.name(s['held'])} now "
        "(Grapple, 2 Bonus Actions) or let go."
    )


@says("ladder.effort_lost")
def _effort_lost(s: Said) -> str:
    left = int(s["left"])
    return (
        f"{s.Name(s.actor)}'s unspent {left_label(left)} "
        f"{'is' if left < 3 else 'are'} lost; Bonus Actions stay for Reactions."
    )


@says("ladder.carry")
def _carry(s: Said) -> str:
    if s["remaining"] > 0:
        return (
            f"{s.Name(s.actor)} keeps at {s['name']}: pays {left_label(s['paid'])}, "
            f"{effort_label(s['remaining'])} still to pay."
        )
    return (
        f"{s.Name(s.actor)} finishes paying for {s['name']} ({left_label(s['paid'])} "
        "this turn) and it resolves."
    )


@says("ladder.carried_comes_to_nothing")
def _carried_comes_to_nothing(s: Said) -> str:
    return f"{s['name']} comes to nothing: {s['reason']}"


@says("ladder.abandon_carry")
def _abandon_carry(s: Said) -> str:
    return (
        f"{s.Name(s.actor)} abandons {s['name']}; the {effort_label(s['spent'])} already "
        "spent is lost."
    )


@says("ladder.abandon_plan")
def _abandon_plan(s: Said) -> str:
    return f"{s.Name(s.actor)} abandons the prepared plan ({s['plan']}) and acts normally."


@says("ladder.trigger_now")
def _trigger_now(s: Said) -> str:
    return f"{s.Name(s.actor)}'s trigger happens ({s['plan']}): it acts now."


@says("ladder.trigger_after")
def _trigger_after(s: Said) -> str:
    c = s.Name(s.actor)
    return (
        f"{c}'s trigger happens ({s['plan']}): {c} acts right after "
        f"{s.name(s['after'])}'s turn and takes that place in the order from next round."
    )


@says("ladder.skip")
def _skip(s: Said) -> str:
    return f"{s.Name(s.actor)} Skips the turn and prepares: {s['plan']}."


def _move_note(note: list[Any]) -> str:
    kind, *args = note
    if kind == "agi":
        return f"AGI roll {args[0]}"
    if kind == "direction":
        return str(args[0])
    if kind == "stowed" and args[0] == "bonus":
        return "held items stowed (Bonus Action: the free Draw/Stow was used)"
    if kind == "stowed":
        return "held items stowed (the turn's free Draw/Stow)"
    if kind == "difficult":
        return "difficult terrain halves it"
    if kind == "get_out":
        return "1 m to get up or out of the water, 1 m to move on"
    if kind == "jump":
        jump, across, high = args
        return f"a {jump} jump of up to {metres(across)} (height {metres(high)}) from it"
    if kind == "short":
        return f"it stops short of {args[0]}"
    raise ValueError(f"No words for the move note {kind!r}.")


@says("ladder.move")
def _move(s: Said) -> str:
    notes = [_move_note(n) for n in s.get("notes") or []]
    extra = f"; {'; '.join(notes)}" if notes else ""
    where = f"{metres(s['metres'])} to {s['to']}" if s.get("to") else f"up to {metres(s['metres'])}"
    return f"{s.Name(s.actor)}: {s['name']}{spent(s)}, {where}{extra}."


@says("ladder.jump")
def _jump(s: Said) -> str:
    """On a map the metres are the ones jumped; no cell is named (fog may cover it)."""
    if not s.get("across"):
        return (
            f"{s.Name(s.actor)}: {s['kind']} Jump{spent(s)}, up to {metres(s['metres'])} "
            f"across and {metres(s['height'])} high."
        )
    extra = "; something unseen stops it short" if s.get("short") else ""
    if s.get("held"):
        extra += (
            "; it leaves an enemy's reach as it takes off, and lands once the Opportunity "
            "Attack is answered or passed"
        )
    return (
        f"{s.Name(s.actor)}: {s['kind']} Jump{spent(s)}, {metres(s['metres'])} across "
        f"(up to {metres(s['height'])} high){extra}."
    )
