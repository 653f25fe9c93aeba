"""`byo audit DATASET`, an independent check of a rendered dataset's ground truth: run.py
measures every image again (byo.families.audit_kit) and judges every question against it with
its family's audit module."""
