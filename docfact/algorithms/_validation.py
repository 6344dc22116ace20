"""Parameter constraints shared by the estimators (scikit-learn's `_parameter_constraints`)."""

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions


class _Interval(Interval):
    """scikit-learn's Interval without booleans (True is not a count, nor a weight)."""

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)


def integer(low: int) -> Interval:
    return _Interval(Integral, low, None, closed="left")


def number(low: float = 0.0, high: float | None = None, closed: str = "left") -> Interval:
    return _Interval(Real, low, high, closed=closed)


def options(*values: str) -> StrOptions:
    return StrOptions(set(values))
