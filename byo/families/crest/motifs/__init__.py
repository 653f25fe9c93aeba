"""Crests (kamon) as pure geometry and labels, after KamonBench (no bpy here).

- `library`: original motifs and containers (shapely polygons with holes in the [-1, 1] canvas);
- `grammar`: the crest grammar (containers, modifier, motif) and its layout;
- `labels`: KDL, segmented Japanese, English and program-code labels, with parsers;
- `sampling`, `splits`: the benchmark's sampler, factor grids, random and recombination splits;
- (the benchmark's label metrics live with the other scores, in `byo.families.crest.metrics`);
- `mesh`, `carriers`, `raster`: triangles, 3D surfaces and a preview rasterizer.
"""

from byo.families.crest.motifs.grammar import ARRANGEMENTS, MODIFIERS, Crest, GrammarError
from byo.families.crest.motifs.library import CONTAINERS, MOTIFS, container, motif

__all__ = ["ARRANGEMENTS", "CONTAINERS", "MODIFIERS", "MOTIFS", "Crest", "GrammarError", "container", "motif"]
