"""Saving crash classes: one folder per signature, with the minimized input and how to replay it.

    OUT/<front>/<slug>-<hash>/
        input.<ext>      the minimized input (the original too, as original.<ext>, if it differs)
        case.json        front end, --from-version / patch version / program, seed and index
        report.txt       signature, how many inputs hit it, the replay command, the traceback

A folder that already exists is kept (a class is saved once, by the first run that finds it);
its report's count is updated.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .cases import BINARY, EXTENSIONS, Case
from .signature import slug

REPLAY = "python -m tools.fuzz replay {}"


def class_dir(out: Path, front: str, sig: str) -> Path:
    digest = hashlib.sha1(sig.encode()).hexdigest()[:8]
    return out / front / f"{slug(sig)}-{digest}"


def save_class(out: Path, sig: str, count: int, original: Case, small: Case, traceback: str,
               original_traceback: str, minimized: bool) -> Path:
    folder = class_dir(out, original.front, sig)
    ext = EXTENSIONS[original.front]
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / f"input{ext}", small.data, original.front)
    if small.data != original.data and len(original.data) < 2_000_000:
        _write(folder / f"original{ext}", original.data, original.front)
    (folder / "case.json").write_text(json.dumps(small.options(), indent=1) + "\n")
    replay = REPLAY.format(folder / f"input{ext}")
    lines = [
        f"signature: {sig}",
        f"count: {count} inputs of this run",
        f"front end: {original.front}",
        f"seed: {original.origin.get('seed')}  index: {original.origin.get('index')}",
        f"seed file: {original.origin.get('seed_file')}",
        f"mutators: {', '.join(original.origin.get('mutators', [])) or '-'}",
    ]
    if original.front == "text":
        lines.append(f"--from-version: {original.from_version}")
    if original.front == "yaml":
        lines.append(f"applied as: {original.patch_version}.yaml to {original.program}")
    lines += [
        f"input: {len(small.data)} characters" + (f" (minimized from {len(original.data)})" if minimized
                                                   else " (not minimized)"),
        f"replay: {replay}",
        "",
        traceback.rstrip(),
    ]
    if original_traceback and original_traceback != traceback and minimized:
        lines += ["", "--- on the original input:", original_traceback.rstrip()]
    (folder / "report.txt").write_text("\n".join(lines) + "\n", encoding="utf-8", errors="replace")
    return folder


def _write(path: Path, data: str, front: str = "text") -> None:
    if front in BINARY:
        path.write_bytes(data.encode("latin-1"))
    else:
        path.write_text(data, encoding="utf-8", errors="surrogatepass")


def load_case(path: Path, front: str | None = None, from_version: int | None = None,
              patch_version: int | None = None, program: str | None = None) -> Case:
    """A saved input (its case.json beside it, or FILE.case.json as `case -o FILE` writes), or
    any file with the front end given or guessed."""
    path = Path(path)
    if path.is_dir():
        inputs = sorted(path.glob("input.*"))
        if not inputs:
            raise FileNotFoundError(f"{path}: no input.* in this folder")
        path = inputs[0]
    options = {}
    sidecar = path.parent / "case.json" if path.name.startswith("input.") else Path(str(path) + ".case.json")
    if sidecar.is_file():  # `case.json` beside a saved input, FILE.case.json beside `case -o FILE`
        options = json.loads(sidecar.read_text())
    if (front or options.get("front")) in BINARY or path.suffix in (".npz", ".npy", ".pdiparams"):
        data = path.read_bytes().decode("latin-1")
        options.setdefault("front", "params" if path.suffix == ".pdiparams" else "inputs")
    else:
        data = path.read_text(encoding="utf-8", errors="surrogatepass")
    if front is not None:
        options["front"] = front
    if "front" not in options:
        name = path.name
        options["front"] = "json" if name.endswith(".json") else "yaml" if name.endswith((".yaml", ".yml")) \
            else "text"
    for key, value in (("from_version", from_version), ("patch_version", patch_version), ("program", program)):
        if value is not None:
            options[key] = value
    return Case.from_options(data, options)
