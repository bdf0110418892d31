from typing import Any

from django.apps import AppConfig


class CombatConfig(AppConfig):
    """The live table: encounters, seats, the log, and the pages and sockets around them."""

    name = "combat"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import post_delete, post_save

        from combat.models import Encounter

        user_logged_out.connect(_logged_out, dispatch_uid="combat.close-gm-sockets-logout")
        post_save.connect(
            _user_saved, sender=get_user_model(), dispatch_uid="combat.close-gm-sockets-saved"
        )
        post_delete.connect(
            _encounter_deleted, sender=Encounter, dispatch_uid="combat.forget-board-image"
        )


def _logged_out(sender: Any, request: Any = None, user: Any = None, **kwargs: Any) -> None:
    """A GM's sockets end with the log-in they were opened with (issue 12, item 11)."""
    if user is not None and user.pk is not None:
        from combat import broadcast

        broadcast.close_user(user.pk)


def _user_saved(sender: Any, instance: Any, created: bool = False, **kwargs: Any) -> None:
    """A saved account may have a new password: its GM sockets re-check their log-in (a
    session from before the change no longer holds; Django keeps the changer's own)."""
    fields = kwargs.get("update_fields")
    if created or (fields is not None and "password" not in fields):
        return
    from combat import broadcast

    broadcast.close_user(instance.pk)


def _encounter_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A deleted encounter (or a deleted GM's) leaves no map image in the storage."""
    if instance.board_image:
        from combat.board_image import sweep

        sweep(instance.pk)
