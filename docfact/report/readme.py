"""Generated sections of the README, between `<!-- NAME:start -->` and `<!-- NAME:end -->`."""

from pathlib import Path

from docfact import atomic
from docfact.errors import DocfactError


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


def has_section(readme: Path, name: str) -> bool:
    """Whether `readme` is a text file with both markers of section `name`."""
    text = _text(readme)
    return all(marker in text for marker in _markers(name))


def splice(readme: Path, name: str, body: str) -> bool:
    """Replace section `name` of `readme` with `body`; False (file untouched) when the file or
    its markers are missing."""
    start, end = _markers(name)
    readme = Path(readme)
    text = _text(readme)
    if start not in text or end not in text:
        return False
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    atomic.write_text(readme, f"{head}{start}\n{body}\n{end}{tail}")
    return True
