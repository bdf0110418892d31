"""`make bench`'s headroom (issue 37): which rate of the ramp is the headroom, and how the
report prints it and checks it against its target (tests/bench/report.py). Pure: no
server, no socket; the steps are what runner.Session.ramp records."""

from typing import Any

from tests.bench import report
from tests.bench.runner import SCENARIOS, on_stack


def step(offered: float, p95: float | None, lost: int = 0, achieved: float | None = None) -> dict:
    return {
        "offered": offered,
        "achieved": float(offered) if achieved is None else achieved,
        "p95_ms": p95,
        "lost": lost,
        "actions": int(offered * 3),
    }


def run(steps: list[dict[str, Any]], unviewed: int = 0) -> dict[str, Any]:
    return {
        "stack": "embedded",
        "scenario": "headroom",
        "kind": "app",
        "tables": 50,
        "clients": 500,
        "unviewed": unviewed,
        "lost": 0,
        "client_cpu_percent": 40.0,
        "notes": [],
        "steps": steps,
        "headroom": report.headroom(steps),
    }


def result(*runs: dict[str, Any]) -> dict[str, Any]:
    meta = {
        "quick": True,
        "started": "2026-12-08 10:00:00",
        "seconds": 60.0,
        "cores": 2,
        "loadavg": ["1", "1", "1"],
        "loadavg_after": ["1", "1", "1"],
    }
    return {"meta": meta, "runs": list(runs)}


def headroom_line(res: dict[str, Any]) -> list[str]:
    (_title, table), *_ = report.rows(res)
    return next(r for r in table if r[1].startswith("headroom:"))


def test_a_step_holds_only_within_p95_with_nothing_lost_and_its_rate_reached() -> None:
    assert report.step_held(step(40, 50.0))
    assert not report.step_held(step(40, 50.1))
    assert not report.step_held(step(40, 10.0, lost=1))
    assert not report.step_held(step(40, None))  # no command reached every page
    assert report.step_held(step(40, 10.0, achieved=36.0))  # within 10 %
    assert not report.step_held(step(40, 10.0, achieved=35.9))
    assert not report.step_held({**step(40, 10.0), "unviewed": 3})


def test_the_headroom_is_the_highest_rate_before_the_first_failing_step() -> None:
    steps = [step(10, 12.0), step(20, 20.0), step(40, 48.0), step(80, 90.0)]
    assert report.headroom(steps) == 40
    assert report.headroom_text(steps) == "40"
    # A step that holds after one that failed does not count (the ramp stops there).
    assert report.headroom([step(10, 12.0), step(20, 70.0), step(40, 30.0)]) == 10
    # Short of its rate is a failure, however fast the pages were.
    assert report.headroom([step(10, 12.0), step(20, 15.0, achieved=14.0)]) == 10


def test_a_first_step_that_fails_makes_the_headroom_under_its_rate() -> None:
    steps = [step(10, 61.6)]
    assert report.headroom(steps) is None
    assert report.headroom_text(steps) == "under 10"
    assert report.headroom_text([]) == "n/a (no step ran)"


def test_every_step_held_says_the_ramp_went_no_higher() -> None:
    steps = [step(r, 20.0) for r in (10, 40, 100, 200)]
    assert report.headroom(steps) == 200
    assert report.headroom_text(steps) == "200 or more"


def test_the_report_prints_each_step_and_the_headroom_against_its_target() -> None:
    steps = [step(10, 12.0), step(40, 48.0), step(100, 75.5, lost=2, achieved=80.0)]
    res = result(run(steps))
    (_title, table), *_ = report.rows(res)
    assert [r[1].split(":")[0] for r in table] == ["step 1", "step 2", "step 3", "headroom"]
    assert table[0][0].startswith("headroom: 50 tables x 10 clients")
    assert table[1][2:] == ["40.0, 48.0, 0", "", "", "≥ 36, ≤ 50, 0", "held"]
    assert table[2][2] == "80.0, 75.5, 2"
    assert table[2][6] == "failed: p95 75.5 > 50 ms, 2 lost, achieved 80.0 of 100/s"
    assert headroom_line(res)[2:] == ["40", "", "", "≥ 200 commands/s", "**no**"]
    # Both renderings carry it, and a missed target is listed as missed.
    assert "step 3: 100 commands/s offered" in report.text(res)
    assert "| 40 |" in report.markdown(res)
    (missed,) = report.misses(res)
    assert "headroom: most commands/s with p95 ≤ 50 ms, 0 lost 40 (target ≥ 200" in missed


def test_under_the_first_rate_is_a_missed_target_never_n_a() -> None:
    res = result(run([step(10, 400.0)]))
    line = headroom_line(res)
    assert line[2] == "under 10"
    assert line[6] == "**no**"
    assert len(report.misses(res)) == 1
    # No step at all (every table refused) is missed too.
    assert headroom_line(result(run([])))[6] == "**no**"


def test_the_target_is_met_at_200_and_not_with_unviewed_pages() -> None:
    steps = [step(r, 30.0) for r in (10, 40, 100, 200)] + [step(240, 55.0)]
    res = result(run(steps))
    assert headroom_line(res)[2:] == ["200", "", "", "≥ 200 commands/s", "yes"]
    assert report.misses(res) == []
    assert headroom_line(result(run(steps, unviewed=4)))[6] == "**no**"


def test_the_headroom_runs_on_the_embedded_stack_alone() -> None:
    scenarios = [SCENARIOS["fleet"], SCENARIOS["headroom"]]
    here, skipped = on_stack("embedded", scenarios)
    assert here == scenarios and skipped == []
    here, skipped = on_stack("scaleout", scenarios)
    assert here == [SCENARIOS["fleet"]]
    (line,) = skipped
    assert line.startswith("`headroom` skipped") and "one embedded process" in line
    ramp, seconds = SCENARIOS["headroom"].steps(quick=True)
    full, full_seconds = SCENARIOS["headroom"].steps(quick=False)
    assert len(ramp) < len(full) and seconds < full_seconds
    assert list(full) == sorted(full) and full[-1] >= report.HEADROOM_TARGET
