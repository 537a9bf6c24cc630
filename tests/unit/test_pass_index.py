"""The pass index (pirc/passes/index.txt): a pipeline imports the modules of its own passes
and no other pass module, the committed index is what a full scan finds, and an index that
cannot answer (another module in the tree, a stale entry) falls back to the full scan."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from pirc.passes import PircPass, register_pass
from pirc.passes.infra import registry
from pirc.passes.infra.registry import INDEX_FILE, all_passes, get_pass, index_text

ROOT = Path(__file__).resolve().parents[2]

# what a fresh process imported of pirc's pass modules after building a pipeline
_IMPORTED = """
import json, sys
from pirc.passes import build_pipeline
build_pipeline(sys.argv[1])
print(json.dumps(sorted(sys.modules)))
"""


def _imported_after(spec: str, tmp_path) -> set[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", _IMPORTED, spec], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return set(json.loads(r.stdout)) & set(_indexed().values())


def _indexed() -> dict[str, str]:
    """The committed index: pass name -> module."""
    indexed = {}
    for line in INDEX_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            module, *names = line.split()
            indexed.update((name, module) for name in names)
    return indexed


def test_the_committed_index_is_what_a_full_scan_finds():
    assert INDEX_FILE.read_text(encoding="utf-8") == index_text(all_passes()), (
        "pirc/passes/index.txt is stale: run python -m tools.gen_pass_index")


def test_every_pass_of_pirc_is_indexed_by_its_module():
    indexed = _indexed()
    ours = {name: cls.__module__ for name, cls in all_passes().items()
            if cls.__module__.startswith("pirc.passes.")}
    assert indexed == ours
    assert {"cse", "dce", "fuse-gelu", "upgrade"} <= set(indexed)


def test_a_pipeline_imports_only_the_modules_of_its_passes(tmp_path):
    assert _imported_after("cse,dce", tmp_path) == {"pirc.passes.cse", "pirc.passes.dce"}
    default = _imported_after("default", tmp_path)
    assert default == {f"pirc.passes.{m}" for m in
                       ("canonicalize", "const_fold", "conv_bn_fold", "param_fold", "cse", "dce")}
    fuse = _imported_after("fuse", tmp_path)  # default, then four fusions
    assert fuse == default | {f"pirc.passes.fusion.{m}" for m in ("gelu", "silu", "swiglu", "fc")}


def test_an_index_that_lists_other_modules_does_not_answer(tmp_path, monkeypatch):
    """A pass module added to the tree and not yet indexed: the index is not complete, so
    every lookup scans (the new pass is found, as before the index)."""
    lines = INDEX_FILE.read_text(encoding="utf-8").splitlines(keepends=True)
    stale = tmp_path / "index.txt"
    stale.write_text("".join(line for line in lines if not line.startswith("pirc.passes.dce ")))
    monkeypatch.setattr(registry, "INDEX_FILE", stale)
    monkeypatch.setattr(registry, "_index", None)
    assert registry._read_index() == {}
    monkeypatch.setattr(registry, "_index", None)
    monkeypatch.setattr(registry, "INDEX_FILE", tmp_path / "missing.txt")
    assert registry._read_index() == {}
    monkeypatch.setattr(registry, "_index", None)
    monkeypatch.setattr(registry, "INDEX_FILE", INDEX_FILE)
    assert registry._read_index()["dce"] == "pirc.passes.dce"


def test_a_stale_entry_falls_back_to_the_full_scan(tmp_path, monkeypatch):
    """The index says cse is in dce's module (a pass moved, the index not rewritten): the
    lookup imports that module, does not find cse registered, and scans."""
    import pirc.passes

    text = INDEX_FILE.read_text(encoding="utf-8")
    stale = tmp_path / "index.txt"
    stale.write_text(text.replace("pirc.passes.cse cse\n", "pirc.passes.cse\n")
                     .replace("pirc.passes.dce dce\n", "pirc.passes.dce dce cse\n"))
    monkeypatch.setattr(registry, "INDEX_FILE", stale)
    monkeypatch.setattr(registry, "_index", None)
    monkeypatch.setattr(registry, "_scanned", False)
    # as if cse's module had not been imported yet (all restored after the test)
    monkeypatch.delitem(registry._PASSES, "cse")
    monkeypatch.delitem(sys.modules, "pirc.passes.cse")
    monkeypatch.setattr(pirc.passes, "cse", pirc.passes.cse)
    found = get_pass("cse")
    assert found is not None and found.__module__ == "pirc.passes.cse"
    assert registry._scanned


@register_pass
@dataclass(frozen=True)
class _Own(PircPass):
    """A pass the caller's code registers."""

    name = "test-index-own"

    def run(self, pc):
        pass


def test_a_name_of_no_pass_of_pirc_needs_no_scan(monkeypatch):
    """`default` is a pipeline, not a pass: the complete index says so without importing
    every pass module; a pass the caller's code registered is still found."""
    def scan():
        raise AssertionError("scanned every pass module")

    monkeypatch.setattr(registry, "_index", None)
    monkeypatch.setattr(registry, "_scanned", False)
    monkeypatch.setattr(registry, "_scan", scan)
    assert get_pass("default") is None
    assert get_pass("test-index-own") is _Own
    assert get_pass("cse").name == "cse"


def test_importlib_metadata_finder_leaves_the_index_usable(monkeypatch):
    """dask and distributed import importlib_metadata, whose finder in sys.meta_path searches
    the folders the scan reads: with no plugin installed the index still answers (a migrate
    worker that imported Dask otherwise scanned every pass module per pipeline)."""
    import sys

    importlib_metadata = pytest.importorskip("importlib_metadata")
    finder = importlib_metadata.MetadataPathFinder
    if not any(f is finder or isinstance(f, finder) for f in sys.meta_path):
        monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, finder()])
    assert not registry._may_have_plugins()
    monkeypatch.setattr(registry, "_index", None)
    assert registry._read_index()["dce"] == "pirc.passes.dce"


def test_another_distribution_finder_disables_the_index(monkeypatch):
    """A finder of distributions the scan cannot see (not sys.path's folders): plugins may be
    installed, so the index does not answer and every lookup scans."""
    import sys

    class Elsewhere:
        @staticmethod
        def find_distributions(context=None):
            return iter(())

        @staticmethod
        def find_spec(*args, **kwargs):
            return None

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Elsewhere()])
    assert registry._may_have_plugins()
    monkeypatch.setattr(registry, "_index", None)
    assert registry._read_index() == {}
