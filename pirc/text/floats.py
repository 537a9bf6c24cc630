"""Float spellings.

* Paddle's printer writes floats with C++ ostream defaults: `%g`, 6
  significant digits (`1e-05`, `1.23457e+08`, `inf`, `nan`).  It is lossy.
* pirc's canonical text writes the shortest decimal that reads back to the
  same value in the attribute's own type: an f32 0.02 is `0.02`, not the
  double it widens to (`0.019999999552965164`).
"""

from __future__ import annotations

import math
import struct

_pack_f = struct.Struct("<f")


def to_f32(value: float) -> float:
    """Round a double to the nearest f32 (what a FloatAttribute holds)."""
    try:
        return _pack_f.unpack(_pack_f.pack(value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def paddle_g(value: float) -> str:
    """C++ `os << value` with default flags (printf `%g`), as Paddle prints."""
    if math.isnan(value):
        return nan_text(value)
    return "%g" % value


def _finish(text: str) -> str:
    if any(c in text for c in ".en"):  # has a point, an exponent, or is inf/nan
        return text
    return text + ".0"


def nan_text(value: float) -> str:
    """A NaN keeps its sign (`-nan`); its payload bits are not written (no PIR source has one)."""
    return "-nan" if math.copysign(1.0, value) < 0 else "nan"


def shortest_f64(value: float) -> str:
    if math.isnan(value):
        return nan_text(value)
    return _finish(repr(value))


def shortest_f32(value: float) -> str:
    if math.isnan(value):
        return nan_text(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    for precision in range(1, 10):
        text = "%.*g" % (precision, value)
        if to_f32(float(text)) == value:
            return _finish(text)
    return _finish(repr(value))  # pragma: no cover - 9 digits always round-trip an f32
