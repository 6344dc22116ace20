"""The same digits on every x86-64 machine with AVX2.

NumPy chooses, when imported, the widest SIMD loops the CPU has (AVX-512 on recent servers,
AVX2 on most machines), and the two round some float64 reductions and functions differently in
the last bit; OpenBLAS likewise chooses its kernels by CPU model. Multiplicative updates carry
such a bit into another local optimum: LCCF on TDT2 (rcf_tdt2_t2_reference, k = 9, run 0) reaches AC
0.741 with the AVX2 loops and 0.897 with the AVX-512 ones. The committed results were computed
with NumPy's AVX2 loops (X86_V3) and OpenBLAS's Haswell kernels, so importing docfact asks for
those before NumPy is loaded, unless the variables are already set. Machines without AVX2, and
other architectures, keep their own loops (and may differ in the last digits).
"""

import os
import platform

# NumPy's dispatch targets above AVX2 (NumPy >= 2.4 names them by psABI level).
ABOVE_AVX2 = ("X86_V4", "AVX512_ICL", "AVX512_SPR")
BLAS_KERNELS = "Haswell"


class DigitsWarning(UserWarning):
    """This process may not compute the committed digits (see deviation())."""


def has_avx2() -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f
                          if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx2" in flags and "fma" in flags


def pin() -> None:
    """Ask NumPy and OpenBLAS for the AVX2 paths (effective only before NumPy is imported)."""
    if platform.machine() in ("x86_64", "AMD64") and has_avx2():
        os.environ.setdefault("NPY_DISABLE_CPU_FEATURES", " ".join(ABOVE_AVX2))
        os.environ.setdefault("OPENBLAS_CORETYPE", BLAS_KERNELS)


def deviation() -> str | None:
    """Why this process may not reproduce the committed digits, or None when it should."""
    import numpy as np
    from numpy._core._multiarray_umath import __cpu_features__
    from threadpoolctl import threadpool_info

    if "X86_V3" not in __cpu_features__:
        return f"NumPy {np.__version__} on {platform.machine()} has no X86_V3 (AVX2) loops"
    if not __cpu_features__["X86_V3"]:
        return "this CPU has no AVX2, so NumPy uses its baseline loops"
    wide = [f for f in ABOVE_AVX2 if __cpu_features__.get(f)]
    if wide:
        return (f"NumPy uses its {', '.join(wide)} loops (import docfact before numpy, or set "
                f"NPY_DISABLE_CPU_FEATURES=\"{' '.join(ABOVE_AVX2)}\")")
    kernels = {i.get("architecture") for i in threadpool_info() if i["internal_api"] == "openblas"}
    if kernels - {BLAS_KERNELS}:
        return (f"OpenBLAS uses its {', '.join(sorted(map(str, kernels)))} kernels (set "
                f"OPENBLAS_CORETYPE={BLAS_KERNELS})")
    return None
