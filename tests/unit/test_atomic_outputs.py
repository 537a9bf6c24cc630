"""How pirc writes its outputs (pirc/atomic.py), through the real commands and the Python API.

A regular file (or a new path) is replaced in one rename, keeping its mode; a new file gets
`0666 & ~umask`; a symlink is followed; a device node, a FIFO and `/dev/stdout` are written
directly, never renamed over; a missing folder or a folder as the target is exit 1 naming the
path, before anything is written; a failing command writes none of its outputs (its crash
reproducer excepted).  The reproducers of issue 20 (fuzz-passes-crashes:
atomic-write-replaces-device-node-and-symlink.sh, cli-unwritable-output-path-internal-error.sh)
are the cases below.  Device nodes are private ones made with mknod in the test's temp folder,
never a real device.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.atomic import OutputError
from pirc.cli.opt import run as pirc_opt
from pirc.cli.run import run as pirc_run

import broken_passes  # noqa: F401 - registers test-breaks-verifier

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "lit" / "passes" / "Inputs" / "small.pir"
MLP = ROOT / "tests" / "fixtures" / "corpus" / "3.3.1" / "mlp.3.3.1.json"
MLP_PARAMS = MLP.with_suffix(".pdiparams")
NULL, FULL = (1, 3), (1, 7)  # Linux's character device numbers of null and full


def opt(*args: str) -> int:
    return pirc_opt([str(SMALL), "--from-version=4", *args])


def opt_mlp(*args: str) -> int:
    return pirc_opt([str(MLP), "-p", "cse", "--params", str(MLP_PARAMS), *args])


def expected_text() -> str:
    return pirc.to_text(pirc.load(str(SMALL), from_version=4))


def temp_files(folder: Path) -> list:
    return [p.name for p in folder.iterdir() if ".pirc-" in p.name]


def make_device(path: Path, numbers: tuple) -> Path:
    """A private character device node (null or full) in the test's folder."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(*numbers))
        os.close(os.open(path, os.O_WRONLY))
    except PermissionError as e:
        pytest.skip(f"cannot make or open a device node here (not root, or a nodev mount): {e}")
    return path


def assert_device(path: Path, numbers: tuple) -> None:
    info = os.lstat(path)
    assert stat.S_ISCHR(info.st_mode), f"{path} is no longer a character device"
    assert (os.major(info.st_rdev), os.minor(info.st_rdev)) == numbers


@pytest.fixture
def inputs(tmp_path) -> Path:
    path = tmp_path / "in.npz"
    np.savez(path, x=np.arange(6, dtype=np.float32).reshape(2, 3))
    return path


@pytest.fixture
def umask():
    """Set the process umask for one test (the commands run in this process)."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


def one_error_line(err: str, path) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{path}: error: "), err
    assert "internal error" not in err and ".pirc-" not in err and "Traceback" not in err
    return lines[0]


# -- regular files --------------------------------------------------------------------------


def test_an_existing_file_is_replaced_in_one_rename_keeping_its_mode(tmp_path, umask):
    umask(0o077)  # the existing file's mode wins over the umask
    out = tmp_path / "out.pir"
    out.write_text("old\n")
    out.chmod(0o644)
    before = os.stat(out)
    assert opt("-o", str(out)) == 0
    after = os.stat(out)
    assert out.read_text() == expected_text()
    assert stat.S_IMODE(after.st_mode) == 0o644
    assert after.st_ino != before.st_ino  # a new file renamed over it, not rewritten in place
    assert temp_files(tmp_path) == []


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_files_get_0666_less_the_umask(tmp_path, umask, mask, mode):
    umask(mask)
    status = opt_mlp("-o", str(tmp_path / "o.json"), "--pass-report", str(tmp_path / "r.json"),
                     "--params-out", str(tmp_path / "o.pdiparams"))
    assert status == 0
    for name in ("o.json", "r.json", "o.pdiparams"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == mode, name
    program = pirc.load(str(tmp_path / "o.json"))
    assert set(pirc.read_params(str(tmp_path / "o.pdiparams"), program)) == set(
        pirc.read_params(str(MLP_PARAMS), pirc.load(str(MLP))))


def test_pirc_run_outputs_follow_the_umask_and_keep_a_mode(tmp_path, umask, inputs):
    umask(0o027)
    new = tmp_path / "new.npz"
    assert pirc_run([str(SMALL), "--from-version=4", "--inputs", str(inputs), "--outputs", str(new)]) == 0
    assert stat.S_IMODE(os.stat(new).st_mode) == 0o640
    kept = tmp_path / "kept.npz"
    kept.write_bytes(b"old")
    kept.chmod(0o604)
    assert pirc_run([str(SMALL), "--from-version=4", "--inputs", str(inputs), "--outputs", str(kept)]) == 0
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o604
    with np.load(kept) as got, np.load(new) as want:
        assert got.files == ["out"] and np.array_equal(got["out"], want["out"])


# -- symlinks -------------------------------------------------------------------------------


def test_a_symlink_is_followed_and_stays_a_link(tmp_path):
    target = tmp_path / "target.pir"
    target.write_text("old\n")
    target.chmod(0o644)
    link = tmp_path / "link.pir"
    link.symlink_to("target.pir")  # relative, as `ln -s` makes it
    chain = tmp_path / "chain.pir"
    chain.symlink_to(link)
    assert opt("-o", str(chain)) == 0
    assert chain.is_symlink() and link.is_symlink() and os.readlink(link) == "target.pir"
    assert target.read_text() == expected_text()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644
    assert temp_files(tmp_path) == []


def test_a_dangling_symlink_creates_its_target(tmp_path):
    (tmp_path / "sub").mkdir()
    link = tmp_path / "link.pir"
    link.symlink_to(tmp_path / "sub" / "made.pir")
    assert opt("-o", str(link)) == 0
    assert link.is_symlink() and (tmp_path / "sub" / "made.pir").read_text() == expected_text()


def test_a_symlink_into_a_missing_folder_names_the_link(tmp_path, capsys):
    link = tmp_path / "link.pir"
    link.symlink_to(tmp_path / "gone" / "x.pir")
    assert opt("-o", str(link)) == 1
    line = one_error_line(capsys.readouterr().err, link)
    assert f"the folder {tmp_path / 'gone'} does not exist" in line
    assert link.is_symlink() and not (tmp_path / "gone").exists()


# -- devices, FIFOs, /dev/stdout: written directly ----------------------------------------------


def test_a_device_node_is_written_never_renamed_over(tmp_path, inputs):
    null = make_device(tmp_path / "mynull", NULL)
    assert opt("-o", str(null)) == 0
    assert_device(null, NULL)
    assert opt_mlp("-o", str(null), "--pass-report", str(null), "--params-out", str(null)) == 0
    assert_device(null, NULL)
    assert pirc_run([str(SMALL), "--from-version=4", "--inputs", str(inputs), "--outputs", str(null)]) == 0
    assert_device(null, NULL)
    link = tmp_path / "null-link"
    link.symlink_to(null)
    assert opt("-o", str(link)) == 0
    assert link.is_symlink()
    assert_device(null, NULL)
    assert temp_files(tmp_path) == []


def test_a_device_that_refuses_the_bytes_is_exit_1_and_nothing_else_is_written(tmp_path, inputs, capsys):
    full = make_device(tmp_path / "myfull", FULL)
    report, params = tmp_path / "r.json", tmp_path / "o.pdiparams"
    assert opt_mlp("-o", str(full), "--pass-report", str(report), "--params-out", str(params)) == 1
    line = one_error_line(capsys.readouterr().err, full)
    assert "No space left on device" in line
    assert_device(full, FULL)
    assert not report.exists() and not params.exists() and temp_files(tmp_path) == []
    assert pirc_run([str(SMALL), "--from-version=4", "--inputs", str(inputs), "--outputs", str(full)]) == 1
    assert "No space left on device" in one_error_line(capsys.readouterr().err, full)
    assert_device(full, FULL)


def test_a_fifo_is_written_directly_to_its_reader(tmp_path):
    fifo = tmp_path / "pipe.pir"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    try:
        status = opt("-o", str(fifo))
    finally:
        if reader.is_alive() and not got:  # a failed command never opened it: free the reader
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # the reader is not waiting yet: it will not block on a writer
                pass
        reader.join(timeout=60)
    assert status == 0
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got == [expected_text().encode()]
    assert temp_files(tmp_path) == []


# What /dev/stdout and /dev/fd/1 are (links into the process's fd folder), made in the test's
# folder: a writer that renamed over them would replace only these private links, never the
# machine's own /dev/stdout.  /proc/self/fd/1 itself cannot be renamed over.
STDOUT_NAMES = {"dev-stdout": "/proc/self/fd/1", "dev-fd-1": "/dev/fd/1", "proc-self-fd-1": None}


def stdout_name(tmp_path, kind: str) -> str:
    if STDOUT_NAMES[kind] is None:
        return "/proc/self/fd/1"
    link = tmp_path / kind
    link.symlink_to(STDOUT_NAMES[kind])
    return str(link)


@pytest.mark.parametrize("kind", sorted(STDOUT_NAMES))
def test_dev_stdout_writes_to_the_open_stdout_at_its_offset(tmp_path, kind):
    """Through the installed command: stdout is a log opened for appending; what was in it
    stays, the program follows it, and the log is still the same file."""
    name = stdout_name(tmp_path, kind)
    log = tmp_path / "log.txt"
    log.write_text("earlier line\n")
    before = os.stat(log)
    with open(log, "ab") as out:
        done = subprocess.run([sys.executable, "-m", "pirc", str(SMALL), "--from-version=4", "-o", name],
                              stdout=out, stderr=subprocess.PIPE, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert log.read_text() == "earlier line\n" + expected_text()
    assert os.stat(log).st_ino == before.st_ino
    if STDOUT_NAMES[kind] is not None:
        assert os.readlink(name) == STDOUT_NAMES[kind]


@pytest.mark.parametrize("kind", sorted(STDOUT_NAMES))
def test_dev_stdout_into_a_pipe(tmp_path, kind):
    name = stdout_name(tmp_path, kind)
    done = subprocess.run([sys.executable, "-m", "pirc", str(SMALL), "--from-version=4", "-o", name],
                          capture_output=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == expected_text()
    assert temp_files(tmp_path) == []


# -- paths that cannot be written: exit 1 naming them, before anything is written -------------


@pytest.mark.parametrize("flag", ["-o", "--pass-report", "--params-out"])
@pytest.mark.parametrize("where, says", [
    ("missing/dir/out", "the folder missing/dir does not exist"),
    (".", "it is a folder"),
    ("sub/", "it names a folder"),
    ("file.txt/out", "the folder file.txt is not a folder"),
])
def test_an_unwritable_path_is_exit_1_naming_it_and_nothing_is_written(tmp_path, monkeypatch, capsys,
                                                                       flag, where, says):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "file.txt").write_text("a file\n")
    outputs = {"-o": "o.json", "--pass-report": "r.json", "--params-out": "o.pdiparams"}
    outputs[flag] = where
    args = [a for f, path in outputs.items() for a in (f, path)]
    assert opt_mlp(*args) == 1
    line = one_error_line(capsys.readouterr().err, where)
    assert says in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt", "sub"]


def test_pirc_run_checks_its_outputs_path_before_running(tmp_path, capsys):
    """--outputs is refused before the program is read or run (its inputs file is missing
    too, and that is not what is reported)."""
    missing = tmp_path / "no" / "out.npz"
    assert pirc_run([str(SMALL), "--from-version=4", "--inputs", str(tmp_path / "none.npz"),
                     "--outputs", str(missing)]) == 1
    line = one_error_line(capsys.readouterr().err, missing)
    assert f"the folder {tmp_path / 'no'} does not exist" in line
    assert pirc_run([str(SMALL), "--from-version=4", "--inputs", str(tmp_path / "none.npz"),
                     "--outputs", str(tmp_path)]) == 1
    assert "it is a folder" in one_error_line(capsys.readouterr().err, tmp_path)


def test_a_closed_descriptor_is_exit_1(tmp_path, capsys):
    assert opt("-o", "/proc/self/fd/987") == 1
    assert "is no open file of this process" in one_error_line(capsys.readouterr().err, "/proc/self/fd/987")


def test_pirc_patch_writes_the_same_way(tmp_path, capsys):
    from pirc.cli.patch import run as pirc_patch

    missing = tmp_path / "no" / "draft.yaml"
    assert pirc_patch(["diff", "3", "4", "-o", str(missing)]) == 1
    assert "does not exist" in one_error_line(capsys.readouterr().err, missing)
    null = make_device(tmp_path / "mynull", NULL)
    assert pirc_patch(["diff", "3", "4", "-o", str(null)]) == 0
    assert_device(null, NULL)


def test_two_outputs_naming_one_file_are_refused(tmp_path, capsys):
    out = tmp_path / "same.json"
    link = tmp_path / "link.json"
    link.symlink_to(out)
    assert opt_mlp("-o", str(out), "--pass-report", str(link)) == 1
    line = one_error_line(capsys.readouterr().err, link)
    assert f"name the same file (also given as {out})" in line
    assert not out.exists()


# -- a failing command writes none of its outputs ---------------------------------------------


def test_a_failing_pass_writes_no_output_but_its_reproducer(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kept.pir").write_text("the old output\n")
    status = pirc_opt([str(MLP), "-p", "cse,test-breaks-verifier", "--params", str(MLP_PARAMS),
                       "--params-out", "o.pdiparams", "--pass-report", "r.json", "-o", "kept.pir",
                       "--crash-reproducer", "crash.pir"])
    assert status == 1
    assert "broke the invariant 'verified'" in capsys.readouterr().err
    assert (tmp_path / "kept.pir").read_text() == "the old output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crash.pir", "kept.pir"]


def test_a_failing_split_input_writes_nothing(tmp_path, capsys):
    source = tmp_path / "two.pir"
    source.write_text(SMALL.read_text() + "// -----\n{\n  (%0) = \"pd_op.nope\" () {} : () -> tensor<f32>\n}\n")
    out = tmp_path / "out.pir"
    assert pirc_opt([str(source), "--from-version=4", "--split-input-file", "--strict", "-o", str(out)]) == 1
    assert not out.exists() and temp_files(tmp_path) == []


def test_stdout_output_waits_for_the_other_outputs(tmp_path, capsys):
    """`-o -` with a --params-out that cannot be written: no program on stdout either."""
    full = make_device(tmp_path / "myfull", FULL)
    assert opt_mlp("--emit=pir", "--params-out", str(full)) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "No space left on device" in one_error_line(captured.err, full)


# -- the Python API ---------------------------------------------------------------------------


def test_python_api_writes_the_same_way(tmp_path, umask):
    umask(0o022)
    program = pirc.load(str(SMALL), from_version=4)
    target = tmp_path / "t.pir"
    target.write_text("old\n")
    target.chmod(0o600)
    link = tmp_path / "l.pir"
    link.symlink_to(target)
    pirc.save(program, str(link))
    assert link.is_symlink() and target.read_text() == expected_text()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    pirc.save(program, str(tmp_path / "new.json"))
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o644
    with pytest.raises(OutputError, match="does not exist") as raised:
        pirc.save(program, str(tmp_path / "missing" / "x.pir"))
    assert raised.value.render().startswith(f"{tmp_path / 'missing' / 'x.pir'}: error: ")
    with pytest.raises(OutputError, match="it is a folder"):
        pirc.save(program, str(tmp_path))
    mlp = pirc.load(str(MLP))
    params = pirc.read_params(str(MLP_PARAMS), mlp)
    null = make_device(tmp_path / "mynull", NULL)
    pirc.save(program, str(null))
    pirc.write_params(str(null), params, mlp)
    assert_device(null, NULL)
    assert temp_files(tmp_path) == []
