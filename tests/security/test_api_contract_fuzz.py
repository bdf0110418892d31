"""The JSON API keeps its published contract under fuzzing (issue 17).

Schemathesis reads /api/openapi.json from a real daphne process serving the test database
and generates requests for every operation in it, with the GM's API token, a player
seat's token and the spectator token (and a few with a token that is no one's): bodies
that fit the description (commands of every type, with real and made-up combatant ids)
and, fewer, bodies that break it. Every answer must be no 5xx, a status the description
lists for that operation, the content type it lists, and a body that matches the schema
given for that status. Generation is derandomized, so a run is the same every time; the
number of requests sent is printed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .conftest import Table, build_table

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
# Per operation and token: requests that fit the description, then ones that do not.
POSITIVE = int(os.environ.get("VTT_FUZZ_POSITIVE", "85"))
NEGATIVE = int(os.environ.get("VTT_FUZZ_NEGATIVE", "12"))
UNKNOWN = 10

# Over 2,700 requests: about 2 minutes on a quiet machine, over 4 on a loaded one.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.fuzz, pytest.mark.timeout(600)]


def start_server(log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """`python -m daphne` on the test database, as `make run` starts it (port from the log)."""
    from django.db import connection

    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="server_settings",
        VTT_TEST_DB_NAME=str(connection.settings_dict["NAME"]),
        PYTHONPATH=os.pathsep.join([str(ROOT / "tests" / "integrity"), str(ROOT)]),
        PYTHONUNBUFFERED="1",
        CHANNEL_LAYER_PREFIX=f"vtt-contract-{os.getpid()}",
    )
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", HOST, "-p", "0", "vtt.asgi:application"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")
        if proc.poll() is not None:
            raise RuntimeError(f"daphne exited:\n{text}")
        if "Listening on TCP address" in text:
            port = text.rsplit("Listening on TCP address", 1)[1].split(":")[1].split()[0]
            url = f"http://{HOST}:{port}"
            try:
                with urllib.request.urlopen(f"{url}/api/rulesets", timeout=2) as r:
                    if r.status == 200:
                        return proc, url
            except OSError:
                pass
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"daphne did not answer:\n{log.read_text(errors='replace')}")


@pytest.fixture
def fuzz_table(users) -> Table:
    return build_table(*users)


@pytest.fixture
def server(fuzz_table, tmp_path) -> Any:
    proc, url = start_server(tmp_path / "daphne.log")
    try:
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def test_every_operation_keeps_its_contract_for_every_caller(
    fuzz_table: Table, server: str, capsys: pytest.CaptureFixture[str]
):
    t = fuzz_table
    schema = schemathesis.openapi.from_url(f"{server}/api/openapi.json")
    tokens = {
        "gm": t.gm_key,
        "seat": t.seat1.token,
        "spectator": t.enc.spectator_token,
        "unknown": "vtt_" + "x" * 43,
    }
    ids = list(t.ids.values())
    session = requests.Session()
    sent: Counter[str] = Counter()
    statuses: Counter[tuple[str, int]] = Counter()
    failures: dict[str, str] = {}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 12, [op.label for op in operations]

    def run(op: Any, role: str, mode: GenerationMode, examples: int, fixed_id: bool) -> None:
        path = {"encounter_id": t.enc.pk} if fixed_id and "{encounter_id}" in op.path else None
        strategy = op.as_strategy(generation_mode=mode, path_parameters=path)

        @settings(
            max_examples=examples,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            phases=["explicit", "generate"],
        )
        @given(case=strategy, pick=st.integers(0, 2 * len(ids)))
        def one(case: Any, pick: int) -> None:
            # Some commands name a real combatant, so the rules, not only the parser, answer.
            if isinstance(case.body, dict) and pick < len(ids):
                for key in ("actor", "target"):
                    if isinstance(case.body.get(key), str):
                        case.body[key] = ids[(pick + len(key)) % len(ids)]
            response = case.call(
                base_url=server,
                session=session,
                headers={"Authorization": f"Bearer {tokens[role]}"},
                timeout=30,
            )
            sent[op.label] += 1
            statuses[(op.label, response.status_code)] += 1
            try:
                case.validate_response(response, checks=CHECKS)
            except FailureGroup as problem:  # every finding is listed at the end
                # One report for each kind of finding, with the first request that showed it.
                kind = f"{op.label} {response.status_code} {str(problem)[:160]}"
                body = case.body if not isinstance(case.body, bytes) else case.body[:200]
                failures.setdefault(
                    kind,
                    f"{role} {op.label} {mode.value} body={str(body)[:300]} -> "
                    f"{response.status_code} {response.text[:300]}\n{str(problem)[:600]}",
                )

        try:
            one()
        except Unsatisfiable:
            # Nothing to break: GET /api/rulesets takes no input at all.
            assert mode is GenerationMode.NEGATIVE and op.label == "GET /api/rulesets"

    started = time.monotonic()
    for op in operations:
        for role in ("gm", "seat", "spectator"):
            run(op, role, GenerationMode.POSITIVE, POSITIVE, fixed_id=True)
            run(op, role, GenerationMode.NEGATIVE, NEGATIVE, fixed_id=False)
        # A token that is no one's: every operation but the public one answers 401.
        run(op, "unknown", GenerationMode.POSITIVE, UNKNOWN, fixed_id=True)
    took = time.monotonic() - started
    total = sum(sent.values())
    # Shown in every run, not only with -s: the count is a figure docs/security.md quotes.
    with capsys.disabled():
        print(f"\nSchemathesis: {total} requests over {len(operations)} operations in {took:.0f} s")
        for label, count in sorted(sent.items()):
            codes = sorted((s, n) for (lab, s), n in statuses.items() if lab == label)
            print(f"  {label}: {count} requests, statuses {codes}")
    assert not failures, f"{len(failures)} findings:\n\n" + "\n\n".join(failures.values())
    assert set(sent) == {op.label for op in operations}
    assert {status for (_, status) in statuses} >= {200, 201, 400, 401, 403, 404, 409}
    # At least half the requests the sizes above ask for (Hypothesis stops early on an
    # operation with few distinct inputs), so a smaller VTT_FUZZ_* run is still checked.
    assert total >= len(operations) * (3 * POSITIVE + UNKNOWN) // 2
