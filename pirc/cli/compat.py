"""`pirc-compat`: the compat registry of torch / torch_npu API differences.

    pirc-compat list              every key, its sides, and which side the running torch takes
    pirc-compat check [PATH...]   read the @compat_impl decorators from source (pirc/ by default)
                                  without importing torch; list every stale side at once, exit 1
                                  if there is any
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

from ..errors import PircError, render_diagnostic
from .exit_status import report_errors
from .version_flag import add_version_flag

PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def _version_text(v) -> str:
    return f"{v[0]}.{v[1]}"


def _read_minimum() -> tuple[int, int]:
    """MIN_TORCH from pirc/compat/torch_versions.py, read as source (no imports)."""
    tree = ast.parse((PACKAGE_ROOT / "compat" / "torch_versions.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "MIN_TORCH":
            return tuple(ast.literal_eval(node.value))
    raise PircError("pirc/compat/torch_versions.py defines no MIN_TORCH")


def decorated_sides(path: Path):
    """(line, key, condition, value) of every @compat_impl(...) decorator in a Python file."""
    try:
        tree = ast.parse(path.read_text(), filename=str(path))
    except SyntaxError as e:
        error = PircError(f"cannot parse: {e.msg}").in_file(str(path))
        error.line = e.lineno or 0
        raise error from None
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for dec in node.decorator_list:
            if not isinstance(dec, ast.Call):
                continue
            name = dec.func.attr if isinstance(dec.func, ast.Attribute) else getattr(dec.func, "id", "")
            if name != "compat_impl":
                continue
            kw = {k.arg: k.value for k in dec.keywords}
            try:
                key = ast.literal_eval(kw["key"]) if "key" in kw else None
            except ValueError:
                key = None
            for cond in ("ge", "lt"):
                if cond in kw:
                    try:
                        value = ast.literal_eval(kw[cond])
                    except ValueError:
                        value = None
                    yield dec.lineno, key, cond, value, node.name


def _python_files(paths):
    for p in paths:
        p = Path(p)
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*.py") if "__pycache__" not in q.parts)
        else:
            yield p


def run_check(args) -> int:
    minimum = _read_minimum() if args.min_torch is None else _parse_min(args.min_torch)
    paths = args.paths or [PACKAGE_ROOT]
    stale, count = [], 0
    for path in _python_files(paths):
        for line, key, cond, value, fn in decorated_sides(path):
            count += 1
            if isinstance(value, tuple) and len(value) == 2 and value <= minimum:
                stale.append(render_diagnostic(
                    "error", f"stale compat side: key '{key}' {cond}={_version_text(value)} ({fn}) "
                    f"is at or below the minimum supported torch {_version_text(minimum)}: delete "
                    "the key and keep the side every supported torch takes", str(path), line))
    for s in stale:
        print(s, file=sys.stderr)
    print(f"{count} version side{'s' if count != 1 else ''} checked against minimum torch "
          f"{_version_text(minimum)}: {len(stale)} stale")
    return 1 if stale else 0


def _parse_min(text: str) -> tuple[int, int]:
    from ..compat.torch_versions import parse_version
    try:
        return parse_version(text + ".0")
    except (ValueError, IndexError):
        raise PircError(f"--min-torch={text!r}: expected MAJOR.MINOR, e.g. 2.13") from None


def run_list(args) -> int:
    import importlib
    from ..compat import COMPAT_MODULES, compat_impl_container as registry
    from ..compat.torch_versions import installed_version
    for module in COMPAT_MODULES:
        importlib.import_module(module)
    npu = installed_version("torch_npu")
    print(f"torch {_version_text(registry.current)}; torch_npu "
          f"{_version_text(npu) if npu else 'not installed'}; minimum supported torch "
          f"{_version_text(registry.minimum)}")
    for key in registry:
        point = registry[key]
        active = point.active()
        print(f"{key}:")
        for side in point.sides:
            mark = "*" if side is active else " "
            print(f"  {mark} {side.describe()}")
        if active is None:
            print("    (no side matches this torch)")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="pirc-compat", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="every key, its sides, and the active side")
    check = sub.add_parser("check", help="list stale sides, reading source without importing torch")
    check.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: pirc/)")
    check.add_argument("--min-torch", metavar="X.Y",
                       help="judge against this minimum instead of pirc's MIN_TORCH")
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    add_version_flag(parser)
    args = parser.parse_args(argv)
    return report_errors(lambda: run_list(args) if args.command == "list" else run_check(args), args.debug)


if __name__ == "__main__":
    sys.exit(main())
