"""The `docfact` command line: every user error is one line on stderr and a non-zero exit."""

import os
import signal
import sys
import threading
import warnings

import click

from docfact.cli.options import data_options, one_line
from docfact.digits import DigitsWarning
from docfact.errors import ConfigNote, DataNote, DocfactError

_python_showwarning = warnings.showwarning


_SHOWN = set()  # the notes of this command so far


def _show(message, category, filename, lineno, file=None, line=None):
    """docfact's own notes as one line on stderr, each once (a config read three times gives
    one note); other warnings as Python shows them."""
    if issubclass(category, (DigitsWarning, ConfigNote, DataNote)):
        if str(message) not in _SHOWN:
            _SHOWN.add(str(message))
            click.echo(f"docfact: note: {message}", err=True)
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


def _click_error(e: click.ClickException):
    """click's own errors (a bad option value, an unknown command) as one line, exit 2, the
    help to read named: click shows them as usage, hint and error on four lines. A group
    called without a command prints its help."""
    where = getattr(e, "ctx", None)
    if isinstance(e, click.exceptions.NoArgsIsHelpError):  # `docfact`, `docfact datasets`
        click.echo(where.get_help())
        sys.exit(0)
    see = f" (see '{where.command_path} --help')" if where is not None else ""
    click.echo(f"docfact: error: {one_line(e.format_message())}{see}", err=True)
    sys.exit(e.exit_code)


class _Terminated(KeyboardInterrupt):
    """SIGTERM (a batch system's time limit, `kill`), raised where Ctrl-C would be: the same
    unwinding releases the folder's lock and stops the workers."""


def _terminate(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the unwinding
    raise _Terminated


class _Group(click.Group):
    """A click group that turns DocfactError, click's errors (and interrupts) into one line and
    an exit code."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.ClickException as e:  # the group's own options (--data-dir FILE)
            _click_error(e)

    def invoke(self, ctx):
        warnings.showwarning = _show
        _SHOWN.clear()
        main_thread = threading.current_thread() is threading.main_thread()
        if main_thread:
            former = signal.signal(signal.SIGTERM, _terminate)
        try:
            return super().invoke(ctx)
        except click.ClickException as e:  # a command's options and arguments, its name
            _click_error(e)
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
        except KeyboardInterrupt as e:
            how, code = ("terminated", 143) if isinstance(e, _Terminated) else ("interrupted", 130)
            resumes = ctx.invoked_subcommand in ("run", "sweep", "readings")  # the commands
            click.echo(f"docfact: {how}" + ("; finished runs are kept, rerun to resume"  # of runs
                                            if resumes else ""), err=True)
            sys.exit(code)
        finally:
            if main_thread and former is not None:  # None: a handler not set from Python
                signal.signal(signal.SIGTERM, former)


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
