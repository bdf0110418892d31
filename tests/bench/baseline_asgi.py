"""The stock Channels fan-out the benchmark compares the app against.

Served by daphne with `tests.bench.baseline_settings` (the app's settings and
channel layer): a plain `AsyncWebsocketConsumer` joins one group per socket and
forwards each group message with `self.send`, with Channels' stock dispatch
(which runs `aclose_old_connections` before every event). A POST to
`/fire/<group>/` (a synchronous Django view, like the app's) `group_send`s a
fragment of the requested size carrying `data-version="<v>"`. No database, no
rules, no rendering: the stack's own ceiling.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.bench.baseline_settings")

from django.core.asgi import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()

from asgiref.sync import async_to_sync  # noqa: E402
from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.layers import get_channel_layer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.urls import path  # noqa: E402
from django.views.decorators.csrf import csrf_exempt  # noqa: E402
from django.views.decorators.http import require_POST  # noqa: E402


class StockConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = self.scope["url_route"]["kwargs"]["group"]
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def frame_push(self, event: dict) -> None:
        await self.send(text_data=event["html"])


def fragment(version: int, size: int) -> str:
    head = f'<section id="status" data-version="{version}" hx-swap-oob="true">'
    tail = "</section>"
    return head + "x" * max(0, size - len(head) - len(tail)) + tail


@csrf_exempt
@require_POST
def fire(request: HttpRequest, group: str) -> HttpResponse:
    html = fragment(int(request.POST["v"]), int(request.POST.get("size", 2048)))
    async_to_sync(get_channel_layer().group_send)(group, {"type": "frame.push", "html": html})
    return HttpResponse("sent")


urlpatterns = [path("fire/<str:group>/", fire)]

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": URLRouter([path("ws/b/<str:group>/", StockConsumer.as_asgi())]),
    }
)
