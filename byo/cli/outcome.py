"""A command's outcome as the user reads it: known errors in one paragraph and an exit code, notes
in lines of their own, Ctrl-C and SIGTERM as a stop that names what was kept; each with the API
fields its text names written as the command line's flags (byo.cli.fields)."""

from __future__ import annotations

import warnings

from rich.markup import escape

from byo.cli.console import console
from byo.cli.fields import flags_in, message
from byo.core.errors import ConfigError, FatalRenderError, Note, RenderError
from byo.core.stops import Stopped, stoppable


def show_notes(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as the user reads them: a Note in one line, anything else in Python's format."""
    if issubclass(category, Note):
        console.print(f"note: {escape(flags_in(str(message)))}", highlight=False)
    else:
        python_showwarning(message, category, filename, lineno, file, line)


python_showwarning = warnings.showwarning


def invoke(func, args) -> int:
    """Run a command, turning known errors into a one-paragraph message and an exit code, and notes
    into lines of their own."""
    with warnings.catch_warnings():
        warnings.showwarning = show_notes
        return _invoke(func, args)


def _invoke(func, args) -> int:
    try:
        with stoppable():
            return func(args)
    except Stopped as stop:
        console.print(f"[yellow]{escape(message(stop))}[/yellow]", highlight=False)
        return stop.exit_code
    except (ConfigError, FatalRenderError) as err:
        console.print(f"[red]error:[/red] {escape(message(err))}", highlight=False)
        return 2
    except RenderError as err:
        console.print(f"[red]error:[/red] {escape(message(err))}", highlight=False)
        return 1
    except OSError as err:  # a file or directory that cannot be read or written, a full disk
        where = f"{err.filename}: " if err.filename else ""
        console.print(f"[red]error:[/red] {escape(where + (err.strerror or str(err)))}", highlight=False)
        return 1
