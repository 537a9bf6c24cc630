"""Testing aids: differential testing of two programs and random valid programs for fuzzing.

`numerical_diff` needs only pirc.run, and so does `bisect` (the first pass and rewrite of a
pipeline that changes a program's outputs); `strategies` needs hypothesis (a test dependency) and is
imported on demand: `from pirc.testing.strategies import programs`.  `boundary_inputs` gives the
NaN / Inf / denormal / extreme / epsilon-sized arrays two implementations are compared on;
`fusion_programs` draws programs around each fusion pattern and its near misses, and
`fusion_differential` compares them before and after within the per-fusion tolerances
(`fusion_tolerance`, pirc/passes/fusion/tolerances.yaml); `version_split` runs the kernels
split by PIR version side by side on boundary inputs; `random_ops` says which fetched outputs
depend on a random op (compared by shape and dtype only).
"""

from .bisect import BisectResult, bisect
from .boundary import boundary_inputs
from .numerical_diff import ArrayDiff, DiffReport, Divergence, compare_arrays, numerical_diff

__all__ = ["numerical_diff", "DiffReport", "ArrayDiff", "Divergence", "compare_arrays",
           "bisect", "BisectResult", "boundary_inputs"]
