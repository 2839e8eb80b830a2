"""The JPEG standard's luminance tables that every Cozmo camera frame is coded with.

The robot codes grey and colour frames alike with the luminance quantisation table at 100 % (IJG
quality 50) and the luminance Huffman tables of ITU-T T.81 Annex K. The driver's rebuild
(:mod:`driver.vision.jpeg`) writes them into the header it adds; the simulator's encoder
(:mod:`driver.sim.jpeg`) codes with them. One copy, here, so the two ends cannot drift apart.
"""

from __future__ import annotations

__all__ = ["AC_LUMA_BITS", "AC_LUMA_VALUES", "DC_LUMA_BITS", "DC_LUMA_VALUES", "LUMA_QUANT", "zigzag_order"]

#: ITU-T T.81 Annex K.1, table K.1: luminance quantisation, in natural (row-major) order.
LUMA_QUANT = (
    16, 11, 10, 16, 24, 40, 51, 61,
    12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77,
    24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101,
    72, 92, 95, 98, 112, 100, 103, 99,
)


def zigzag_order() -> list[int]:
    """Natural-order indices of the 64 coefficients in zig-zag order (how DQT stores a table)."""
    order: list[int] = []
    for s in range(15):  # anti-diagonals r + c = s, alternating direction
        cells = [(r, s - r) for r in range(8) if 0 <= s - r < 8]
        if s % 2 == 0:
            cells.reverse()  # even diagonals run from bottom-left to top-right
        order.extend(r * 8 + c for r, c in cells)
    return order


#: Annex K.3, table K.3: luminance DC code lengths (counts of codes of length 1..16) and values.
DC_LUMA_BITS = (0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0)
DC_LUMA_VALUES = bytes(range(12))
#: Annex K.3, table K.5: luminance AC code lengths and values (run/size bytes, in code order).
AC_LUMA_BITS = (0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D)
AC_LUMA_VALUES = bytes.fromhex(
    "01020300041105122131410613516107227114328191a1082342b1c11552d1f0"
    "2433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a"
    "636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aa"
    "b2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa"
)
