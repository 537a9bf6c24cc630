"""A pirc-opt process loads only what its job needs, and its caches never change an answer.

Start-up is most of a small pirc-opt run (every lit test pays it; docs/PERFORMANCE.md,
"Whole process"): a run must not import torch or numpy, a JSON run not the text parser,
and once pirc's user cache is filled no run that reads no patch imports the YAML library.
The caches (op specs, version policy, LALR tables) are an optimisation only: cold, warm,
broken or unwritable, the output is the same.  These tests check behaviour, not time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JSON_INPUT = ROOT / "examples" / "cnn.3.0.0.json"
TEXT_INPUT = ROOT / "tests" / "fixtures" / "corpus" / "3.3.1" / "mlp.3.3.1.loaded.pir.txt"

# Runs pirc-opt's job in this process, then prints the top-level modules it imported.
_HARNESS = """
import json, sys
from pirc.cli import opt
status = opt.run(sys.argv[1:])
sys.stdout.flush()
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)
sys.exit(status)
"""


def _env(cache) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    env.pop("PIRC_DEBUG", None)
    return env


def _modules_of_run(cache, *args) -> set[str]:
    done = subprocess.run([sys.executable, "-c", _HARNESS, *map(str, args)], cwd=ROOT,
                          env=_env(cache), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stderr.splitlines()[-1]))


def _pirc_opt(cache, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pirc", *map(str, args)], cwd=ROOT,
                          env=_env(cache), capture_output=True, text=True, timeout=300)


def test_importing_pirc_opt_imports_neither_torch_nor_numpy_nor_the_text_parser(tmp_path):
    code = "import json, sys, pirc.cli.opt; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert {"torch", "numpy", "lark"}.isdisjoint(loaded), loaded & {"torch", "numpy", "lark"}


def test_a_json_run_loads_no_text_parser_and_with_a_warm_cache_no_yaml(tmp_path):
    args = (JSON_INPUT, "--emit=json")
    _modules_of_run(tmp_path, *args)  # cold: fills the cache (may parse YAML)
    loaded = _modules_of_run(tmp_path, *args)
    assert {"torch", "numpy", "lark", "yaml"}.isdisjoint(loaded), loaded & {"torch", "numpy", "lark", "yaml"}


def test_a_text_run_with_a_warm_cache_loads_no_yaml(tmp_path):
    args = (TEXT_INPUT, "--from-version=4")
    _modules_of_run(tmp_path, *args)
    loaded = _modules_of_run(tmp_path, *args)
    assert "lark" in loaded  # the harness really ran the text parser
    assert {"torch", "numpy", "yaml"}.isdisjoint(loaded), loaded & {"torch", "numpy", "yaml"}


@pytest.mark.parametrize("args", [(JSON_INPUT, "--emit=pir"), (TEXT_INPUT, "--from-version=4")],
                         ids=["json", "text"])
def test_cold_warm_broken_and_unwritable_caches_give_the_same_output(tmp_path, args):
    cache = tmp_path / "cache"
    cold = _pirc_opt(cache, *args)
    assert cold.returncode == 0 and cold.stderr == "", cold.stderr
    files = sorted((cache / "pirc").iterdir())
    assert files, "the first run leaves its caches"
    warm = _pirc_opt(cache, *args)
    for f in files:  # a truncated or foreign file is parsed again, silently
        f.write_bytes(b"\x00not a cache")
    broken = _pirc_opt(cache, *args)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    unwritable = _pirc_opt(blocker, *args)
    for other in (warm, broken, unwritable):
        assert (other.returncode, other.stdout, other.stderr) == (0, cold.stdout, "")


def test_a_command_exits_with_its_status_after_flushing_and_atexit_handlers(tmp_path):
    # run_as_process skips the final garbage collection of the IR (gc.freeze), nothing else:
    # buffered output and atexit handlers (coverage, profilers) still run.
    code = ("import atexit, sys\n"
            "from pirc.cli.process import run_as_process\n"
            "atexit.register(lambda: print('atexit ran'))\n"
            "def job():\n"
            "    sys.stdout.write('job output')\n"
            "    return 3\n"
            "run_as_process(job)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (3, "job outputatexit ran\n", "")
