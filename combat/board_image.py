"""The battle map's background image: the GM's upload, and serving it to the table.

The GM uploads a PNG, JPEG or WebP of at most VTT_MAP_IMAGE_MAX_BYTES. It is opened with
Pillow twice (`verify`, then a full `load`), refused in words when it is anything else or
cannot be read, re-encoded as WebP (no metadata survives: no EXIF, no GPS, no comments)
and scaled down to MAX_IMAGE_SIDE pixels a side; a picture of absurd dimensions (a
"decompression bomb") is refused before it is decoded. The file goes to Django's default
storage (a folder, or an S3-compatible store: docs/deploy.md) under a name made of its
content hash; the state keeps that hash and the size (`board["image"]`, through the
`board_image` command, logged as a GM ruling), the Encounter row the stored name. A new
image replaces the old file; removing the image deletes it.

The file is served by the views below to the GM, a seat link's holder and a spectator
link's holder only (404 for anyone else, as every link check), privately cached: the hash
is in the address and is the ETag, so a new image is a new address Players and
spectators get the picture with the fogged cells painted over (the fog's digest is in
their address too): what is under the fog is not in what they download.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.http.multipartparser import MultiPartParserError
from django.urls import reverse
from PIL import Image, ImageDraw, UnidentifiedImageError

from combat import services
from combat.access import encounter_by_spectator_token, gm_encounter, gm_viewer, seat_by_token
from combat.board import fog_digest
from combat.models import Encounter
from combat.rules import Encounter as State
from combat.rules import Refusal
from combat.rules.board import MAX_IMAGE_SIDE
from combat.views import (
    HtmxHttpRequest,
    _form_key,
    answer,
    answer_result,
    command_limit,
    login_required,
    require_GET,
    require_POST,
)

FORMATS = {"PNG": "PNG", "JPEG": "JPEG", "WEBP": "WebP"}
# Pixels Pillow may decode at all: a picture claiming more is refused unread (a small file
# can claim 50000 × 50000 pixels and take gigabytes to decode).
MAX_PIXELS = 40_000_000
CACHE_SECONDS = 24 * 3600


class BadImage(Exception):
    """An upload refused: the message says why, in words."""


def max_bytes() -> int:
    return int(settings.VTT_MAP_IMAGE_MAX_BYTES)


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB"


def reencode(data: bytes) -> tuple[bytes, int, int]:
    """The upload as a clean WebP and its size in pixels; BadImage when it is not one."""
    limit = max_bytes()
    if len(data) > limit:
        raise BadImage(
            f"The image is {_megabytes(len(data))}: a map's image may be at most "
            f"{_megabytes(limit)}."
        )
    unreadable = "This file is not a PNG, JPEG or WebP image that can be read: nothing was stored."
    with warnings.catch_warnings():
        # Pillow warns past MAX_IMAGE_PIXELS and refuses past twice that; both are refusals.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data)) as probe:
                kind = probe.format or ""
                if kind not in FORMATS:
                    raise BadImage(
                        f"The map's image must be a PNG, JPEG or WebP; this file is "
                        f"{kind or 'something else'}: nothing was stored."
                    )
                _bounded(*probe.size)
                probe.verify()
            with Image.open(io.BytesIO(data)) as img:
                _bounded(*img.size)
                img.load()
                picture = img.convert("RGBA" if _has_alpha(img) else "RGB")
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise BadImage(_too_many_pixels()) from None
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError):
            raise BadImage(unreadable) from None
    picture.thumbnail((MAX_IMAGE_SIDE, MAX_IMAGE_SIDE))
    out = io.BytesIO()
    picture.save(out, "WEBP", quality=85, method=4)
    return out.getvalue(), picture.width, picture.height


def _has_alpha(img: Image.Image) -> bool:
    return img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info


def _too_many_pixels() -> str:
    return (
        f"This image has too many pixels to open safely (at most {MAX_PIXELS // 1_000_000} "
        "million): scale it down first. Nothing was stored."
    )


def _bounded(w: int, h: int) -> None:
    if w * h > MAX_PIXELS:
        raise BadImage(_too_many_pixels())


def content_name(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def storage_name(encounter_id: int, name: str, fog: str | None = None) -> str:
    """Where the picture is stored, or (fog given) its copy for players and spectators."""
    return (
        f"boards/{encounter_id}/{name}-{fog}.webp" if fog else f"boards/{encounter_id}/{name}.webp"
    )


def folder(encounter_id: int) -> str:
    return f"boards/{encounter_id}"


def sweep(encounter_id: int, keep: str = "") -> None:
    """Delete the encounter's stored pictures but `keep`: a replaced image, and the fogged
    copies made for players and spectators (of this image or an older one)."""
    where = folder(encounter_id)
    try:
        names = default_storage.listdir(where)[1]
    except FileNotFoundError:
        return
    for n in names:
        if f"{where}/{n}" != keep:
            default_storage.delete(f"{where}/{n}")


def _keep(encounter_id: int, stored: str) -> None:
    """Make `stored` the encounter's image file; the one it replaces (and every fogged copy)
    is deleted once the change is saved."""
    with transaction.atomic():
        enc = Encounter.objects.select_for_update().get(pk=encounter_id)
        if enc.board_image == stored:
            return
        enc.board_image = stored
        enc.save(update_fields=["board_image"])
    sweep(encounter_id, keep=stored)


# --- the GM's forms -----------------------------------------------------------------------


def _refused(request: HtmxHttpRequest, enc: Encounter, message: str) -> HttpResponse:
    return answer(
        request,
        gm_viewer(enc),
        refusal=Refusal("bad_image", message),
        back=reverse("gm_console", args=[enc.pk]),
    )


@login_required
@require_POST
def gm_upload(request: HtmxHttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    if limited := command_limit(request, f"user:{request.user.pk}"):
        return limited
    limit = max_bytes()
    too_big = (
        f"A map's image may be at most {_megabytes(limit)}: this one is larger. Nothing was stored."
    )
    # Refused from its announced length, before the body is parsed (a form's worth of slack).
    try:
        announced = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        announced = 0
    if announced > limit + settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
        return _refused(request, enc, too_big)
    try:
        upload = request.FILES.get("image")
    except MultiPartParserError:
        return _refused(request, enc, "The upload could not be read: choose the image again.")
    if upload is None:
        return _refused(request, enc, "Choose an image file (PNG, JPEG or WebP) first.")
    if (upload.size or 0) > limit:
        return _refused(request, enc, too_big)
    try:
        data, w, h = reencode(upload.read(limit + 1))
    except BadImage as e:
        return _refused(request, enc, str(e))
    name = content_name(data)
    stored = storage_name(enc.pk, name)
    if not default_storage.exists(stored):
        default_storage.save(stored, ContentFile(data))
    viewer = gm_viewer(enc)
    command = {"type": "board_image", "image": name, "width": w, "height": h}
    # No form key: the posted fields are the same for every file (a repeat of the same
    # image is refused as no change instead).
    result = services.run_command(enc.pk, viewer, command)
    enc.refresh_from_db(fields=["board_image"])
    if result.ok:
        _keep(enc.pk, stored)
    elif enc.board_image != stored:
        default_storage.delete(stored)  # refused (no map, the same image): keep nothing
    return answer_result(request, viewer, result, reverse("gm_console", args=[enc.pk]))


@login_required
@require_POST
def gm_remove(request: HtmxHttpRequest, encounter_id: int) -> HttpResponse:
    enc = gm_encounter(request.user, encounter_id)
    if limited := command_limit(request, f"user:{request.user.pk}"):
        return limited
    viewer = gm_viewer(enc)
    result = services.run_command(
        enc.pk, viewer, {"type": "board_image", "image": ""}, form=_form_key(request, viewer)
    )
    if result.ok:
        _keep(enc.pk, "")
    return answer_result(request, viewer, result, reverse("gm_console", args=[enc.pk]))


# --- serving it -----------------------------------------------------------------------------


FOG = (0x6F, 0x73, 0x78)  # the fog's colour on the board (static/css/app.css .fog-bg)


def _serve(
    request: HttpRequest, enc: Encounter, name: str, fog: str | None, gm: bool
) -> HttpResponse:
    # The picture the map names now: the state's, committed with the push that tells the
    # pages (the row's `board_image`, the file kept, follows a moment later).
    board = State.from_dict(enc.state).board
    if board is None or (board.get("image") or {}).get("name") != name:
        raise Http404("This map has no such image (it may have been replaced).")
    stored = storage_name(enc.pk, name)
    cells = [] if gm or board is None else list(board["fog"])
    # A player's picture is the one for the fog as it is now, and no other: an address
    # for an older fog would show (and let a browser keep) cells fogged since.
    wanted = fog_digest(cells) if cells else None
    if fog != wanted:
        raise Http404("This map's fog has changed since: reload the page.")
    etag = f'"{name}-{fog}"' if fog else f'"{name}"'
    headers: dict[str, Any] = {
        "Cache-Control": f"private, max-age={CACHE_SECONDS}",
        "ETag": etag,
    }
    if etag in request.headers.get("If-None-Match", ""):
        response: HttpResponse = HttpResponseNotModified(headers=headers)
        return response
    if fog and board is not None:
        body = _fogged_copy(enc.pk, name, fog, cells, board["width"], board["height"])
    else:
        body = _read(stored)
    return HttpResponse(body, content_type="image/webp", headers=headers)


def _read(stored: str) -> bytes:
    try:
        with default_storage.open(stored, "rb") as f:
            data: bytes = f.read()
    except FileNotFoundError:
        raise Http404("This map's image is missing from the storage.") from None
    return data


def _fogged_copy(
    encounter_id: int, name: str, fog: str, cells: list[str], width: int, height: int
) -> bytes:
    """The players' picture for this fog: made once (painting a big picture takes seconds)
    and kept beside the image; the copy for the fog before goes."""
    copy = storage_name(encounter_id, name, fog)
    if default_storage.exists(copy):
        return _read(copy)
    body = _fogged(_read(storage_name(encounter_id, name)), cells, width, height)
    saved = default_storage.save(copy, ContentFile(body))
    if saved != copy:  # made at the same moment by another request: keep one
        default_storage.delete(saved)
    for other in default_storage.listdir(folder(encounter_id))[1]:
        if other.startswith(f"{name}-") and other != copy.rsplit("/", 1)[1]:
            default_storage.delete(f"{folder(encounter_id)}/{other}")
    return body


def _fogged(body: bytes, cells: list[str], width: int, height: int) -> bytes:
    """The picture with every fogged cell painted over in the fog's colour (the picture is
    stretched over the grid, so a cell is a 1/width by 1/height part of it)."""
    with Image.open(io.BytesIO(body)) as img:
        img.load()
        picture = img.convert("RGB")
    draw = ImageDraw.Draw(picture)
    w, h = picture.size
    for k in cells:
        x, y = (int(v) for v in k.split(","))
        left, top = x * w // width, y * h // height
        right, bottom = -(-(x + 1) * w // width), -(-(y + 1) * h // height)
        draw.rectangle((left, top, right - 1, bottom - 1), fill=FOG)
    out = io.BytesIO()
    picture.save(out, "WEBP", quality=85, method=4)
    return out.getvalue()


@require_GET
def gm_image(
    request: HttpRequest, encounter_id: int, name: str, fog: str | None = None
) -> HttpResponse:
    return _serve(request, gm_encounter(request.user, encounter_id), name, fog, gm=True)


@require_GET
def player_image(
    request: HttpRequest, token: str, name: str, fog: str | None = None
) -> HttpResponse:
    return _serve(request, seat_by_token(token).encounter, name, fog, gm=False)


@require_GET
def spectator_image(
    request: HttpRequest, token: str, name: str, fog: str | None = None
) -> HttpResponse:
    return _serve(request, encounter_by_spectator_token(token), name, fog, gm=False)
