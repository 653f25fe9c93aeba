"""The question catalogue: one YAML file of templates per family, and common.yaml with the
shared preprompts and instructions. Installed inside the package as `byo.catalog`."""
