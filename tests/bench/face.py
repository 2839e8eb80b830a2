"""Benchmark: one animation frame of procedural face = render 128x64 + reduce to 128x32 + encode.

Compares this project's renderer and display encoder with PyCozmo 0.8.0's in the same run, on a
face that changes every frame (a blend between two expressions, so no cache can help), and on a
held face through ``FaceRenderer`` (the cached path the animation controller uses). Ours is
measured three ways: with the package's compiled fill and encoder (what every daemon uses where
they were built at install; see driver/animation/raster.py), and as a package built without a C
compiler draws: numpy's fill and encoder (a daemon without vision), OpenCV's fill and numpy's
encoder (once OpenCV is loaded, as it is in a daemon with its camera on, ``run``'s default).

Run: ``python tests/bench/face.py [--frames N]``. Prints ms/frame for each and the ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from driver.animation import display  # noqa: E402
from driver.animation.expressions import EXPRESSIONS  # noqa: E402
from driver.animation.face import FaceParams, interpolate, render, to_display  # noqa: E402
from driver.animation.face_images import FaceRenderer  # noqa: E402
from driver.animation.raster import Backend, fill_backend  # noqa: E402

# Our eye layout lists the corner radii as lower inner, upper inner, upper outer, lower outer;
# PyCozmo's as lower inner, lower outer, upper inner, upper outer. Reorder so both draw alike.
_OURS_TO_PYCOZMO_EYE = [0, 1, 2, 3, 4, 5, 6, 11, 12, 7, 8, 9, 10, 13, 14, 15, 16, 17, 18]


def pycozmo_params(face: FaceParams) -> list[float]:
    flat = face.to_list()
    out = flat[:5]
    for start in (5, 24):
        eye = flat[start : start + 19]
        out += [eye[i] for i in _OURS_TO_PYCOZMO_EYE]
    return out


def faces(n: int) -> list[FaceParams]:
    a, b = EXPRESSIONS["neutral"], EXPRESSIONS["angry"]
    c = EXPRESSIONS["happy"]
    out = []
    for i in range(n):
        t = (i % 30) / 29.0
        out.append(interpolate(a if (i // 30) % 2 == 0 else c, b, t))
    return out


def _encoder(backend: Backend) -> Callable[[np.ndarray], bytes]:
    """The display encoder that goes with a fill: the compiled one with the compiled fill, numpy's
    otherwise (a package built without a C compiler has neither)."""
    if backend == "compiled":
        return display.encode
    return lambda picture: display._encode_numpy(display.as_pixels(picture))


def bench_ours(frames: list[FaceParams], backend: Backend) -> float:
    encode = _encoder(backend)
    start = time.perf_counter()
    for i, face in enumerate(frames):
        encode(to_display(render(face, backend=backend), i & 1))
    return (time.perf_counter() - start) / len(frames)


def bench_ours_blending(n: int, backend: Backend) -> float:
    """Blend neutral -> angry over 30 frames (face params computed per frame), then draw."""
    a, b = EXPRESSIONS["neutral"], EXPRESSIONS["angry"]
    encode = _encoder(backend)
    start = time.perf_counter()
    for i in range(n):
        face = interpolate(a, b, (i % 30) / 29.0)
        encode(to_display(render(face, backend=backend), i & 1))
    return (time.perf_counter() - start) / n


def bench_pycozmo_blending(n: int) -> float | None:
    try:
        from PIL import Image
        from pycozmo.image_encoder import ImageEncoder
        from pycozmo.procedural_face import ProceduralFace
        from pycozmo.procedural_face import interpolate as pyc_interpolate
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    a = ProceduralFace(pycozmo_params(EXPRESSIONS["neutral"]))
    b = ProceduralFace(pycozmo_params(EXPRESSIONS["angry"]))
    done = 0
    start = time.perf_counter()
    while done < n:
        for face in pyc_interpolate(a, b, 30):
            ImageEncoder(Image.fromarray(np.array(face.render())[::2])).encode()
            done += 1
    return (time.perf_counter() - start) / done


def bench_ours_held(frames: list[FaceParams]) -> float:
    renderer = FaceRenderer()
    held = frames[: max(1, len(frames) // 10)]
    start = time.perf_counter()
    for i in range(len(frames)):
        renderer.display_bytes(held[i % len(held)], 0)
    return (time.perf_counter() - start) / len(frames)


def bench_pycozmo(frames: list[FaceParams]) -> float | None:
    try:
        from PIL import Image
        from pycozmo.image_encoder import ImageEncoder
        from pycozmo.procedural_face import ProceduralFace
    except ImportError as exc:  # pragma: no cover - depends on the environment
        print(f"PyCozmo not importable ({exc}); skipping the comparison")
        return None
    params = [pycozmo_params(f) for f in frames]
    start = time.perf_counter()
    for p in params:
        im = ProceduralFace(list(p)).render()
        # PyCozmo's own reduction (procedural_face.ProceduralFaceGenerator): keep even rows.
        reduced = Image.fromarray(np.array(im)[::2])
        ImageEncoder(reduced).encode()
    return (time.perf_counter() - start) / len(frames)


def _backends() -> list[Backend]:
    """numpy's fill, the compiled one where it was built (what a daemon uses then, with its camera
    on or off), and OpenCV's when it can be loaded (loading it here is what a daemon's vision does)."""
    found: list[Backend] = ["numpy"]
    if fill_backend() == "compiled":
        found.append("compiled")
    else:
        print("the compiled fill was not built (no C compiler at install): not measured")
    try:
        import cv2  # noqa: F401
    except ImportError:
        print("OpenCV not importable: its fill is not measured")
        return found
    return [*found, "opencv"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=600)
    args = parser.parse_args()
    frames = faces(args.frames)
    print(f"frames per run: {len(frames)} (changing face: neutral/happy <-> angry blends)")
    sample = frames[: max(60, len(frames) // 3)]
    runs = [bench_pycozmo(sample) for _ in range(3)]  # best of 3 for every side: the machine may be busy
    theirs = None if runs[0] is None else min(r for r in runs if r is not None)
    blend_runs = [bench_pycozmo_blending(max(60, len(frames) // 3)) for _ in range(3)]
    theirs_blend = None if blend_runs[0] is None else min(r for r in blend_runs if r is not None)
    if theirs is not None and theirs_blend is not None:
        print(f"PyCozmo 0.8.0 render+reduce+encode:       {theirs * 1e3:8.3f} ms/frame")
        print(f"PyCozmo 0.8.0 blend+render+reduce+encode: {theirs_blend * 1e3:8.3f} ms/frame")
    held = bench_ours_held(frames)
    budget = 1000.0 / 30.0
    for backend in _backends():
        bench_ours(frames[:30], backend)  # warm up
        ours = min(bench_ours(frames, backend) for _ in range(3))
        ours_blend = min(bench_ours_blending(len(frames), backend) for _ in range(3))
        print(f"cozmo-brain, {backend} fill, {'compiled' if backend == 'compiled' else 'numpy'} encoder:")
        print(f"  render+reduce+encode:       {ours * 1e3:8.3f} ms/frame"
              + (f"  ({theirs / ours:.1f}x PyCozmo)" if theirs is not None else ""))
        print(f"  blend+render+reduce+encode: {ours_blend * 1e3:8.3f} ms/frame"
              + (f"  ({theirs_blend / ours_blend:.1f}x PyCozmo)" if theirs_blend is not None else ""))
        print(f"  share of the 30 fps frame budget ({budget:.1f} ms): {ours * 1e3 / budget * 100:.2f} %")
    print(f"cozmo-brain held face (cached): {held * 1e3:8.3f} ms/frame"
          + (f"  ({theirs / held:.0f}x PyCozmo)" if theirs is not None else ""))


if __name__ == "__main__":
    main()
