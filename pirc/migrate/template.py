"""The per-worker template every model's child is forked from.

Importing pirc and torch costs about two seconds; a fresh interpreter per model would spend
more on imports than most models take to migrate.  So each worker (a process-pool worker, a
Dask worker) starts one template process, multiprocessing's *forkserver*, with this module
preloaded (`isolate.run_isolated` names it in `set_forkserver_preload`, together with the
module of the function it isolates, `pirc.migrate.job` in a real run), and every model runs
in a fresh child forked from it: the imports are paid once per worker, the child starts in
milliseconds, and whatever the child does to itself (a segfault, a runaway allocation) ends
with the child.

Importing this module is the preload: one torch thread (a worker is one model at a time; the
machine's cores are the workers, and a child that spread over all of them would make two
workers slower than one), then pirc.  Nothing runs a torch op here: the template forks, and a
process that forks must not hold running thread pools.
"""

import os

# Before torch is first imported: OpenMP and the BLAS size their pools from these.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import torch  # noqa: E402

torch.set_num_threads(1)

import pirc  # noqa: E402,F401  (the preload: the whole package, imported once per worker)


def _warm() -> None:
    """Build, once in the template, the tables pirc otherwise builds on first use in every
    child: the kernel registry (importing ~120 kernel modules and registering their grad and
    in-place variants: ~0.25 s), the migration patches, the pass registry and the op specs of
    every PIR version.  The children inherit them copy-on-write.  Nothing here runs a torch op."""
    from pirc.ir import specs
    from pirc.lower.lower import load_kernels
    from pirc.passes.infra.registry import all_passes
    from pirc.versioning.planner import version_order
    from pirc.versioning.upgrade import load_patches

    load_kernels()
    all_passes()
    for version in version_order(load_patches()):
        specs.op_names(version)


_warm()
