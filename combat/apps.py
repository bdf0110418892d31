from django.apps import AppConfig


class CombatConfig(AppConfig):
    """The live table: encounters, seats, the log, and the pages and sockets around them."""

    name = "combat"
    default_auto_field = "django.db.models.BigAutoField"
