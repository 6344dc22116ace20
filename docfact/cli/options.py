"""What the commands share: the data options of every command that may fetch data, --jobs,
the check of a folder option, and one_line for their error messages."""

import os

import click

from docfact.errors import ConfigError


def _sets(variable: str):
    """A callback that sets the environment `variable` to the option's value for the command
    (and the worker processes it starts), restored when the command ends."""

    def callback(ctx, param, value):
        if value is not None:
            before = os.environ.get(variable)
            os.environ[variable] = str(value)
            ctx.call_on_close(lambda: _restore(variable, before))
        return value

    return callback


def not_empty(ctx, param, value):
    """A folder option's callback: an empty value (--out '') is refused, not read as the
    current folder."""
    if value is not None and not str(value).strip():
        raise click.BadParameter("give a folder, not an empty name")
    return value


def _restore(variable: str, value) -> None:
    if value is None:
        os.environ.pop(variable, None)
    else:
        os.environ[variable] = value


def data_options(command):
    """--data-dir and --mirror, given before or after the command name (`docfact --mirror DIR
    run ...` or `docfact run ... --mirror DIR`); they stand for DOCFACT_DATA_DIR and
    DOCFACT_MIRROR."""
    command = click.option(
        "--mirror", metavar="DIR|URL", expose_value=False, is_eager=True,
        callback=_sets("DOCFACT_MIRROR"),
        help="Folder or base URL holding the data files, tried before the public addresses "
             "[env DOCFACT_MIRROR].")(command)
    return click.option(
        "--data-dir", metavar="DIR", expose_value=False, is_eager=True,
        type=click.Path(file_okay=False), callback=_sets("DOCFACT_DATA_DIR"),
        help="Cache folder of the data files [env DOCFACT_DATA_DIR; default: the user cache "
             "folder].")(command)


def _positive_or_all(ctx, param, value):
    """--jobs' check: joblib takes a positive count, or -1 for every core."""
    if value == 0 or value < -1:
        raise ConfigError(f"--jobs: a positive number of workers, or -1 for all cores; got "
                          f"{value}")
    return value


def jobs_option(default: int):
    """--jobs: joblib's n_jobs, a positive number of workers or -1 for all cores."""
    return click.option("--jobs", type=int, default=default, show_default=True,
                        callback=_positive_or_all,
                        help="Parallel runs (joblib; -1 = all cores).")


def one_line(message: str) -> str:
    """Line breaks in user-supplied names shown escaped, so the error stays one line."""
    return message.replace("\r", "\\r").replace("\n", "\\n")
