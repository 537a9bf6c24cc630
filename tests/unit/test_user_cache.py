"""Parsed YAML through the user cache (pirc.user_cache.yaml_data): a second read parses
nothing, an edited file is parsed again, and what marshal cannot hold is parsed each time."""

from __future__ import annotations

import pytest
import yaml

from pirc import user_cache
from pirc.passes.infra.pipeline import build_pipeline


@pytest.fixture
def parses(tmp_path, monkeypatch):
    """The texts yaml.safe_load parsed, with the cache under tmp_path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    seen = []
    real = yaml.safe_load

    def counting(text):
        seen.append(text)
        return real(text)

    monkeypatch.setattr(yaml, "safe_load", counting)
    return seen


def test_a_file_is_parsed_once_per_text(tmp_path, parses):
    data = tmp_path / "data.yaml"
    data.write_text("passes:\n- cse\n")
    assert user_cache.yaml_data(data, "t") == {"passes": ["cse"]}
    assert user_cache.yaml_data(data, "t") == {"passes": ["cse"]}
    assert len(parses) == 1
    assert (tmp_path / "cache" / "pirc" / "t.marshal").is_file()
    data.write_text("passes:\n- dce\n")
    assert user_cache.yaml_data(data, "t") == {"passes": ["dce"]}
    assert len(parses) == 2


def test_data_marshal_cannot_hold_is_parsed_each_time(tmp_path, parses):
    data = tmp_path / "data.yaml"
    data.write_text("when: 2026-12-04 13:00:00\n")  # a datetime
    first = user_cache.yaml_data(data, "t")
    assert user_cache.yaml_data(data, "t") == first and len(parses) == 2


def test_a_named_pipeline_is_read_from_the_cache(parses):
    first = build_pipeline("default")
    parsed = len(parses)
    assert parsed >= 1  # default.yaml, the first time
    again = build_pipeline("default")
    assert len(parses) == parsed
    assert again.text() == first.text() and again.version == first.version
