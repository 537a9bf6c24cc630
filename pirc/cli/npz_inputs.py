"""Reading `pirc-run --inputs IN.npz`: every way the file can be wrong is one line naming it.

An .npz is a zip archive of .npy members, one per feed (np.savez).  np.load trusts what it
reads: a member whose header claims 10^12 elements is allocated before a byte of data is read
(MemoryError), a plain .npy comes back as an array instead of an archive, an encrypted or
bzip2-damaged member raises whatever its decompressor raises.  Here each member's header is
read first and its claimed size checked against the bytes the member holds and against the
inputs file limit (pirc/limits.py), so nothing is allocated for a size the file cannot back.
Big-endian arrays are converted to native order by the feed check (pirc/lower/feeds.py).
"""

from __future__ import annotations

import io
import lzma
import math
import os
import stat
import struct
import tokenize
import warnings
import zipfile
import zlib

from .. import limits
from ..errors import PircError

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a member first, or an empty archive

# What zipfile, its decompressors and numpy's .npy reader raise on a damaged member.
_MEMBER_ERRORS = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError,
                  RuntimeError, ValueError, OSError, struct.error, SyntaxError)
# What numpy's .npy header parser raises besides ValueError: the header is a Python literal
# read by ast.literal_eval, and on a SyntaxError numpy re-tokenizes it as a Python 2 header
# (tokenize.TokenError on a cut one); a set or dict literal of lists is a TypeError
# ("unhashable"), deep nesting a RecursionError or the parser's MemoryError, an absurd
# subarray shape in the descr an OverflowError from np.dtype.
_HEADER_ERRORS = (ValueError, SyntaxError, tokenize.TokenError, TypeError, OverflowError,
                  RecursionError, MemoryError, EOFError, struct.error)
# numpy's NPY_MAXDIMS: no ndarray has more dimensions (np.empty, reshape refuse them)
_NPY_MAXDIMS = 64


class InputsError(PircError):
    """An inputs file that cannot be read as feeds (the message names the file)."""


def load_inputs(path: str) -> dict:
    """name -> array for each member of the .npz at `path` (the `.npy` suffix dropped)."""
    import numpy as np

    def fail(message: str) -> InputsError:
        return InputsError(f"inputs file: {message}").in_file(path)

    try:
        source = _open(path)
    except FileNotFoundError:
        raise fail("no such file") from None
    except IsADirectoryError:
        raise fail("is a directory, expected an .npz archive (np.savez(path, FEED=array))") from None
    except OSError as e:
        raise fail(f"cannot read it: {e.strerror}") from None
    with source:
        head = source.read(6)
        source.seek(0)
        if not head:
            raise fail("the file is empty, expected an .npz archive (np.savez(path, FEED=array))")
        if head.startswith(_NPY_MAGIC):
            raise fail("a single .npy array, not an .npz archive of feeds: save it with "
                       "np.savez(path, FEED=array), FEED the pd_op.data name")
        if not head.startswith(_ZIP_MAGICS):
            raise fail("not an .npz archive (no zip signature); save the inputs with "
                       "np.savez(path, FEED=array)")
        try:
            archive = zipfile.ZipFile(source)
        except _MEMBER_ERRORS as e:  # NotImplementedError: "zip file version 15.5"
            raise fail(f"not a readable .npz (zip) archive: {e}") from None
        with archive:
            out, used = {}, 0  # bytes of the members read so far
            for index, info in enumerate(archive.infolist()):
                if not info.filename:  # ZipInfo.is_dir() would index filename[-1]
                    raise fail(f"member #{index} has an empty name; an .npz holds one "
                               "FEED.npy per feed, FEED the pd_op.data name")
                if info.is_dir():
                    continue
                if not info.filename.endswith(".npy"):
                    raise fail(f"member {info.filename!r} is not an .npy array (an .npz holds "
                               "one FEED.npy per feed)")
                key = info.filename[:-len(".npy")]
                try:
                    array = _read_member(np, archive, info, used)
                except InputsError as e:
                    raise fail(f"member {info.filename!r}: {e.bare_message}") from None
                except MemoryError:
                    raise fail(f"member {info.filename!r}: not enough memory for it") from None
                except _MEMBER_ERRORS as e:
                    raise fail(f"member {info.filename!r} cannot be read: "
                               f"{type(e).__name__}: {e}") from None
                used += array.nbytes
                out[key] = array
            return out


def _open(path: str):
    """A seekable binary file: the path itself when it is a regular file, else (a FIFO,
    /dev/stdin) its bytes read up to the inputs file limit, from this one opening (a FIFO's
    writer does not come back for a second)."""
    f = open(path, "rb")
    try:
        mode = os.fstat(f.fileno()).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory", path)
        if stat.S_ISREG(mode):
            return f
        with f:
            return io.BytesIO(limits.read_open_bounded(f, path, limits.MAX_INPUTS_BYTES, "inputs file"))
    except BaseException:
        f.close()
        raise


def _read_member(np, archive: zipfile.ZipFile, info: zipfile.ZipInfo, used: int):
    """One member's array, after checking that its header's claim fits the member and, with
    the `used` bytes of the members before it, the inputs file limit."""
    fmt = np.lib.format
    with archive.open(info) as fp:
        version = fmt.read_magic(fp)
        # versions 2.0 and 3.0 share the 4-byte header length (3.0 allows UTF-8 field names)
        read_header = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        try:
            with warnings.catch_warnings():  # "created on Python 2": read the same, say nothing
                warnings.simplefilter("ignore", UserWarning)
                shape, _fortran, dtype = read_header(fp)
        except _HEADER_ERRORS as e:
            raise InputsError(f"its .npy header cannot be read ({type(e).__name__}: "
                              f"{_one_line(e)}); the archive is damaged") from None
        if dtype.hasobject:
            raise InputsError(f"holds Python objects ({dtype}), which pirc does not unpickle; "
                              "feeds are arrays of numbers")
        data_offset = fp.tell()
    if len(shape) > _NPY_MAXDIMS:
        raise InputsError(f"its header claims {len(shape)} dimensions; numpy arrays have at "
                          f"most {_NPY_MAXDIMS}; the archive is damaged")
    if any(d < 0 for d in shape):
        raise InputsError(f"its header claims a negative dimension in {list(shape)}; "
                          "the archive is damaged")
    if math.prod(d for d in shape if d) * max(dtype.itemsize, 1) >= 1 << 63:
        # even an empty array of such a shape cannot exist (numpy counts in int64)
        raise InputsError(f"its header claims {dtype.str}{list(shape)}, whose element count or "
                          "byte size is 2^63 or more; the archive is damaged")
    claimed = math.prod(shape) * dtype.itemsize
    held = info.file_size - data_offset
    if claimed != held:
        raise InputsError(f"its header claims {dtype.str}{list(shape)} ({claimed} bytes) but the "
                          f"member holds {max(held, 0)} bytes of data; the archive is damaged")
    limit = limits.MAX_INPUTS_BYTES
    if used + claimed > limit.value():
        raise InputsError(f"{dtype.str}{list(shape)}, with the members before it: "
                          f"{limit.message(used + claimed)}")
    with archive.open(info) as fp:
        return fmt.read_array(fp, allow_pickle=False)


def _one_line(error: BaseException) -> str:
    """An exception's message on one line, cut to a readable length (numpy quotes the whole
    damaged header in its message)."""
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:200] + "..."
