"""Questions: the question file (`load`) and writing it from a dataset's legends (`generate`).
The templates are the question catalogue (top-level questions/, shipped as byo.catalog)."""
