"""What the const-fold pass reads and writes: constant values of ops (`constants`), the numpy
evaluation of each foldable op (`rules`).  Not a pass module: the registry scans only the
modules directly in `pirc/passes`."""
