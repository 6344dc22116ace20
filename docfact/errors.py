"""The errors docfact reports to its user as one line, with the exit code each one earns."""


class DocfactError(Exception):
    """An error the user can act on: printed as one line, never as a traceback."""

    exit_code = 1


class ConfigError(DocfactError):
    """Invalid configuration or command-line input (exit code 2)."""

    exit_code = 2


class DataError(DocfactError):
    """A data set that cannot be obtained, verified or read."""

    exit_code = 1


def first_line(e: BaseException, limit: int | None = None) -> str:
    """The first line of an exception's message (its type's name when it has none), cut to
    `limit` characters: for messages of one line."""
    lines = str(e).strip().splitlines()
    return lines[0][:limit] if lines else type(e).__name__


class ConfigNote(UserWarning):
    """Something a config or option says that still works but should be written otherwise
    (a former name): shown as one line."""


class DataNote(UserWarning):
    """Something about a data set read that a reader of its results should know (bytes that
    are not UTF-8 text, dropped): shown as one line."""
