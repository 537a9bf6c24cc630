"""PIRC_REWRITE_CACHE=0, the benchmark knob that turns the process's rewrite cache off
(tools/bench_passes.py measures what the cache saves with it)."""

import os
import subprocess
import sys
from pathlib import Path

import pirc
from pirc.passes.infra.pass_base import PassContext
from pirc.passes.infra.registry import get_pass
from pirc.passes.infra.rewrites import RewriteCache, RunState, cache_enabled

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "tests" / "fixtures" / "corpus" / "3.3.1" / "mlp.3.3.1.json"


def _context(cache: RewriteCache) -> PassContext:
    program = pirc.load(str(MLP))
    state = RunState(program, cache=cache)
    return PassContext(program, pass_obj=get_pass("cse")(), state=state)


def _plans_computed(cache: RewriteCache) -> int:
    pc = _context(cache)
    fingerprint = pc.state.fingerprint(list(pc.program.block.ops)[:3])
    computed = []
    for _ in range(3):
        plan = pc.cached(fingerprint, lambda: computed.append(1) or ("plan", len(computed)))
        assert plan[0] == "plan"
    return len(computed)


def test_an_enabled_cache_works_a_plan_out_once():
    cache = RewriteCache()
    assert _plans_computed(cache) == 1
    assert (cache.hits, cache.misses) == (2, 1)


def test_a_disabled_cache_works_it_out_each_time_and_keeps_nothing():
    cache = RewriteCache(enabled=False)
    assert _plans_computed(cache) == 3
    assert (cache.hits, cache.misses) == (0, 3)
    assert not cache._plans


def test_the_environment_variable_decides():
    assert cache_enabled({}) and cache_enabled({"PIRC_REWRITE_CACHE": "1"})
    assert not cache_enabled({"PIRC_REWRITE_CACHE": "0"})
    assert not cache_enabled({"PIRC_REWRITE_CACHE": " 0 "})


def test_the_process_cache_reads_it_at_import():
    code = "from pirc.passes.infra.rewrites import CACHE; print(CACHE.enabled)"
    for value, expected in (("0", "False"), ("1", "True")):
        env = dict(os.environ, PIRC_REWRITE_CACHE=value, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                             check=True)
        assert out.stdout.strip() == expected
