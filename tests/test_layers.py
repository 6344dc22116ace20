"""docfact's layers, lowest first: algorithms < datasets < config < experiment < report < cli.
No module imports a higher layer, no modules import each other round a cycle (imports inside
functions count), and results stay readable when the estimators change."""

import ast
import shutil
from pathlib import Path

import yaml
from click.testing import CliRunner

from docfact.cli import main

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "docfact"
LAYERS = ("algorithms", "datasets", "config", "experiment", "report", "cli")
BASE = ("errors", "atomic", "limits", "digits", "metrics")  # usable by every layer


def modules() -> dict:
    """{dotted name: path} of docfact's modules (a package by its __init__.py)."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def layer(name: str) -> int:
    """-1 for the base modules (and the package itself), else the index in LAYERS; the
    entry point `python -m docfact` is the command line's."""
    part = name.split(".")[1] if "." in name else None
    if part is None or part in BASE:
        return -1
    return LAYERS.index("cli" if part == "__main__" else part)


def imports(name: str, path: Path, known: dict) -> set:
    """The docfact modules `name` imports anywhere in its text (`from package import module`
    imports the module)."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                      for a in node.names}
    return {m for m in found if m in known and m != name}


def graph() -> dict:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def cycle(edges: dict):
    """A list of modules round an import cycle, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_layers_are_known():
    """Every module belongs to a layer or to the base; the base modules exist."""
    names = modules()
    assert all(f"docfact.{b}" in names for b in BASE)
    assert {n.split(".")[1] for n in names if "." in n} <= {*LAYERS, *BASE, "__main__"}


def test_no_module_imports_a_higher_layer():
    upward = [f"{name} ({LAYERS[layer(name)] if layer(name) >= 0 else 'base'}) imports "
              f"{target}" for name, targets in graph().items() for target in sorted(targets)
              if layer(target) > layer(name)]
    assert upward == []


def test_no_import_cycle():
    assert cycle(graph()) is None


def test_the_checks_catch_an_upward_import_and_a_cycle(tmp_path):
    """The checks above can fail: an import inside a function is found, an import of the
    experiment layer from config is upward, and a pair of modules importing each other is a
    cycle."""
    source = tmp_path / "config.py"
    source.write_text("def f():\n    from docfact.experiment import methods\n")
    assert imports("docfact.config", source, modules()) == {"docfact.experiment.methods"}
    edges = graph()
    edges["docfact.config"] = edges["docfact.config"] | {"docfact.experiment.methods"}
    assert layer("docfact.experiment.methods") > layer("docfact.config")
    edges["docfact.experiment.methods"] = edges["docfact.experiment.methods"] | {
        "docfact.experiment.runner"}
    assert cycle(edges) is not None


def test_results_read_when_the_estimators_change(tmp_path):
    """Reading a results folder builds no estimator: with its algorithm renamed and a parameter
    no estimator takes, a committed table is shown exactly as before."""
    committed = ROOT / "results" / "gnmf_tdt2"
    folder = tmp_path / "gnmf_tdt2"
    folder.mkdir()
    for name in ("config.yaml", "manifest.json", "runs.csv", "timings.csv"):
        shutil.copy(committed / name, folder / name)
    before = CliRunner().invoke(main, ["show", str(folder)])
    raw = yaml.safe_load((folder / "config.yaml").read_text())
    for spec in raw["methods"].values():
        spec.update(algorithm=f"{spec['algorithm']}_renamed", colour=3)
    (folder / "config.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    after = CliRunner().invoke(main, ["show", str(folder)])
    assert before.exit_code == after.exit_code == 0, after.output
    assert after.output == before.output
