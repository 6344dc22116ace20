"""Generated sections of the README, between `<!-- NAME:start -->` and `<!-- NAME:end -->`."""

from pathlib import Path

from docfact import atomic


def splice(readme: Path, name: str, body: str) -> bool:
    """Replace section `name` of `readme` with `body`; False (file untouched) when the file or
    its markers are missing."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    readme = Path(readme)
    text = readme.read_text() if readme.exists() else ""
    if start not in text or end not in text:
        return False
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    atomic.write_text(readme, f"{head}{start}\n{body}\n{end}{tail}")
    return True
