"""An independent check of a rendered dataset's ground truth (`byo audit DATASET`): scene.py
measures an image again from its mask and the camera, run.py judges every question against it;
each family's own checks are in its package's `audit` module."""
