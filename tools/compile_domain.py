"""Compile the rules engine (``domain/``) with mypyc, in place; or remove what it built.

    .venv/bin/python tools/compile_domain.py            # build the .so files beside the sources
    .venv/bin/python tools/compile_domain.py --clean    # remove them: the pure-Python engine again
    .venv/bin/python tools/compile_domain.py --check    # say which engine an import gets

The compiled modules are C extensions that Python imports instead of the ``.py`` files beside
them (an extension module wins over a source file in the same folder). They are build output
(gitignored), never committed. Without mypyc or a C compiler this prints why and exits 0: the
pure-Python sources are the same engine, only slower (``make compile`` tolerates any failure
for the same reason). ``COMPILED_MODULES`` is the list compiled; the rest of ``domain/``
(bots, samplers, clocks: code that is not on the path of a command) stays interpreted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "mypyc"

#: Modules left interpreted. Those of the kernel's classes that a game subclasses and that are
#: not native (``GameOptions``, ``DomainError``): a game written in plain Python (the test
#: games, the next game while it is written) subclasses them, and a compiled method of a
#: Python-like class refuses an instance of a subclass mypyc did not compile. (``Step``,
#: ``StepRules``, ``Flow`` and ``Rng`` are compiled as native classes that allow such
#: subclasses: the kernel calls their methods as C calls, and a plain subclass's overrides
#: through Python.)
#: The bots, samplers and clocks: not on a command's path, and written with closures in
#: methods, which mypyc does not compile. And the root package's ``__init__``: import-linter
#: (``make lint``) finds ``domain`` by its source.
INTERPRETED = {"domain/__init__.py", "domain/kernel/errors.py", "domain/kernel/rules.py",
               "domain/kernel/bots.py", "domain/kernel/sampling.py", "domain/kernel/arena.py",
               "domain/kernel/clocks.py", "domain/kernel/fairness.py",
               "domain/games/dynasties/bots.py", "domain/games/pax_pamir/bots.py"}


def compiled_sources() -> list[str]:
    """The ``domain`` sources mypyc compiles, relative to the checkout."""
    sources = (str(path.relative_to(ROOT)) for path in (ROOT / "domain").rglob("*.py"))
    return sorted(source for source in sources if source not in INTERPRETED)


def built_files() -> list[Path]:
    """What a build left in the tree: one extension per compiled module and the shared library."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    found = [path for path in (ROOT / "domain").rglob(f"*{suffix}")]
    found += [path for path in ROOT.glob(f"*__mypyc{suffix}")]
    return sorted(found)


def clean() -> None:
    for path in built_files():
        path.unlink()
    shutil.rmtree(BUILD, ignore_errors=True)


def why_not() -> str | None:
    """Why no compiled engine can be built here, or None when it can."""
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return "mypyc is not installed (it comes with the dev dependencies: mypy)"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None and shutil.which(os.environ.get("CC", "cc")) is None:
        return f"no C compiler ({compiler}) on PATH"
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").exists():
        return f"no Python headers ({include}/Python.h)"
    return None


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import Distribution

    os.chdir(ROOT)
    clean()
    started = time.monotonic()
    # mypy's own settings come from pyproject.toml; the checked files are only domain/ here, so
    # the sections for the other packages are unused, which is no error for a build
    extensions = mypycify([*compiled_sources(), "--no-warn-unused-configs"], opt_level="3",
                          target_dir=str(BUILD), verbose=False)
    # a Distribution without ``setup()``'s reading of pyproject.toml: only the extensions
    dist = Distribution({"name": "domain-compiled", "ext_modules": extensions,
                         "script_args": ["build_ext", "--inplace", "--build-temp", str(BUILD / "temp"),
                                         "--parallel", str(os.cpu_count() or 1)]})
    dist.parse_command_line()
    dist.run_commands()
    print(f"compile: {len(extensions) and len(compiled_sources())} domain modules compiled with mypyc "
          f"in {time.monotonic() - started:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--check", action="store_true", help="say whether the engine imported is compiled")
    args = parser.parse_args()
    if args.clean:
        clean()
        print("compile: removed the compiled modules; the engine is pure Python")
        return 0
    if args.check:
        sys.path.insert(0, str(ROOT))
        import domain.kernel.prompt as engine

        print("compiled" if not engine.__file__ or not engine.__file__.endswith(".py") else "pure")
        return 0
    reason = why_not()
    if reason is not None:
        print(f"compile: skipped, {reason}; the engine runs as pure Python (slower, same rules)")
        return 0
    build()
    return 0


if __name__ == "__main__":
    sys.exit(main())
