"""Generated sections of the README, between `<!-- NAME:start -->` and `<!-- NAME:end -->`."""

from pathlib import Path

from docfact import atomic
from docfact.errors import ConfigError, DocfactError


def _markers(name: str) -> tuple:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def _text(readme: Path) -> str:
    """The file's text, "" when there is none; DocfactError for one that is not UTF-8 text."""
    try:
        return Path(readme).read_text(encoding="utf-8") if Path(readme).is_file() else ""
    except UnicodeDecodeError as e:
        raise DocfactError(f"{readme}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise DocfactError(f"{readme}: cannot read: {e.strerror}") from None


def _section(readme: Path, text: str, name: str):
    """(head, tail): the text before section `name`'s start marker and from its end marker
    on; None when a marker is missing; ConfigError when either is there more than once or
    the end comes first (which section would be meant is not clear)."""
    start, end = _markers(name)
    if start not in text or end not in text:
        return None
    if text.count(start) > 1 or text.count(end) > 1 or text.index(end) < text.index(start):
        raise ConfigError(f"{readme}: {start} and {end} must each appear once, in that order")
    head, rest = text.split(start, 1)
    return head, rest.split(end, 1)[1]


def has_section(readme: Path, name: str) -> bool:
    """Whether `readme` is a text file with both markers of section `name` (ConfigError when
    they are there but not once each, in order)."""
    return _section(readme, _text(readme), name) is not None


def splice(readme: Path, name: str, body: str) -> bool:
    """Replace section `name` of `readme` with `body`; False (file untouched) when the file or
    its markers are missing."""
    start, end = _markers(name)
    parts = _section(readme, _text(readme), name)
    if parts is None:
        return False
    head, tail = parts
    atomic.write_text(Path(readme), f"{head}{start}\n{body}\n{end}{tail}")
    return True
