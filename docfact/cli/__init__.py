"""The `docfact` command line: every user error is one line on stderr and a non-zero exit."""

import os
import sys
import warnings

import click

from docfact.cli.options import data_options, one_line
from docfact.digits import DigitsWarning
from docfact.errors import ConfigNote, DocfactError

_python_showwarning = warnings.showwarning


def _show(message, category, filename, lineno, file=None, line=None):
    """docfact's own notes as one line on stderr; other warnings as Python shows them."""
    if issubclass(category, (DigitsWarning, ConfigNote)):
        click.echo(f"docfact: note: {message}", err=True)
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


class _Group(click.Group):
    """A click group that turns DocfactError (and interrupts) into one line and an exit code."""

    def invoke(self, ctx):
        warnings.showwarning = _show
        try:
            return super().invoke(ctx)
        except DocfactError as e:
            click.echo(f"docfact: error: {one_line(str(e))}", err=True)
            sys.exit(e.exit_code)
        except BrokenPipeError:  # the reader of stdout left (| head): stop quietly, as SIGPIPE
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(141)
        except OSError as e:  # a file or folder the user named cannot be read or written
            where = f": {e.filename}" if e.filename else ""
            click.echo(f"docfact: error: {one_line(f'{e.strerror or e}{where}')}", err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            click.echo("docfact: interrupted; finished runs are kept, rerun to resume", err=True)
            sys.exit(130)


@click.group(cls=_Group)
@click.version_option(package_name="docfact")
@data_options
def main():
    """Reproduce the document-clustering tables of matrix-factorization papers."""


from docfact.cli.datasets import datasets  # noqa: E402

main.add_command(datasets)

from docfact.cli.run import check, run, show, sweep, validate  # noqa: E402

main.add_command(run)
main.add_command(show)
main.add_command(check)
main.add_command(validate)
main.add_command(sweep)

from docfact.cli.report import plot, report  # noqa: E402

main.add_command(report)
main.add_command(plot)

from docfact.cli.readings import readings  # noqa: E402

main.add_command(readings)
