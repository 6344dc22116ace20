"""Bounds on the sizes docfact takes from its input, set by the memory of the machine.

A config, an option or a data file can ask for any size (a k range of 10^11 values, 10^12 runs,
a matrix declared 60 x 10^12); each is checked against what this machine can hold before
anything is allocated or any folder written, and refused in one line that names the limit.
The memory planned for is the machine's physical memory, or DOCFACT_MEMORY (e.g. 64G) to plan
for more (a larger machine running the table later) or less (a shared one).
"""

import math
import os
import re

from docfact.errors import ConfigError, DataError

RUN_BYTES = 16 << 10  # memory held per (k, run) of a protocol: its records, grid and frames
ROW_BYTES = 1 << 10  # per document or term: a dense factor of 128 float64 columns
TEXT_FACTOR = 16  # memory per byte of user text while it is tokenised and counted
RAISE = "set DOCFACT_MEMORY (e.g. DOCFACT_MEMORY=64G) to plan for more memory"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def memory() -> int:
    """Bytes of memory docfact plans for: $DOCFACT_MEMORY (bytes, or with K, M, G, T), else
    this machine's physical memory (8 GiB when the system does not say)."""
    text = os.environ.get("DOCFACT_MEMORY")
    if text:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE)
        amount = float(m[1]) * _UNITS[m[2].upper()] if m else 0.0
        size = int(amount) if math.isfinite(amount) else 0
        if size <= 0:
            raise ConfigError(f"DOCFACT_MEMORY: expected a positive amount such as 64G or 512M, "
                              f"got {text[:40]!r}")
        return size
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def _size(n: int) -> str:
    for unit in ("TiB", "GiB", "MiB", "KiB"):
        scale = _UNITS[unit[0]]
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} bytes"


def max_runs() -> int:
    """The most (k, run) pairs a protocol may hold (a quarter of memory for their records)."""
    return max(1, memory() // 4 // RUN_BYTES)


def check_runs(count: int, where: str, what: str) -> None:
    """ConfigError 'where: what exceed ...' for `count` runs (or sub-runs) above max_runs()."""
    limit = max_runs()
    if count > limit:
        raise ConfigError(f"{where}: {what} exceed the {limit} runs this machine can hold "
                          f"({_size(memory())} of memory, {_size(RUN_BYTES)} per run); {RAISE}")


def check_shape(shape, where: str) -> None:
    """Refuse a matrix shape whose documents or terms exceed memory / ROW_BYTES each."""
    limit = max(1, memory() // ROW_BYTES)
    if any(n > limit for n in shape):
        raise DataError(f"{where}: shape {' x '.join(map(str, shape))} exceeds what this "
                           f"machine can hold: at most {limit} documents or terms "
                           f"({_size(memory())} of memory, {_size(ROW_BYTES)} per document or "
                           f"term for the methods' dense factors); {RAISE}")


def check_bytes(size: int, where: str, factor: int = 4) -> None:
    """Refuse `size` bytes of input that take `factor` times their size in memory, beyond
    what memory holds."""
    limit = memory() // factor
    if size > limit:
        raise DataError(f"{where}: {_size(size)} of data exceed the {_size(limit)} this "
                           f"machine can read ({_size(memory())} of memory, {factor} bytes "
                           f"each); {RAISE}")
