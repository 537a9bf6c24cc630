"""The op-version table pirc-opt reads without torch mirrors the kernel registry."""

from pirc.lower.lower import load_kernels
from pirc.runtime.op_versions import digest, semantic_version, table_text
from pirc.runtime.registry import REGISTRY
from tools.gen_op_versions import TABLE


def test_the_committed_table_is_the_registry():
    load_kernels()
    assert TABLE.read_text(encoding="utf-8") == table_text(REGISTRY), (
        "pirc/runtime/op_versions.json is stale: run python -m tools.gen_op_versions")


def test_semantic_version_is_the_entry_the_registry_resolves():
    load_kernels()
    for name in ("pd_op.cast", "pd_op.maximum", "pd_op.rms_norm", "pd_op.relu"):
        for version in (0, 1, 2, 3, 4):
            entry = REGISTRY.find(name, version)
            assert semantic_version(name, version) == (entry.since if entry else None), (name, version)
    assert semantic_version("pd_op.no_such_op", 4) is None


def test_digest_names_the_table():
    assert digest().startswith("ovs1:") and len(digest()) == 5 + 64


def test_the_cached_digest_is_the_computed_one(tmp_path, monkeypatch):
    """digest() is kept in the user cache by the table's text: the cached value is the
    computed one, and an entry made from another text is not used."""
    from pirc import user_cache
    from pirc.runtime.op_versions import _digest, _table

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = user_cache.cache_dir() / "op-versions-digest.marshal"
    try:
        digest.cache_clear()
        computed = digest()
        assert computed == _digest(_table()) and cache.is_file()
        digest.cache_clear()
        assert digest() == computed
        user_cache.store(cache, "another table", "ovs1:" + "0" * 64)
        digest.cache_clear()
        assert digest() == computed
    finally:
        digest.cache_clear()
