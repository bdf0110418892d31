"""`python -m vtt.serve [daphne's options] vtt.asgi:application`: daphne, with the secret
part of player and spectator links taken out of its access log.

daphne writes its access log itself (not through Python's logging), with the full path of
every request and socket. This runs daphne's own command line, unchanged, with a server
whose action logger (the hook daphne's access log is built on) sees each path redacted
first: `--access-log`, `-v` and every other option work as with `daphne`.
"""

from __future__ import annotations

import sys
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server

from vtt.redact import redact


class RedactingActionLogger:
    """Wraps daphne's action logger: the same entries, with links redacted."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __call__(self, protocol: str, action: str, details: dict[str, Any]) -> None:
        if isinstance(details.get("path"), str):
            details = {**details, "path": redact(details["path"])}
        self.inner(protocol, action, details)


class RedactingServer(Server):
    def __init__(self, *args: Any, action_logger: Any = None, **kwargs: Any) -> None:
        if action_logger is not None:
            action_logger = RedactingActionLogger(action_logger)
        super().__init__(*args, action_logger=action_logger, **kwargs)


class CommandLine(CommandLineInterface):
    server_class = RedactingServer


def main(argv: list[str] | None = None) -> None:
    CommandLine().run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
