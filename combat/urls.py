from django.urls import path, re_path

from combat import (
    accounts,
    api,
    board_image,
    chat_api,
    chat_views,
    contract,
    library,
    summary,
    views,
)

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("account/", accounts.account, name="account"),
    path("account/api-tokens/", views.api_tokens, name="api_tokens"),
    path("account/email/confirm/<str:token>/", accounts.confirm_email, name="confirm_email"),
    # The GM
    path("enc/new/", views.encounter_new, name="encounter_new"),
    path("enc/new/settings/", views.ruleset_settings, name="ruleset_settings"),
    path("enc/<int:encounter_id>/", views.gm_console, name="gm_console"),
    path("enc/<int:encounter_id>/command/", views.gm_command, name="gm_command"),
    path("enc/<int:encounter_id>/preview/", views.gm_preview, name="gm_preview"),
    path("enc/<int:encounter_id>/move/", views.gm_move_preview, name="gm_move_preview"),
    path("enc/<int:encounter_id>/measure/", views.gm_measure, name="gm_measure"),
    path("enc/<int:encounter_id>/combatants/", views.combatant_add, name="combatant_add"),
    path(
        "enc/<int:encounter_id>/combatants/close/",
        views.combatant_editor_close,
        name="combatant_editor_close",
    ),
    path(
        "enc/<int:encounter_id>/combatants/<str:cid>/", views.combatant_edit, name="combatant_edit"
    ),
    path(
        "enc/<int:encounter_id>/combatants/<str:cid>/duplicate/",
        views.combatant_duplicate,
        name="combatant_duplicate",
    ),
    path("enc/<int:encounter_id>/seats/", views.seat_create, name="seat_create"),
    path(
        "enc/<int:encounter_id>/seats/<int:seat_id>/revoke/", views.seat_revoke, name="seat_revoke"
    ),
    path(
        "enc/<int:encounter_id>/seats/<int:seat_id>/regenerate/",
        views.seat_regenerate,
        name="seat_regenerate",
    ),
    path("enc/<int:encounter_id>/links/", views.gm_links, name="gm_links"),
    path("enc/<int:encounter_id>/spectator/", views.spectator_link, name="spectator_link"),
    path(
        "enc/<int:encounter_id>/spectator/limit/",
        views.spectator_limit,
        name="spectator_limit",
    ),
    path("enc/<int:encounter_id>/log.json", views.log_download, name="log_download"),
    # The battle map's background image (combat/board_image.py)
    path("enc/<int:encounter_id>/map/image/", board_image.gm_upload, name="board_image_upload"),
    path(
        "enc/<int:encounter_id>/map/image/remove/",
        board_image.gm_remove,
        name="board_image_remove",
    ),
    re_path(
        r"^enc/(?P<encounter_id>\d+)/map/(?P<name>[0-9a-f]{32})(?:-(?P<fog>[0-9a-f]{12}))?\.webp$",
        board_image.gm_image,
        name="board_image_gm",
    ),
    re_path(
        r"^p/(?P<token>[^/]+)/map/(?P<name>[0-9a-f]{32})(?:-(?P<fog>[0-9a-f]{12}))?\.webp$",
        board_image.player_image,
        name="board_image_player",
    ),
    re_path(
        r"^s/(?P<token>[^/]+)/map/(?P<name>[0-9a-f]{32})(?:-(?P<fog>[0-9a-f]{12}))?\.webp$",
        board_image.spectator_image,
        name="board_image_spectator",
    ),
    # Reuse (combat/library.py) and the after-combat summary (combat/summary.py)
    path("library/", library.library_page, name="library"),
    path("library/import/", library.import_view, name="encounter_import"),
    path("library/<int:template_id>/delete/", library.delete_template, name="template_delete"),
    path("library/<int:template_id>/edit/", library.template_edit, name="template_edit"),
    path("enc/<int:encounter_id>/rename/", views.encounter_rename, name="encounter_rename"),
    path(
        "enc/<int:encounter_id>/duplicate/",
        library.duplicate_encounter,
        name="encounter_duplicate",
    ),
    path("enc/<int:encounter_id>/delete/", views.encounter_delete, name="encounter_delete"),
    path(
        "enc/<int:encounter_id>/combatants/<str:cid>/template/",
        library.save_as_template,
        name="template_save",
    ),
    path("enc/<int:encounter_id>/templates/", library.add_from_template, name="template_add"),
    path("enc/<int:encounter_id>/export.json", library.export_view, name="encounter_export"),
    path("enc/<int:encounter_id>/summary/", summary.gm_summary, name="gm_summary"),
    path("p/<str:token>/summary/", summary.player_summary, name="player_summary"),
    path("s/<str:token>/summary/", summary.spectator_summary, name="spectator_summary"),
    # Table talk (combat/chat.py)
    path("enc/<int:encounter_id>/chat/", chat_views.gm_post, name="chat_gm_post"),
    path("enc/<int:encounter_id>/chat/older/", chat_views.gm_older, name="chat_gm_older"),
    path("enc/<int:encounter_id>/chat/delete/", chat_views.gm_delete, name="chat_gm_delete"),
    path(
        "enc/<int:encounter_id>/chat/spectators/",
        chat_views.gm_spectators,
        name="chat_gm_spectators",
    ),
    path(
        "enc/<int:encounter_id>/chat/spectators/write/",
        chat_views.gm_spectators_write,
        name="chat_gm_spectators_write",
    ),
    path("enc/<int:encounter_id>/chat/mute/", chat_views.gm_mute, name="chat_gm_mute"),
    path("enc/<int:encounter_id>/chat/unmute/", chat_views.gm_unmute, name="chat_gm_unmute"),
    path("s/<str:token>/chat/", chat_views.spectator_post, name="chat_spectator_post"),
    path("p/<str:token>/chat/", chat_views.player_post, name="chat_player_post"),
    path("p/<str:token>/chat/older/", chat_views.player_older, name="chat_player_older"),
    path("s/<str:token>/chat/older/", chat_views.spectator_older, name="chat_spectator_older"),
    # Players and spectators, by secret link
    path("p/<str:token>/", views.player, name="player"),
    path("p/<str:token>/command/", views.player_command, name="player_command"),
    path("p/<str:token>/preview/", views.player_preview, name="player_preview"),
    path("p/<str:token>/move/", views.player_move_preview, name="player_move_preview"),
    path("p/<str:token>/measure/", views.player_measure, name="player_measure"),
    path("s/<str:token>/", views.spectator, name="spectator"),
    path("s/<str:token>/measure/", views.spectator_measure, name="spectator_measure"),
    # JSON API (with or without the trailing slash), its description and its reference page
    re_path(r"^api/openapi\.json$", contract.openapi_json, name="api_openapi"),
    path("api/docs/", contract.docs_page, name="api_docs"),
    re_path(r"^api/rulesets/?$", api.rulesets_index, name="api_rulesets"),
    re_path(r"^api/encounters/?$", api.encounters, name="api_encounters"),
    re_path(
        r"^api/encounters/(?P<encounter_id>\d+)/?$", api.encounter_detail, name="api_encounter"
    ),
    re_path(
        r"^api/encounters/(?P<encounter_id>\d+)/commands/?$", api.commands, name="api_commands"
    ),
    re_path(r"^api/encounters/(?P<encounter_id>\d+)/log/?$", api.log, name="api_log"),
    re_path(r"^api/encounters/(?P<encounter_id>\d+)/seats/?$", api.seats, name="api_seats"),
    re_path(r"^api/encounters/(?P<encounter_id>\d+)/chat/?$", chat_api.chat_view, name="api_chat"),
    re_path(r"^api/encounters/import/?$", library.api_import, name="api_import"),
    re_path(
        r"^api/encounters/(?P<encounter_id>\d+)/export/?$", library.api_export, name="api_export"
    ),
    re_path(r"^api/(?P<rest>.*)$", api.no_such_address, name="api_not_found"),
]
