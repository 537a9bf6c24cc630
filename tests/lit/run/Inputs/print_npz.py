"""Print each array of an .npz file: name, dtype, shape and values (one line each)."""
import sys

import numpy as np

with np.load(sys.argv[1]) as data:
    for name in data.files:
        a = data[name]
        print(name, a.dtype, list(a.shape), a.tolist())
