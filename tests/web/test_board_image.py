"""Issue 34, the battle map's background image: the GM uploads a PNG, JPEG or WebP (checked
with Pillow, re-encoded, stored through Django's storage API) and everyone who holds the
encounter's links sees it under the grid; nobody else can fetch it."""

from __future__ import annotations

import html
import io
import re
import struct
import zlib

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from combat import services
from combat.models import Encounter

from .conftest import TableFixture


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


def picture(fmt: str, size: tuple[int, int] = (64, 48), color: str = "seagreen") -> bytes:
    out = io.BytesIO()
    img = Image.new("RGB", size, color)
    if fmt == "JPEG":
        # Metadata that must not survive the re-encoding.
        exif = Image.Exif()
        exif[0x010E] = "secret description"
        img.save(out, fmt, exif=exif)
    else:
        img.save(out, fmt)
    return out.getvalue()


def upload(table: TableFixture, data: bytes, filename: str = "map.png", client=None):
    client = client or table.gm
    return client.post(
        f"/enc/{table.enc.pk}/map/image/",
        {"image": SimpleUploadedFile(filename, data)},
        HTTP_HX_REQUEST="true",
    )


def with_board(table: TableFixture) -> None:
    assert table.gm_post(type="set_board", width="8", height="6").status_code == 200


def image_href(html: str) -> str:
    m = re.search(r'<image href="([^"]+)"', html)
    assert m, "no image under the map"
    return m.group(1)


def said(r) -> str:
    return html.unescape(r.content.decode())


def refusal(r) -> str:
    assert 'data-testid="refusal"' in r.content.decode(), r.content
    return said(r)


def stored_files(enc: Encounter) -> list[str]:
    folder = f"boards/{enc.pk}"
    if not default_storage.exists(folder):
        return []
    return default_storage.listdir(folder)[1]


@pytest.mark.parametrize(
    ("fmt", "filename"), [("PNG", "map.png"), ("JPEG", "map.jpg"), ("WEBP", "map.webp")]
)
def test_the_gm_puts_an_image_under_the_map_and_everyone_sees_it(table, fmt, filename):
    with_board(table)
    r = upload(table, picture(fmt), filename)
    assert r.status_code == 200, r.content
    assert "The GM puts a background image under the map (64 × 48 pixels)." in said(r)
    enc = table.refresh()
    image = enc.state["board"]["image"]
    assert (image["w"], image["h"]) == (64, 48)
    assert stored_files(enc) == [f"{image['name']}.webp"]
    # Drawn under the grid, over the whole grid, on every page that shows the map.
    for client, url in (
        (table.gm, table.gm_url),
        (table.p1, table.player1_url),
        (table.spectator, table.spectator_url),
    ):
        html = client.get(url).content.decode()
        href = image_href(html)
        assert href == f"map/{image['name']}.webp"
        assert html.index('data-testid="board-image"') < html.index('class="board-grid"')
        assert 'width="320" height="240"' in html[html.index("<image") :][:400]
        got = client.get(url + href)
        assert got.status_code == 200
        assert got["Content-Type"] == "image/webp"
        assert got["Cache-Control"] == "private, max-age=86400"
        assert got["ETag"] == f'"{image["name"]}"'
        served = Image.open(io.BytesIO(got.content))
        assert served.format == "WEBP" and served.size == (64, 48)
        assert not served.getexif()  # no metadata survives
        again = client.get(url + href, HTTP_IF_NONE_MATCH=got["ETag"])
        assert again.status_code == 304
    # The log keeps it as a GM ruling.
    entry = enc.log.order_by("-seq").first()
    assert entry.command["type"] == "board_image"
    assert entry.events[0]["ruling"] is True


def test_strangers_and_revoked_links_get_nothing(table):
    with_board(table)
    assert upload(table, picture("PNG")).status_code == 200
    href = image_href(table.gm.get(table.gm_url).content.decode())
    name = href.split("/")[-1]
    assert table.outsider.get(f"{table.gm_url}{href}").status_code == 404
    from django.test import Client

    assert Client().get(f"{table.gm_url}{href}").status_code == 404
    assert Client().get(f"/p/not-a-link/map/{name}").status_code == 404
    assert table.p1.get(f"{table.player1_url}{href}").status_code == 200
    services.revoke_seat(table.enc.pk, table.seat1.pk)
    assert table.p1.get(f"{table.player1_url}{href}").status_code == 404
    spectator_url = table.spectator_url
    services.set_spectator_link(table.enc.pk, False)
    assert table.spectator.get(f"{spectator_url}{href}").status_code == 404
    # Another hash than the current one answers nothing either.
    assert table.gm.get(f"{table.gm_url}map/{'0' * 32}.webp").status_code == 404


def test_a_new_image_has_a_new_address_and_the_old_file_goes(table):
    with_board(table)
    upload(table, picture("PNG", color="red"))
    first = image_href(table.gm.get(table.gm_url).content.decode())
    r = upload(table, picture("PNG", color="blue"))
    assert "The GM replaces the map's background image" in said(r)
    second = image_href(table.gm.get(table.gm_url).content.decode())
    assert first != second
    assert stored_files(table.refresh()) == [second.split("/")[-1]]
    assert table.gm.get(table.gm_url + first).status_code == 404
    assert table.gm.get(table.gm_url + second).status_code == 200
    # Removing it removes the file and the picture.
    r = table.gm.post(f"/enc/{table.enc.pk}/map/image/remove/", HTTP_HX_REQUEST="true")
    assert "The GM removes the map's background image." in said(r)
    enc = table.refresh()
    assert "image" not in enc.state["board"] and enc.board_image == ""
    assert stored_files(enc) == []
    assert "<image" not in table.gm.get(table.gm_url).content.decode()


def _truncated_png() -> bytes:
    data = picture("PNG", size=(200, 200))
    return data[: len(data) // 2]


def _bomb_png() -> bytes:
    """A tiny PNG whose header claims 50000 × 50000 pixels."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", 50000, 50000, 8, 2, 0, 0, 0)
    row = zlib.compress(b"\x00" * 10)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", row) + chunk(b"IEND", b"")


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"just some text, not a picture\n" * 10, "not a PNG, JPEG or WebP image that can be read"),
        (_truncated_png(), "not a PNG, JPEG or WebP image that can be read"),
        (_bomb_png(), "too many pixels to open safely"),
    ],
    ids=["text", "truncated", "bomb"],
)
def test_what_is_not_a_readable_image_is_refused_in_words_and_nothing_is_stored(table, data, words):
    with_board(table)
    before = table.refresh().state
    r = upload(table, data, "map.png")
    assert words in refusal(r)
    enc = table.refresh()
    assert enc.state == before and enc.board_image == ""
    assert stored_files(enc) == []


def test_a_gif_is_refused_by_name(table):
    with_board(table)
    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, "GIF")
    assert "must be a PNG, JPEG or WebP; this file is GIF" in refusal(upload(table, out.getvalue()))


def test_a_file_over_10_mb_is_refused_before_it_is_read(table):
    with_board(table)
    r = upload(table, b"\x89PNG" + b"\x00" * (11 * 1024 * 1024), "huge.png")
    assert "at most 10 MB" in refusal(r)
    assert stored_files(table.refresh()) == []


def test_a_huge_picture_is_scaled_down(table):
    with_board(table)
    assert upload(table, picture("PNG", size=(6000, 300))).status_code == 200
    image = table.refresh().state["board"]["image"]
    assert (image["w"], image["h"]) == (4096, 205)


def test_players_spectators_and_strangers_cannot_upload(table):
    with_board(table)
    for client in (table.p1, table.spectator, table.outsider):
        r = upload(table, picture("PNG"), client=client)
        assert r.status_code in (403, 404)
    # Nor through the player's command post.
    r = table.p1_post(type="board_image", image="0" * 32, width="10", height="10")
    assert 'data-testid="refusal"' in r.content.decode()
    assert "image" not in table.refresh().state["board"]


def test_without_a_map_there_is_nothing_to_put_an_image_under(table):
    r = upload(table, picture("PNG"))
    assert "no map" in refusal(r)
    assert stored_files(table.refresh()) == []


def test_players_and_spectators_get_the_picture_with_the_fogged_cells_painted_over(table):
    """What is under the fog is not in what they download: the cells are painted over in
    the file itself, and new fog is a new address."""
    with_board(table)  # 8 × 6 cells over a 64 × 48 picture: a cell is 8 × 8 pixels
    assert upload(table, picture("PNG", color="red")).status_code == 200
    before = {
        url: image_href(client.get(url).content.decode())
        for client, url in ((table.p1, table.player1_url), (table.gm, table.gm_url))
    }
    assert table.gm_post(type="fog", cells="A1 H6").status_code == 200
    gm_href = image_href(table.gm.get(table.gm_url).content.decode())
    assert gm_href == before[table.gm_url]  # the GM's picture is the whole one
    for client, url in ((table.p1, table.player1_url), (table.spectator, table.spectator_url)):
        href = image_href(client.get(url).content.decode())
        assert href != before[table.player1_url]
        got = client.get(url + href)
        assert got.status_code == 200
        seen = Image.open(io.BytesIO(got.content)).convert("RGB")
        for x, y in ((4, 4), (60, 44)):  # in A1 and H6
            fog = seen.getpixel((x, y))
            assert isinstance(fog, tuple)
            assert all(abs(a - b) < 16 for a, b in zip(fog, (111, 115, 120), strict=True))
        r, g, b = seen.getpixel((20, 20))  # C3: not fogged
        assert r > 200 and g < 40 and b < 40
        # Neither the whole picture nor the one for an older fog is theirs to fetch.
        assert client.get(url + gm_href).status_code == 404
        assert client.get(url + before[table.player1_url]).status_code == 404
    whole = Image.open(io.BytesIO(table.gm.get(table.gm_url + gm_href).content)).convert("RGB")
    assert whole.getpixel((4, 4))[0] > 200
    # The fogged copy is made once and kept beside the image; new fog replaces it, and a
    # new image takes both away.
    name = gm_href.split("/")[-1].removesuffix(".webp")
    assert sorted(stored_files(table.refresh())) == sorted([f"{name}.webp", href.split("/")[-1]])
    assert table.gm_post(type="fog", cells="B2").status_code == 200
    newer = image_href(table.p1.get(table.player1_url).content.decode())
    assert table.p1.get(table.player1_url + newer).status_code == 200
    assert sorted(stored_files(table.refresh())) == sorted([f"{name}.webp", newer.split("/")[-1]])
    upload(table, picture("PNG", color="blue"))
    assert len(stored_files(table.refresh())) == 1


def test_deleting_the_encounter_deletes_its_image_file(table):
    with_board(table)
    assert upload(table, picture("PNG")).status_code == 200
    enc = table.refresh()
    assert default_storage.exists(enc.board_image)
    stored = enc.board_image
    assert table.gm_post(type="fog", cells="A1").status_code == 200
    href = image_href(table.p1.get(table.player1_url).content.decode())
    assert table.p1.get(table.player1_url + href).status_code == 200
    assert len(stored_files(enc)) == 2
    enc.delete()
    assert not default_storage.exists(stored)
    assert stored_files(enc) == []


def test_the_picture_is_served_as_soon_as_the_map_names_it(table, monkeypatch):
    """The push that names a new picture reaches the pages as the command commits, before
    the upload's own answer has finished its bookkeeping: a page that asks for the
    picture then gets it (a 404 would leave its map blank until a reload)."""
    from combat import board_image

    with_board(table)
    fetched: list[int] = []
    real = board_image._keep

    def keep_after_a_fetch(encounter_id: int, stored: str) -> None:
        for client, url in ((table.p1, table.player1_url), (table.gm, table.gm_url)):
            href = image_href(client.get(url).content.decode())
            fetched.append(client.get(f"{url}{href}").status_code)
        real(encounter_id, stored)

    monkeypatch.setattr(board_image, "_keep", keep_after_a_fetch)
    assert upload(table, picture("PNG")).status_code == 200
    assert fetched == [200, 200]
