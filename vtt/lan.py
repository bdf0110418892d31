"""`HOST=0.0.0.0 make run`: the table on the local network, for phones and other laptops.

Only with DEBUG on (the embedded default) and no DJANGO_ALLOWED_HOSTS of the operator's:
this machine's network addresses are then allowed as host names, and the demo prints its
links with the first of them (README, "Phones on the same network").
"""

from __future__ import annotations

import ipaddress
import os
import socket

ALL_INTERFACES = ("0.0.0.0", "::", "[::]")


def serving_on_lan() -> bool:
    return os.environ.get("HOST", "").strip() in ALL_INTERFACES


def lan_addresses() -> list[str]:
    """This machine's private IPv4 addresses, the one with the default route first."""
    found: list[str] = []
    try:
        # No packet is sent: connecting a UDP socket only picks the outgoing interface.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            found.append(probe.getsockname()[0])
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    except OSError:
        pass
    out: list[str] = []
    for address in found:
        ip = ipaddress.ip_address(address)
        if ip.is_private and not ip.is_loopback and address not in out:
            out.append(address)
    return out
