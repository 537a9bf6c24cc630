"""pirc.load and pirc.save take what Python users pass for a file: a str or a pathlib.Path."""

from pathlib import Path

import pirc

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "3.3.1" / "mlp.3.3.1.json"


def test_load_and_save_take_a_path(tmp_path):
    program = pirc.load(FIXTURE)   # a Path, .json: Paddle JSON
    assert pirc.to_text(program) == pirc.to_text(pirc.load(str(FIXTURE)))
    for name in ("out.pir", "out.json"):
        pirc.save(program, tmp_path / name)
        assert pirc.to_text(pirc.load(tmp_path / name)) == pirc.to_text(program)
