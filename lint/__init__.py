"""Import-linter contract types of this project (`make lint` runs lint-imports)."""
