"""What every stage shares: errors, checked inputs, locks, paths kept inside their dataset, the
dataset layout and atomic writes, schemas, seeds, proportions, progress, clean stops, sheets."""
