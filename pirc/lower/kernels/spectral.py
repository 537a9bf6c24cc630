"""Spectral ops: fft_c2c, fft_r2c, fft_c2r, stft, frame, overlap_add.

Paddle's FFT kernels (phi/kernels/cpu/fft_kernel.cc over pocketfft) take the norm mode the
user gave ("backward", "forward", "ortho") and a `forward` flag; the scale they apply is
torch.fft's for the same (norm, direction), so each op is one torch.fft call.  The `n`/`s`
of the Python API are pads and slices around the op, so only fft_c2r's `last_dim_size`
reaches a kernel.  pocketfft and torch's FFT (MKL or pocketfft) order the butterflies
differently: equal to rounding, not bit for bit.
"""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY


def _axes(axes, rank: int) -> list[int]:
    return [a + rank if a < 0 else a for a in axes]


@REGISTRY.register("pd_op.fft_c2c", since=1)
def fft_c2c(x, *, axes=(), normalization="backward", forward=True):
    if x.numel() == 0:
        return x.clone()       # torch's MKL FFT refuses a zero-size batch; Paddle answers empty
    fn = torch.fft.fftn if forward else torch.fft.ifftn
    return fn(x, dim=_axes(axes, x.dim()), norm=normalization)


@REGISTRY.register("pd_op.fft_r2c", since=1)
def fft_r2c(x, *, axes=(), normalization="backward", forward=True, onesided=True):
    # forward=False is ihfft: the conjugate of the one-sided forward transform, scaled as an
    # inverse transform; onesided=False keeps the whole spectrum of the real input.
    dims = _axes(axes, x.dim())
    if not onesided:
        fn = torch.fft.fftn if forward else torch.fft.ifftn
        return fn(x.to(torch.complex128 if x.dtype == torch.float64 else torch.complex64),
                  dim=dims, norm=normalization)
    fn = torch.fft.rfftn if forward else torch.fft.ihfftn
    return fn(x, dim=dims, norm=normalization).resolve_conj()  # ihfftn answers a conj view


@REGISTRY.register("pd_op.fft_c2r", since=1)
def fft_c2r(x, *, axes=(), normalization="backward", forward=False, last_dim_size=0):
    # forward=True is hfft (the Hermitian input's forward transform, real output).
    dims = _axes(axes, x.dim())
    last = last_dim_size or 2 * (x.shape[dims[-1]] - 1)
    s = [x.shape[d] for d in dims[:-1]] + [last]
    fn = torch.fft.hfftn if forward else torch.fft.irfftn
    return fn(x, s=s, dim=dims, norm=normalization)


def _frames(x, frame_length: int, hop_length: int, axis: int):
    """[..., T] -> [..., frame_length, n] (axis -1); [T, ...] -> [n, frame_length, ...] (0)."""
    if axis == 0:
        return x.unfold(0, frame_length, hop_length).movedim(-1, 1)
    return x.unfold(-1, frame_length, hop_length).transpose(-1, -2)


@REGISTRY.register("pd_op.frame", since=1)
def frame(x, *, frame_length=1, hop_length=1, axis=-1):
    return _frames(x, frame_length, hop_length, axis).contiguous()


@REGISTRY.register("pd_op.overlap_add", since=1)
def overlap_add(x, *, hop_length=1, axis=-1):
    """[..., frame_length, n] -> [..., (n - 1) * hop + frame_length] (axis -1; axis 0 is
    [n, frame_length, ...] -> [seq, ...]): frames added in frame order onto zeros, as
    Paddle's OverlapAddFunctor does."""
    if axis == 0:
        x = x.movedim(0, -1).movedim(0, -2)        # [..., frame_length, n]
    fl, n = x.shape[-2], x.shape[-1]
    out = x.new_zeros(x.shape[:-2] + ((n - 1) * hop_length + fl,))
    for f in range(n):
        start = f * hop_length
        out[..., start:start + fl] += x[..., f]
    return out.movedim(-1, 0) if axis == 0 else out


@REGISTRY.register("pd_op.stft", since=1)
def stft(x, window, *, n_fft=0, hop_length=1, normalized=False, onesided=True):
    """x [N, T] -> [N, n_fft // 2 + 1 (onesided) or n_fft, frames]: phi's StftKernel frames
    x (no centring or padding: paddle.signal.stft pads before calling it), multiplies each
    frame by the window and takes the real FFT of each frame, "ortho"-scaled if normalized."""
    frames = _frames(x, n_fft, hop_length, -1) * window.unsqueeze(-1)   # [N, n_fft, n]
    norm = "ortho" if normalized else "backward"
    if onesided:
        return torch.fft.rfft(frames, dim=1, norm=norm)
    return torch.fft.fft(frames, dim=1, norm=norm)
