"""Writing output files safely: what a path names decides how it is written.

Every file pirc writes as an output (`-o`, `--outputs`, `--pass-report`, `--params-out`,
`pirc.save`, `pirc.write_params`) goes through here.  The target is classified after
following symlinks:

- a regular file, or a path that does not exist yet: written to a temp file in the target's
  folder, then renamed over it in one step, so a reader never sees half a file and a failure
  never touches the old one.  An existing file keeps its mode (and, where allowed, its owner);
  a new one is created `0666 & ~umask`, as a shell's `>` creates it;
- a symlink is followed: its target is replaced, the link stays a link;
- anything that is not a regular file (a device such as /dev/null, a FIFO, a socket) and
  anything reached through a process's fd folder (`/dev/stdout`, `/dev/fd/N`,
  `/proc/self/fd/N`) is written directly (open + write): renaming over it would replace
  the device node or the pipe with a file;
- a missing folder, or a folder as the target, is an OutputError naming the path, raised
  before anything is written.

A command with several outputs stages them in one OutputSet and writes them together at
the end, only when it succeeds: a failing command writes none of its outputs.  Diagnostic
files (a crash reproducer) are written because the command failed: `write_diagnostic`
writes them at once, outside the set.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable
from contextvars import ContextVar

from .errors import PircError

# A direct target's bytes wait here until the command succeeds: in memory up to this size,
# then in an anonymous temp file (a large JSON to /dev/stdout must not fill the memory).
_SPOOL_IN_MEMORY = 32 * 1024 * 1024

# The fd folder of a process (/proc/self/fd resolves to /proc/PID/fd, /dev/fd to it too):
# a name in it is an open file of that process, never a path to rename over.
_FD_FOLDER = re.compile(r"/proc/(\d+|self|thread-self)(/task/\d+)?/fd")

_ACTIVE: ContextVar["OutputSet | None"] = ContextVar("pirc_output_set", default=None)


class OutputError(PircError):
    """An output path pirc cannot write: `PATH: error: ...`, exit 1."""

    def __init__(self, message: str, path: str):
        super().__init__(message)
        self.message = message
        self.filename = path

    def __str__(self) -> str:  # plain words for a note or a Python caller: PATH: MESSAGE
        return f"{self.filename}: {self.message}" if self.filename else self.message


class Target:
    """Where the bytes for `path` (as given) end up: `real` (symlinks followed), and how:
    `direct` (open + write; `fd` when it is one of this process's open files) or a rename
    over `real`, keeping `mode` / `owner` when it exists."""

    def __init__(self, path: str, real: str, direct: bool, fd: int | None = None,
                 existing: os.stat_result | None = None):
        self.path, self.real, self.direct, self.fd, self.existing = path, real, direct, fd, existing

    @property
    def key(self):
        """Two outputs with one key write the same file."""
        return ("fd", self.fd) if self.fd is not None else ("path", self.real)


def classify(path: str) -> Target:
    """How `path` is written (module docstring); OutputError for a missing folder or a folder."""
    if not path:
        raise OutputError("an output path is empty", path)
    if path.endswith(os.sep):
        raise OutputError("cannot write this output: it names a folder (it ends in /); give a file path",
                          path)
    current = os.path.abspath(path)
    for _ in range(64):  # the kernel's own limit on a symlink chain is 40
        folder = os.path.realpath(os.path.dirname(current))
        name = os.path.basename(current)
        if _FD_FOLDER.fullmatch(folder):
            return _fd_target(path, folder, name)
        if not os.path.isdir(folder):
            what = "is not a folder" if os.path.exists(folder) else "does not exist"
            raise OutputError(f"cannot write this output: the folder {_shown(folder, path)} {what}; "
                              f"create the folder first or write elsewhere", path)
        current = os.path.join(folder, name)
        if not os.path.islink(current):
            break
        current = os.path.join(folder, os.readlink(current))
    else:
        raise OutputError("cannot write this output: too many levels of symbolic links", path)
    try:
        info = os.stat(current)
    except FileNotFoundError:
        return Target(path, current, direct=False)
    except OSError as e:
        raise OutputError(f"cannot write this output: {e.strerror}", path) from None
    if stat.S_ISDIR(info.st_mode):
        where = "" if current == os.path.abspath(path) else f" ({current})"
        raise OutputError(f"cannot write this output: it is a folder{where}; give a file path", path)
    return Target(path, current, direct=not stat.S_ISREG(info.st_mode), existing=info)


def _fd_target(path: str, folder: str, name: str) -> Target:
    """A name in a process's fd folder: this process's own descriptor is written as it
    stands (at its offset, as `>> log` left it); another process's is opened."""
    pid = _FD_FOLDER.fullmatch(folder).group(1)
    own = pid in ("self", "thread-self") or int(pid) == os.getpid()
    fd = int(name) if own and name.isdigit() else None
    real = os.path.join(folder, name)
    try:
        os.fstat(fd) if fd is not None else os.stat(real)
    except OSError:
        raise OutputError(f"cannot write this output: {real} is no open file of "
                          f"{'this process' if own else 'process ' + pid}", path) from None
    return Target(path, real, direct=True, fd=fd)


def _shown(folder: str, path: str) -> str:
    """The folder as the user wrote it, when the path they gave names it."""
    given = os.path.dirname(path)
    return given if given and os.path.realpath(given) == folder else folder


class _Staged:
    """One output waiting for the end of its command: a temp file next to the target, or
    the bytes for a direct target."""

    def __init__(self, target: Target, temp: str | None = None, spool=None):
        self.target, self.temp, self.spool = target, temp, spool


class OutputSet:
    """The outputs of one command, written together when it succeeds.

        with OutputSet() as outputs:
            outputs.check(args.output, args.pass_report)   # before any work: exit 1 early
            ...                                             # write_atomically(...) stages
            outputs.commit()                                # all at once, at the end
    Leaving the block without `commit()` (an error, a failing exit status) removes every
    staged file: none of the outputs is written.  While the block is open,
    `write_atomically` and `write_stdout` stage into it."""

    def __init__(self):
        self._staged: list[_Staged] = []
        self._token = None

    def __enter__(self) -> "OutputSet":
        self._token = _ACTIVE.set(self)
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.reset(self._token)
        self.discard()

    def check(self, *paths: str | None) -> None:
        """Classify each output path now (None and "-" are not files): a missing folder or a
        folder is an OutputError before anything runs or is written."""
        seen = {}
        for path in paths:
            if path is None or path == "-":
                continue
            target = classify(path)
            if target.key in seen and not target.direct:
                also = "" if seen[target.key] == path else f" (also given as {seen[target.key]})"
                raise OutputError(f"two outputs of this command name the same file{also}; "
                                  f"give each its own path", path)
            seen[target.key] = path

    def stage(self, path: str, pieces: Iterable[str | bytes], binary: bool = False) -> None:
        """Write the pieces where `path` will get them at `commit()`."""
        target = classify(path)
        if target.direct:
            spool = tempfile.SpooledTemporaryFile(_SPOOL_IN_MEMORY)
            try:
                _copy_pieces(pieces, spool, binary)
            except BaseException:
                spool.close()
                raise
            self._staged.append(_Staged(target, spool=spool))
        else:
            self._staged.append(_Staged(target, temp=_write_temp(target, pieces, binary)))

    def stage_stdout(self, pieces: Iterable[str]) -> None:
        """Text for stdout (`-o -`), written at `commit()` with the files."""
        # text, written back through sys.stdout: its encoding and buffer, as before staging
        spool = tempfile.SpooledTemporaryFile(_SPOOL_IN_MEMORY, mode="w+", encoding="utf-8",
                                              errors="surrogatepass")
        try:
            for piece in pieces:
                spool.write(piece)
        except BaseException:
            spool.close()
            raise
        self._staged.append(_Staged(None, spool=spool))

    def commit(self) -> None:
        """Write every staged output: the direct ones first (a device that refuses its bytes,
        such as /dev/full, is the likely failure, and then no file is renamed), then each
        temp file renamed over its target."""
        staged, self._staged = self._staged, []
        try:
            for item in staged:
                if item.spool is not None:
                    _write_spool(item)
            for item in staged:
                if item.temp is not None:
                    _rename(item)
                    item.temp = None
        finally:
            self._staged = staged
            self.discard()

    def discard(self) -> None:
        """Remove every staged output unwritten."""
        staged, self._staged = self._staged, []
        for item in staged:
            if item.spool is not None:
                item.spool.close()
            if item.temp is not None:
                try:
                    os.unlink(item.temp)
                except FileNotFoundError:
                    pass


def run_staged(command: Callable[[], int], *paths: str | None) -> int:
    """Run a command (it returns an exit status) with its outputs staged: `paths` checked
    first, everything it writes with write_atomically / write_stdout written at the end when
    it returns 0, nothing written otherwise."""
    with OutputSet() as outputs:
        outputs.check(*paths)
        status = command()
        if status == 0:
            outputs.commit()
        return status


def write_atomically(path: str, pieces: Iterable[str | bytes], *, binary: bool = False) -> None:
    """Write the pieces, in order, to `path` (str pieces as UTF-8, unless `binary`), as the
    module docstring says: staged in the command's OutputSet when one is open, else now."""
    active = _ACTIVE.get()
    if active is not None:
        active.stage(path, pieces, binary)
        return
    write_now(path, pieces, binary=binary)


def write_now(path: str, pieces: Iterable[str | bytes], *, binary: bool = False) -> None:
    """Write `path` at once, outside any OutputSet (the same classification and safety)."""
    outputs = OutputSet()
    outputs.stage(path, pieces, binary)
    try:
        outputs.commit()
    finally:
        outputs.discard()


def write_diagnostic(path: str, pieces: Iterable[str | bytes], *, binary: bool = False) -> None:
    """A file written because the command failed (a crash reproducer): at once, even while
    the command's own outputs are staged and about to be dropped."""
    write_now(path, pieces, binary=binary)


def write_stdout(pieces: Iterable[str]) -> None:
    """Text for stdout: staged with the command's files when an OutputSet is open."""
    active = _ACTIVE.get()
    if active is not None:
        active.stage_stdout(pieces)
        return
    for piece in pieces:
        sys.stdout.write(piece)
    sys.stdout.flush()


# -- the writing itself ---------------------------------------------------------------------


def _copy_pieces(pieces, f, binary: bool) -> None:
    for piece in pieces:
        f.write(piece if binary or isinstance(piece, bytes) else piece.encode("utf-8"))


def _write_temp(target: Target, pieces, binary: bool) -> str:
    """A new file next to target.real holding the pieces, with the mode the target will
    have; its path."""
    folder, name = os.path.split(target.real)
    fd, temp = _create_temp(folder, name, target.path)
    try:
        with os.fdopen(fd, "wb") as f:
            if target.existing is not None:
                _keep_mode_and_owner(f.fileno(), target.existing)
            _copy_pieces(pieces, f, binary)
            f.flush()
            os.fsync(f.fileno())  # the rename must not publish a file whose data is not on disk
    except BaseException as e:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError):
            raise OutputError(f"cannot write this output: {e.strerror or e}", target.path) from None
        raise
    return temp


def _create_temp(folder: str, name: str, path: str) -> tuple[int, str]:
    """Create `.NAME.pirc-XXXX.tmp` in `folder` with mode 0666: the kernel applies the umask
    (and a default ACL), as it does for a shell's `>`.  mkstemp would make it 0600."""
    for _ in range(100):
        temp = os.path.join(folder, f".{name[:100]}.pirc-{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                           0o666), temp
        except FileExistsError:
            continue
        except OSError as e:
            raise OutputError(f"cannot write this output: cannot create a file in {folder}: {e.strerror}",
                              path) from None
    raise OutputError(f"cannot write this output: no free temporary name in {folder}", path)


_TEMP_NAME = re.compile(r"\..+\.pirc-[0-9a-f]{8}\.tmp")


def remove_stale_temporaries(root: str) -> int:
    """Delete the temporary files (`.NAME.pirc-XXXX.tmp`, _create_temp's) that writers killed
    before their rename left anywhere under `root`; how many.  For a folder pirc alone writes
    (pirc-migrate's OUT, when a run starts or resumes): a killed writer's file is never renamed
    over anything, so deleting it loses nothing."""
    removed = 0
    for folder, _, files in os.walk(root):
        for name in files:
            if _TEMP_NAME.fullmatch(name):
                try:
                    os.unlink(os.path.join(folder, name))
                    removed += 1
                except FileNotFoundError:
                    pass
    return removed


def _keep_mode_and_owner(fd: int, existing: os.stat_result) -> None:
    os.fchmod(fd, stat.S_IMODE(existing.st_mode))
    try:  # only root (or the owner, for the group) may; a file we may not chown becomes ours
        os.fchown(fd, existing.st_uid, existing.st_gid)
    except OSError:
        pass


def _rename(item: _Staged) -> None:
    try:
        os.replace(item.temp, item.target.real)
    except OSError as e:
        raise OutputError(f"cannot write this output: {e.strerror or e}", item.target.path) from None


def _write_spool(item: _Staged) -> None:
    item.spool.seek(0)
    if item.target is None:  # stdout
        while chunk := item.spool.read(1 << 20):
            sys.stdout.write(chunk)
        sys.stdout.flush()
        return
    target = item.target
    sys.stdout.flush()  # /dev/stdout after what print() buffered, not before
    try:
        if target.fd is not None:
            fd = os.dup(target.fd)
        else:
            # no O_CREAT: the device, FIFO or fd entry must still be there; a regular file
            # behind another process's fd entry is truncated, as a shell's `>` would
            flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
            fd = os.open(target.real, flags | (os.O_TRUNC if os.path.isfile(target.real) else 0))
        try:
            while chunk := item.spool.read(1 << 20):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view):]
        finally:
            os.close(fd)
    except OSError as e:
        raise OutputError(f"cannot write this output: {e.strerror or e}", target.path) from None
