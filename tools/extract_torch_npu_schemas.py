"""Extract the `torch.ops.npu` op schemas from torch_npu wheels into pirc/lower/npu/schemas/.

    pip download torch_npu==2.14.0 --no-deps -d /tmp/npuwheels \
        --python-version 3.11 --platform manylinux_2_28_x86_64 --only-binary=:all:
    python3 tools/extract_torch_npu_schemas.py /tmp/npuwheels/torch_npu-2.14.0-*.whl ...

Reads the wheel as a zip (never installs it): the `custom`, `autograd` and `quant` sections of
torch_npu/csrc/aten/npu_native_functions*.yaml hold the schemas torch_npu registers in the `npu`
namespace (copied to `torch_npu.<name>`). Writes one schema per line, sorted, under a header
naming the wheel, its sha256, its git_version and its torch pin.
"""

from __future__ import annotations

import hashlib
import re
import sys
import zipfile
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parent.parent / "pirc" / "lower" / "npu" / "schemas"
YAMLS = ("torch_npu/csrc/aten/npu_native_functions.yaml",
         "torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml")
SECTIONS = ("custom", "autograd", "quant")


def extract(wheel: Path) -> tuple[str, str]:
    z = zipfile.ZipFile(wheel)
    version_py = z.read("torch_npu/version.py").decode()
    version = re.search(r"__version__ = '([^']+)'", version_py).group(1)
    git = re.search(r"git_version = '([^']+)'", version_py).group(1)
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    pins = [l.split(":", 1)[1].strip() for l in z.read(meta).decode().splitlines()
            if l.startswith("Requires-Dist: torch")]
    funcs = set()
    for name in YAMLS:
        doc = yaml.safe_load(z.read(name))
        for section in SECTIONS:
            for entry in doc.get(section) or []:
                if isinstance(entry, dict) and "func" in entry:
                    funcs.add(" ".join(entry["func"].split()))
    sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
    header = [f"# torch_npu {version} op schemas (torch.ops.npu), extracted by "
              "tools/extract_torch_npu_schemas.py",
              f"# wheel: {wheel.name}", f"# sha256: {sha}", f"# git_version: {git}",
              f"# requires: {', '.join(pins)}", f"# sections: {', '.join(SECTIONS)} of "
              + ", ".join(Path(y).name for y in YAMLS)]
    return version, "\n".join(header + sorted(funcs)) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    for arg in argv:
        version, text = extract(Path(arg))
        target = OUT / f"torch_npu-{version}.txt"
        target.write_text(text)
        print(f"{target}: {text.count(chr(10)) - 6} schemas")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
