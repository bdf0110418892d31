"""Log-in throttling: the guessing address for one user name, and the address alone.

django-axes counts failed log-ins; its own lock-out parameters compare every count with
one limit, and a lock per user name lets anyone lock a GM out from anywhere. Here a count
is kept per (address, user name) with `AXES_FAILURE_LIMIT` (10) and per address with the
much higher `VTT_LOGIN_ADDRESS_FAILURES` (100), never per account alone: the GM's right
password from their own address always gets through, and one address trying many names is
stopped all the same.
"""

from __future__ import annotations

from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.db.models import QuerySet, Sum
from django.http import HttpRequest


def _failures(attempts: QuerySet[Any]) -> int:
    return attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0


class AddressAndNameHandler(AxesDatabaseHandler):
    """Locked when one address got `AXES_FAILURE_LIMIT` wrong passwords for one user name,
    or `VTT_LOGIN_ADDRESS_FAILURES` for any names."""

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        # AXES_LOCKOUT_PARAMETERS is [["ip_address", "username"], "ip_address"], in that order.
        pair, address = self.get_user_attempts(request, credentials)
        limit = settings.AXES_FAILURE_LIMIT
        # axes compares one number with one limit: the address's count is given on the
        # pair's scale, so it reaches `limit` exactly when it reaches the address's limit.
        return max(
            _failures(pair), _failures(address) * limit // settings.VTT_LOGIN_ADDRESS_FAILURES
        )

    def reset_user_attempts(
        self, request: HttpRequest, credentials: dict[str, Any] | None = None
    ) -> int:
        # A success clears that user name's count from that address only: logging in to an
        # account of one's own does not wipe the address's count of guesses at other names.
        pair = self.filter_user_attempts(request, credentials)[0]
        count, _ = pair.delete()
        return count
