"""Tests for the DisplayImage run-length codec (driver.animation.display).

The decoder is checked against byte sequences the real robot produced (PyCozmo's fixture set,
imported from the installed ``pycozmo.tests`` package; skipped when it is not importable), and
the encoder against the decoder and, byte for byte, against PyCozmo's encoder; the package's
compiled encoder (the one ``encode`` uses where it was built) and the numpy one against each other.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from driver.animation import display
from driver.animation.display import BLANK_SCREEN, DisplayFormatError, as_pixels, decode, encode


def _fixtures() -> dict:
    try:
        from pycozmo.tests.image_encoder_fixtures import FIXTURES
    except Exception:  # noqa: BLE001 - any import problem means "not available"
        return {}
    return FIXTURES


FIXTURES = _fixtures()
needs_fixtures = pytest.mark.skipif(not FIXTURES, reason="pycozmo.tests fixtures are not importable")


def _picture(text: str) -> np.ndarray:
    """Fixture picture (32 lines of 128 '.' or digits) -> (32, 128) bool."""
    rows = [line.strip() for line in text.strip().splitlines() if line.strip()]
    assert len(rows) == 32 and all(len(r) == 128 for r in rows)
    return np.array([[c != "." for c in row] for row in rows], dtype=bool)


def _hex(seq: str) -> bytes:
    return bytes.fromhex(seq.replace(":", ""))


def _pycozmo_encode(img: np.ndarray) -> bytes:
    encoder = pytest.importorskip("pycozmo.image_encoder")
    return bytes(encoder.ImageEncoder(Image.fromarray(img)).encode())


# --------------------------------------------------------------------------------------------


def test_blank_screen_is_two_column_skips():
    assert BLANK_SCREEN == b"\x3f\x3f"
    assert not decode(BLANK_SCREEN).any()
    assert encode(np.zeros((32, 128), dtype=bool)) == BLANK_SCREEN


def test_full_screen_is_one_column_and_repeats():
    data = encode(np.ones((32, 128), dtype=bool))
    assert data == bytes([0xFE, 0x7F, 0x7E])  # draw 32 ("D"), repeat 64, repeat 63
    assert decode(data).all()


def test_decode_shape_and_orientation():
    # Draw one pixel at the top of column 0, skip 7 columns, one pixel at the top of column 8.
    img = decode(bytes([0x82, 0x06, 0x82]))
    assert img.shape == (32, 128) and img.dtype == bool
    assert img[0, 0] and img[0, 8]
    assert img.sum() == 2


def test_column_op_finishes_a_partly_drawn_column():
    # 5 lit pixels, then "repeat previous column once": the repeat applies to the finished column 0.
    img = decode(bytes([0x91, 0x40]))
    assert img[:5, 0].all() and img[:5, 1].all()
    assert not img[5:, :2].any() and not img[:, 2:].any()


def test_both_draw_bits_light_pixels():
    for byte in (0x81, 0x82, 0x83):
        assert decode(bytes([byte]))[0, 0]
    assert not decode(bytes([0x80])).any()


def test_long_run_spans_into_next_column():
    # skip 31 pixels then draw 2: the second lit pixel is the top of column 1.
    img = decode(bytes([0xF8, 0x85]))
    assert img[31, 0] and img[0, 1] and img.sum() == 2


@pytest.mark.parametrize(
    "data, where",
    [
        (bytes([0x3F, 0x3F, 0x00]), "byte 2"),  # skip past the last column
        (bytes([0x40]), "column 0"),  # repeat with no previous column
        (bytes([0x3F, 0x3E, 0xFE, 0x80]), "byte 3"),  # a pixel past the end
        (bytes([0xFE, 0x7F, 0x7F]), "byte 2"),  # repeats past the end
    ],
)
def test_decode_rejects_streams_that_overrun(data, where):
    with pytest.raises(DisplayFormatError, match=where):
        decode(data)


def test_encode_rejects_wrong_shapes_and_types():
    with pytest.raises(DisplayFormatError, match=r"\(32, 128\)"):
        encode(np.zeros((64, 128), dtype=bool))
    with pytest.raises(DisplayFormatError, match="128x32"):
        encode(Image.new("1", (128, 64)))
    with pytest.raises(DisplayFormatError, match="dtype"):
        encode(np.full((32, 128), "x"))


def test_accepts_uint8_and_pil_images():
    rng = np.random.default_rng(3)
    img = rng.random((32, 128)) < 0.3
    expected = encode(img)
    assert encode(img.astype(np.uint8) * 255) == expected
    assert encode(img.astype(np.uint8)) == expected
    assert encode(Image.fromarray(img)) == expected  # mode "1"
    grey = Image.fromarray(np.where(img, 200, 40).astype(np.uint8))  # mode "L": >= 128 is lit
    assert encode(grey) == expected
    assert as_pixels(grey).dtype == bool


def test_encoder_uses_repeat_and_skip_opcodes_for_a_face_like_picture():
    img = np.zeros((32, 128), dtype=bool)
    img[6:26, 24:52] = True
    img[6:26, 76:104] = True
    data = encode(img)
    assert len(data) <= 12
    assert any(0x40 <= b < 0x80 for b in data) and any(b < 0x40 for b in data)
    assert np.array_equal(decode(data), img)


# --------------------------------------------------------------------------------------------
# Robot-produced sequences (PyCozmo's fixtures)


@needs_fixtures
def test_fixture_set_is_present_and_large_enough():
    assert len(FIXTURES) >= 20
    assert sum("seq" in f for f in FIXTURES.values()) == len(FIXTURES)


@needs_fixtures
@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_decoder_reproduces_robot_sequences(name):
    fixture = FIXTURES[name]
    expected = _picture(fixture["image"])
    for key in ("seq", "alt_seq"):
        if key not in fixture:
            continue
        data = _hex(fixture[key])
        img = decode(data)
        assert np.array_equal(img, expected), f"{name}/{key}"
        # decode -> encode -> decode is the identity on the picture
        assert np.array_equal(decode(encode(img)), img), f"{name}/{key}"


@needs_fixtures
@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_encoder_output_decodes_to_the_fixture_picture(name):
    fixture = FIXTURES[name]
    expected = _picture(fixture["image"])
    ours = encode(expected)
    assert np.array_equal(decode(ours), expected)
    # Byte-for-byte what PyCozmo sends (its output is what its fixtures call alt_seq, or the
    # robot's own seq where the two agree).
    assert ours == _hex(fixture.get("alt_seq", fixture["seq"]))
    assert ours == _pycozmo_encode(expected)


# --------------------------------------------------------------------------------------------
# Properties


@st.composite
def pictures(draw: st.DrawFn) -> np.ndarray:
    """Random pictures that exercise every opcode: noise, sparse dots, vertical runs of all
    lengths, repeated and blank column stretches."""
    kind = draw(st.sampled_from(["noise", "sparse", "blocks", "columns"]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if kind == "noise":
        img = rng.random((32, 128)) < draw(st.floats(0.0, 1.0))
    elif kind == "sparse":
        img = np.zeros((32, 128), dtype=bool)
        n = draw(st.integers(0, 40))
        img[rng.integers(0, 32, n), rng.integers(0, 128, n)] = True
    elif kind == "blocks":
        img = np.zeros((32, 128), dtype=bool)
        for _ in range(draw(st.integers(1, 6))):
            y0, x0 = rng.integers(0, 32), rng.integers(0, 128)
            img[y0 : y0 + rng.integers(1, 33), x0 : x0 + rng.integers(1, 129)] = rng.random() < 0.8
    else:
        palette = rng.random((4, 32)) < rng.random()
        palette[0] = False
        picks = rng.integers(0, 4, draw(st.integers(1, 12)))
        widths = rng.integers(1, 90, picks.size)
        img = np.repeat(palette[picks].T, widths, axis=1)[:, :128]
        img = np.pad(img, ((0, 0), (0, 128 - img.shape[1])))
    return img


@settings(max_examples=300, deadline=None)
@given(pictures())
def test_encode_decode_round_trip(img):
    assert np.array_equal(decode(encode(img)), img)


@settings(max_examples=150, deadline=None)
@given(pictures())
def test_encoder_matches_pycozmo_byte_for_byte(img):
    assert encode(img) == _pycozmo_encode(img)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64))
def test_decoder_never_crashes_on_garbage(data):
    try:
        img = decode(data)
    except DisplayFormatError:
        return
    assert img.shape == (32, 128)


@settings(max_examples=300, deadline=None)
@given(pictures(), st.booleans())
def test_compiled_and_numpy_encoders_write_the_same_bytes(img, strided):
    compiled = pytest.importorskip("driver.animation._compiled", reason="built only where a C compiler is")
    if strided:  # one of the two row sets of a 64-row render, as the face sends it
        tall = np.zeros((64, 128), dtype=bool)
        tall[1::2] = img
        img = tall[1::2]
    assert display._encode_numpy(img) == compiled.encode(img) == encode(img)


def test_encode_uses_the_compiled_encoder_where_it_was_built():
    compiled = pytest.importorskip("driver.animation._compiled", reason="built only where a C compiler is")
    assert display._compiled is compiled
    with pytest.raises(ValueError, match=r"\(32, 128\) one-byte pixels"):
        compiled.encode(np.zeros((32, 127), dtype=bool))
    with pytest.raises(ValueError, match=r"\(32, 128\) one-byte pixels"):
        compiled.encode(np.zeros((32, 128), dtype=np.int32))
    with pytest.raises(TypeError):
        compiled.encode(5)
    assert compiled.encode(np.zeros((32, 128), dtype=np.uint8)) == BLANK_SCREEN
