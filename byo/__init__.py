"""BYO Render: controlled synthetic scenes for diagnosing the eyesight of VLMs.

The public Python API (byo.api, loaded on first use, so `import byo` costs nothing):
`load_config`, `plan`, `render_dataset`, `render_images`, `write_questions`, `audit_dataset`,
`evaluate`, `score_run`, `write_report`, `compare_runs`, `adapt_threshold`, `explain_failures`; docs/api.md shows them in a notebook.
"""

__version__ = "0.1.0"

# byo.api holds only the table of names (STAGES); each stage module loads on first use of a name
from byo import api  # noqa: E402

API = tuple(api.STAGES)


def __getattr__(name: str):
    if name in API:
        return getattr(api, name)
    raise AttributeError(f"module 'byo' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])
