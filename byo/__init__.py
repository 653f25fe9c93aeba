"""BYO Render: controlled synthetic scenes for diagnosing the eyesight of VLMs."""

__version__ = "0.1.0"
