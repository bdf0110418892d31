"""`make bench` (`python -m tests.bench`): the live path under load, beside the stock stack.

Starts its own servers (nothing else needs to run but PostgreSQL and Redis for
the scale-out stack), connects pages' websockets through the real links, drives
commands through the real HTTP path, and prints every figure beside the stock
Channels baseline measured in the same run. Writes bench-results/<time>.json
and .md, and bench-results/latest.{json,md}. See docs/performance.md.

    make bench                      # full run (several minutes)
    make bench ARGS=--quick         # under 2 minutes
    make bench ARGS="--stacks embedded --scenarios table stream500"
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from tests.bench import report
from tests.bench.runner import SCENARIOS, main_async
from tests.bench.servers import ROOT


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="make bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer actions per scenario (< 2 min)")
    p.add_argument(
        "--stacks",
        nargs="+",
        choices=["embedded", "scaleout"],
        default=["embedded", "scaleout"],
    )
    p.add_argument("--scenarios", nargs="+", choices=list(SCENARIOS), default=list(SCENARIOS))
    p.add_argument(
        "--fresh",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="new server processes for every scenario (default: on in full mode, off in quick)",
    )
    p.add_argument("--out", type=Path, default=ROOT / "bench-results")
    p.add_argument("--keep", action="store_true", help="keep the servers' logs")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="record each server with py-spy during the measured phase (collapsed stacks here)",
    )
    args = p.parse_args(argv)
    if args.fresh is None:
        args.fresh = not args.quick
    spy = Path(sys.executable).with_name("py-spy")
    if args.profile is not None and not spy.exists():
        p.error(
            f"--profile records with py-spy, not installed here: {spy.parent}/pip install py-spy"
        )
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    result = asyncio.run(main_async(args))
    print(report.text(result))
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    md = report.markdown(result)
    for name in (stamp, "latest"):
        (args.out / f"{name}.json").write_text(json.dumps(result, indent=2))
        (args.out / f"{name}.md").write_text(md)
    print(f"\nResults: {args.out / (stamp + '.json')} and {args.out / (stamp + '.md')}")
    missed = report.misses(result)
    if missed:
        print("\nTargets missed:")
        for m in missed:
            print(f"  - {m}")
    elif not result["runs"]:
        print("\nNothing was measured.")
    else:
        print("\nEvery target met.")
    print(f"({result['meta']['seconds']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
