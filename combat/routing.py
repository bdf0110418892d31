from django.urls import path

from combat import consumers

websocket_urlpatterns = [
    path("ws/enc/<int:encounter_id>/gm/", consumers.GmConsumer.as_asgi()),
    path("ws/p/<str:token>/", consumers.PlayerConsumer.as_asgi()),
    path("ws/s/<str:token>/", consumers.SpectatorConsumer.as_asgi()),
]
