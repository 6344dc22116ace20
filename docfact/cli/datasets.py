"""`docfact datasets`: list, fetch and describe the data sets and their views."""

import click

from docfact.cli.options import data_options
from docfact.errors import ConfigError, DataError

# The data modules (numpy, scikit-learn, ...) are imported by the commands that use them, so
# that `docfact --help` starts at once.


@click.group()
@data_options
def datasets():
    """List, fetch and describe the data sets."""


@datasets.command("list")
@data_options
def list_():
    """The data sets, whether they are cached, and their size (no file is read)."""
    from tabulate import tabulate

    from docfact.datasets.fetch import cached_path
    from docfact.datasets.registry import registry

    rows = []
    for name, e in registry().items():
        path = cached_path(name)
        cached = path.exists()
        size = f"{path.stat().st_size / 1e6:.1f} MB" if cached else "-"
        rows.append(
            [
                name,
                e.file,
                "yes" if cached else "no",
                size,
                e.fingerprint.documents,
                e.fingerprint.classes,
            ]
        )
    click.echo(tabulate(rows, headers=["name", "file", "cached", "size", "documents", "classes"]))
    for line in _empty_documents():
        click.echo(line)


@datasets.command("views")
def views_():
    """The named views (class selections) and the counts they give."""
    from tabulate import tabulate

    from docfact.datasets.views import resolve_view, view_names

    rows = []
    for name in view_names():
        view = resolve_view(name)
        paper = view.get("paper")
        rows.append(
            [
                name,
                view["dataset"],
                view["expect"]["classes"],
                view["expect"]["documents"],
                f"{paper['classes']} / {paper['documents']}" if paper else "same",
            ]
        )
    click.echo(tabulate(rows, headers=["view", "dataset", "classes", "documents", "paper"]))
    for line in _empty_documents():
        click.echo(line)


@datasets.command("fetch")
@click.argument("names_", metavar="NAME...", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Fetch every data set of the registry.")
@data_options
def fetch_(names_, all_):
    """Fetch data sets into the cache and verify them."""
    from docfact.datasets.fetch import fetch
    from docfact.datasets.registry import entry, names

    if bool(names_) == all_:
        raise ConfigError(f"give dataset names or --all (not both); known: {', '.join(names())}")
    chosen = names() if all_ else [entry(name).name for name in names_]  # unknown names fail
                                                                       # before any fetch
    failed = []
    for name in chosen:
        try:
            click.echo(f"{name}: {fetch(name)}")
        except DataError as exc:
            if len(chosen) == 1:
                raise
            click.echo(f"docfact: error: {exc}", err=True)
            failed.append(name)
    if failed:
        raise DataError(f"{len(failed)} of {len(chosen)} not fetched: {', '.join(failed)}")


@datasets.command("info")
@click.argument("name")
@click.option("--view", "view_name", help="A view of NAME (see `docfact datasets views`).")
@data_options
def info(name, view_name):
    """Statistics of a data set, of one of its views, or of a view given as NAME.

    NAME may also be the path of your own data: a .mat, .npz, .csv or .tsv file, or a folder
    with one sub-folder of text files per class (see the README, "Your own data").
    """
    import numpy as np
    from tabulate import tabulate

    from docfact.datasets.loaders import load
    from docfact.datasets.registry import canonical, names, registry
    from docfact.datasets.stats import statistics
    from docfact.datasets.user import is_path
    from docfact.datasets.views import apply_view, resolve_view, view_names

    name = canonical(name, [*registry(), *view_names()])  # names in any case: 'TDT2'
    if name in registry() or (name not in view_names() and is_path(name)):
        view = resolve_view(view_name) if view_name else None
        if view and view["dataset"] != name:
            raise ConfigError(f"view {view_name!r} is a view of {view['dataset']!r}, not {name!r}")
    elif name in view_names():
        if view_name:
            raise ConfigError(f"{name!r} is already a view: give it alone, without --view")
        view = resolve_view(name)
    else:
        raise ConfigError(
            f"unknown dataset or view {name!r}; datasets: {', '.join(names())}; "
            f"views: {', '.join(view_names())}; or the path of a data file or folder"
        )

    dataset = view["dataset"] if view else name
    corpus = load(dataset)
    empty = int((corpus.X.getnnz(axis=1) == 0).sum())
    if view:
        corpus = apply_view(corpus, view)
    title = f"{dataset}, view {view['name']}" if view else dataset
    rows = [(key.replace("_", " "), _format(value)) for key, value in statistics(corpus).items()]
    click.echo(title)
    click.echo(tabulate(rows, headers=["statistic", "value"], disable_numparse=True))
    if corpus.label_names is not None:
        given = corpus.label_names
        click.echo("labels: " + ", ".join(f"{i} = {given[i - 1]}" for i in np.unique(corpus.y)))
    if view and view.get("drop_empty") and empty:
        click.echo(f"dropped first: {empty} document(s) of {dataset} with no term left after "
                   "tokenising (drop_empty)")
    if view and "paper" in view:
        paper = view["paper"]
        click.echo(
            f"paper: {paper['classes']} classes, {paper['documents']} documents "
            f"({view.get('note', 'see views.yaml')})"
        )


def _empty_documents() -> list:
    """Why a data set and its views count different documents when the views drop the
    documents left without a term (drop_empty): one line per data set, from the registry's
    counts and those of its views that select nothing else (no file is read)."""
    from docfact.datasets.registry import entry
    from docfact.datasets.views import resolve_view, view_names

    dropping = {}
    for name in view_names():
        view = resolve_view(name)
        if view.get("drop_empty"):
            dropping.setdefault(view["dataset"], []).append(view)
    lines = []
    for dataset, views in dropping.items():
        total = entry(dataset).fingerprint.documents
        plain = [v for v in views if set(v) <= {"name", "dataset", "drop_empty", "expect",
                                                 "source", "note", "paper"}]
        dropped = f"{total - plain[0]['expect']['documents']}" if plain else "some"
        kept = f": {plain[0]['expect']['documents']} in {plain[0]['name']}" if plain else ""
        lines.append(f"{dataset}: {total} documents, {dropped} of them with no term left after "
                     f"tokenising, which the views {', '.join(v['name'] for v in views)} drop "
                     f"(drop_empty){kept}")
    return lines


def _format(value) -> str:
    return f"{value:.1f}" if isinstance(value, float) else str(value)
