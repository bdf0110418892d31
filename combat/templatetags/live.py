"""Settings a live page needs in its markup: how often it says it is still there."""

from __future__ import annotations

from django import template
from django.conf import settings

register = template.Library()


@register.simple_tag
def heartbeat_every() -> str:
    """The heartbeat's htmx trigger, e.g. "every 15s" (settings.HEARTBEAT_SECONDS)."""
    return f"every {settings.HEARTBEAT_SECONDS:g}s"
