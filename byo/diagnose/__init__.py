"""Closed-loop diagnosis: stimuli chosen from the answers so far and rendered on demand.

- `adaptive`: the psi method, a Bayesian adaptive threshold over one variable (pure numpy: no
  rendering, no model), tested and benchmarked with a simulated trial function;
- `adapt`: `byo adapt`, the method's trials rendered, asked and scored one at a time, written as an
  ordinary dataset and run;
- `explain`: `byo explain`, each failure re-rendered with one factor changed at a time and asked
  again;
- `twins`: where `byo explain` writes its twins and how their record is read (the viewer reads it).
"""
