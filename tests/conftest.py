"""Project-wide test policy.

A skipped test is a failure here: a test that cannot run (a missing browser,
service or package) must make the run red, not quietly shrink it. Select
tests with -k/-m instead of skipping them.
"""

import pytest

_skipped: list[str] = []


def _record(report: pytest.CollectReport | pytest.TestReport) -> None:
    # An expected failure (xfail) is reported as "skipped" too; it is not a skip.
    if report.skipped and not hasattr(report, "wasxfail"):
        _skipped.append(report.nodeid)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _record(report)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _record(report)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _skipped and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _skipped:
        terminalreporter.section("skipped tests fail this run", sep="=", red=True, bold=True)
        terminalreporter.line(
            f"{len(_skipped)} skipped: project policy treats a skipped test as a failure."
        )
        for nodeid in _skipped:
            terminalreporter.line(f"  {nodeid}")
