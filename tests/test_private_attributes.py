"""The app uses Django, Channels, daphne and autobahn through their public API only (issue 37).

A private attribute (`obj._name`) of a framework's object is a promise nobody made: the
next release may rename it, and the app would break in production, not in review. So
nothing in combat/ or vtt/ reads or writes an attribute whose name starts with one
underscore on anything but its own instance or class (`self._x`, `cls._x`), spelled out or
through getattr/setattr/hasattr, nor imports a framework's private name, nor reaches into the
websocket server's protocol modules (daphne's and autobahn's sockets are theirs to frame).
No exceptions are listed: none is needed.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("combat", "vtt")
FRAMEWORKS = {"django", "channels", "daphne", "autobahn", "twisted", "asgiref"}
# The websocket server's own protocol code: the app hands it ASGI messages and nothing else.
SERVER_INTERNALS = ("autobahn", "twisted", "daphne.ws_protocol", "daphne.http_protocol")


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def findings(source: str, where: str) -> list[str]:
    """Each private access or import in `source`, as "where:line: code"."""
    found = []
    for node in ast.walk(ast.parse(source)):
        bad = False
        if isinstance(node, ast.Attribute) and private(node.attr):
            owner = node.value
            bad = not (isinstance(owner, ast.Name) and owner.id in ("self", "cls"))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            bad = private(node.args[1].value)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            bad = module.startswith(SERVER_INTERNALS) or (
                module.split(".")[0] in FRAMEWORKS and any(private(a.name) for a in node.names)
            )
        elif isinstance(node, ast.Import):
            bad = any(alias.name.startswith(SERVER_INTERNALS) for alias in node.names)
        if bad:
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_the_check_finds_each_way_of_reaching_in():
    sample = """
wire._perMessageCompress
getattr(send, "_wrapped", None)
from channels.layers import _private
from daphne.ws_protocol import WebSocketProtocol
import autobahn.websocket.protocol
self._mine = other.__class__
"""
    assert len(findings(sample, "sample")) == 5


def test_combat_and_vtt_use_no_private_attribute_of_anything_but_themselves():
    found = []
    for package in CHECKED:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            found += findings(path.read_text(), str(path.relative_to(ROOT)))
    assert found == [], "private attributes read or written:\n" + "\n".join(found)
