"""Parameter checks shared by the estimators (one-line ValueError messages naming the parameter)."""

import numbers


def check_int(name: str, value, low: int, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")


def check_float(name: str, value, low: float = 0.0, high: float | None = None,
                allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if (not isinstance(value, numbers.Real) or isinstance(value, bool) or not value >= low
            or (high is not None and not value <= high)):
        bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be a number {bounds}{' or None' if allow_none else ''}, "
                         f"got {value!r}")


def check_option(name: str, value, options) -> None:
    if value not in options:
        raise ValueError(f"{name} must be one of {list(options)}, got {value!r}")
