"""Write deterministic parameters for a PIR text program (argv: program, version, out).

Each parameter gets 0.5 + 0.01 * its element index, a positive value, so a batch norm's
variance is valid; the values are not the point of the lit tests that use this, the
parameters file's layout and names are."""

import sys

import numpy as np

import pirc
from pirc.runtime.params import parameter_types, write_params

program = pirc.load(sys.argv[1], from_version=int(sys.argv[2]))
params = {name: (0.5 + 0.01 * np.arange(int(np.prod(t.shape)), dtype=np.float32)).reshape(t.shape)
          for name, t in parameter_types(program).items()}
write_params(sys.argv[3], params, program)
