"""Print each array of OUT.npz (name, shape, dtype) and whether it matches REF.npz's KEY<i>."""
import sys

import numpy as np

out, ref, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
with np.load(out) as o, np.load(ref) as r:
    for i, name in enumerate(o.files):
        got, want = o[name], r[f"{prefix}{i}"]
        close = got.shape == want.shape and got.dtype == want.dtype and np.allclose(got, want, rtol=1e-4, atol=1e-5)
        print(name, got.shape, got.dtype, "matches" if close else "DIFFERS")
