import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("combat", "0003_compact_state_before"),
    ]

    operations = [
        migrations.AddField(
            model_name="encounter",
            name="chat_spectators",
            field=models.BooleanField(default=False),
        ),
        migrations.CreateModel(
            name="ChatMessage",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("created", models.DateTimeField(auto_now_add=True)),
                (
                    "author_kind",
                    models.CharField(
                        choices=[("gm", "GM"), ("seat", "Seat"), ("spectator", "Spectator")],
                        max_length=10,
                    ),
                ),
                ("author_name", models.CharField(max_length=200)),
                ("text", models.CharField(blank=True, max_length=500)),
                ("roll", models.JSONField(blank=True, null=True)),
                ("whisper", models.BooleanField(default=False)),
                ("deleted", models.BooleanField(default=False)),
                (
                    "author_seat",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="chat_said",
                        to="combat.seat",
                    ),
                ),
                (
                    "encounter",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="chat",
                        to="combat.encounter",
                    ),
                ),
                (
                    "recipients",
                    models.ManyToManyField(
                        blank=True, related_name="chat_whispers", to="combat.seat"
                    ),
                ),
            ],
            options={
                "ordering": ["id"],
            },
        ),
    ]
