"""Refusals are values: a stable code for programs and a sentence for people."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Refusal:
    """A command the rules do not allow. Nothing changes when one is returned."""

    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class Refused(Exception):  # noqa: N818 - it carries a Refusal, not an error
    """Raised inside the engine to unwind a command; `apply` turns it back into a value."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.refusal = Refusal(code, message)


def refuse(code: str, message: str) -> Refused:
    return Refused(code, message)
