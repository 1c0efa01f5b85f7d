"""The build of the server's package, its rules engine (``domain/``) compiled with mypyc where it can be.

Project metadata lives in pyproject.toml; this file only adds the compiled modules, as mypy's
own build does. ``GAMES_USE_MYPYC`` chooses (as ``MYPY_USE_MYPYC`` does for mypy):

- unset: compile where mypyc (a build requirement) and a C compiler with Python's headers are
  found, else build the pure-Python package;
- ``1``: compile, and fail when it cannot;
- ``0``: the pure-Python package.

An editable install (``pip install -e .``) is always pure: the sources are what runs, and no
build output is ever written beside them. The choice is printed (``pip install -v`` shows it)
and written to ``build/engine.txt``, which ``make`` prints. The installed package says which
engine runs: ``domain.engine()``, and ``GET /health``'s ``engine``.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent

#: Modules left interpreted. Those of the kernel's classes that a game subclasses and that are
#: not native (``GameOptions``, ``DomainError``): a game written in plain Python (the test
#: games, the next game while it is written) subclasses them, and a compiled method of a
#: Python-like class refuses an instance of a subclass mypyc did not compile. (``Step``,
#: ``StepRules``, ``Flow`` and ``Rng`` are compiled as native classes that allow such
#: subclasses: the kernel calls their methods as C calls, and a plain subclass's overrides
#: through Python.)
#: The bots, samplers and clocks: not on a command's path, and written with closures in
#: methods, which mypyc does not compile. And the root package's ``__init__``: import-linter
#: finds ``domain`` by its source, and ``domain.engine()`` asks a compiled module, not itself.
INTERPRETED = {"domain/__init__.py", "domain/kernel/errors.py", "domain/kernel/rules.py",
               "domain/kernel/bots.py", "domain/kernel/sampling.py", "domain/kernel/arena.py",
               "domain/kernel/clocks.py", "domain/kernel/fairness.py",
               "domain/games/dynasties/bots.py", "domain/games/pax_pamir/bots.py"}

#: the setup.py commands that build code (metadata-only runs, as pip's first steps, compile nothing)
BUILDING = {"bdist_wheel", "build", "build_ext", "install"}


def compiled_sources() -> list[str]:
    """The ``domain`` sources mypyc compiles, relative to the project's root."""
    sources = (path.relative_to(ROOT).as_posix() for path in (ROOT / "domain").rglob("*.py"))
    return sorted(source for source in sources if source not in INTERPRETED)


def _compiler_missing() -> str | None:
    """Why no C extension can be built here (compiler or Python headers), or None: a probe
    compiles a file that includes Python.h, as the real build will."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.errors import CCompilerError, DistutilsError
    from setuptools._distutils.sysconfig import customize_compiler

    compiler = new_compiler()
    customize_compiler(compiler)
    with tempfile.TemporaryDirectory() as work:
        probe = Path(work) / "probe.c"
        probe.write_text("#include <Python.h>\nint probe(void) { return 0; }\n")
        try:
            compiler.compile([str(probe)], output_dir=work, include_dirs=[sysconfig.get_paths()["include"]])
        except (CCompilerError, DistutilsError, OSError) as exc:
            return f"no working C compiler with Python's headers ({' '.join(compiler.compiler_so[:1])}: " \
                   f"{str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__})"
    return None


def why_pure() -> str | None:
    """Why this build installs the pure-Python engine, or None when it compiles."""
    choice = os.environ.get("GAMES_USE_MYPYC", "")
    if choice not in ("", "0", "1"):
        raise SystemExit(f"GAMES_USE_MYPYC must be 0 or 1 (or unset), not {choice!r}")
    if choice == "0":
        return "GAMES_USE_MYPYC=0"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        reason = "mypyc is not installed (it comes with mypy, a build requirement)"
    else:
        reason = _compiler_missing()
    if reason is not None and choice == "1":
        raise SystemExit(f"GAMES_USE_MYPYC=1 but the engine cannot be compiled: {reason}")
    return reason


def say(line: str) -> None:
    print(f"games-build: {line}", file=sys.stderr, flush=True)
    (ROOT / "build").mkdir(exist_ok=True)
    (ROOT / "build" / "engine.txt").write_text(line + "\n")


def extensions() -> list:
    if not BUILDING.intersection(sys.argv):
        return []
    reason = why_pure()
    if reason is not None:
        say(f"the rules engine is pure Python ({reason}): the same rules, about a third of the speed")
        return []
    from mypyc.build import mypycify

    sources = compiled_sources()
    say(f"the rules engine is compiled with mypyc ({len(sources)} modules of domain/)")
    # mypy's settings come from pyproject.toml; only domain/ is checked here, so its sections for
    # the other packages are unused, which is no error for a build
    return mypycify([*sources, "--no-warn-unused-configs"], opt_level="3", target_dir="build/mypyc")


setup(ext_modules=extensions())
