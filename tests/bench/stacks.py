"""Summarise py-spy collapsed stacks: `python -m tests.bench.stacks FILE [N]`.

Prints the share of samples per function (self time) and, for a few markers of
the live path, the share of samples with that function anywhere on the stack.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

MARKERS = [
    "render_to_string",
    "publish (combat/broadcast.py",
    "run_command",
    "deliver (combat/fanout.py",
    "frame_push",
    "sendMessage",
    "aclose_old_connections",
    "receive (combat/consumers.py",
    "send_whole_view",
    "(vtt/layers.py",
    "handle_reply",
    "group_send",
    "execute (django/db",
    "recent_entries",
    "gm_context",
    "player_context",
    "public_context",
    "deserialize",
]


def main() -> None:
    path = Path(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    own: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        own[frames[-1]] += n
        for m in MARKERS:
            if any(m in f for f in frames):
                anywhere[m] += n
    print(f"{total} samples")
    print("\nself time:")
    for f, n in own.most_common(top):
        print(f"  {n / total:6.1%}  {f}")
    print("\non the stack:")
    for m in MARKERS:
        print(f"  {anywhere[m] / total:6.1%}  {m}")


if __name__ == "__main__":
    main()
