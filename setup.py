"""The build of the server's package, its rules engine (``domain/``) compiled with mypyc where it can be.

Project metadata lives in pyproject.toml; this file only adds the compiled modules, as mypy's
own build does. ``GAMES_USE_MYPYC`` chooses (as ``MYPY_USE_MYPYC`` does for mypy):

- unset: compile where mypyc (a build requirement) and a C compiler with Python's headers are
  found, else build the pure-Python package;
- ``1``: compile, and fail when it cannot;
- ``0``: the pure-Python package.

Where the compiler is GCC, the compiled engine is built twice (profile-guided optimisation, as
CPython's own ``--enable-optimizations``): once instrumented, which plays a fixed set of seeded
random games of every game (``TRAINING``), then again with what those games counted, so the hot
paths of the rules are laid out and inlined for how games are played. ``GAMES_PGO`` chooses:
unset, where the compiler is GCC; ``0``, never (one compile: a faster build, a slower engine);
``1``, insist (fail where it cannot). Either way the engine's functions call one another
directly (``LOCAL_CALLS``).

An editable install (``pip install -e .``) is always pure: the sources are what runs, and no
build output is ever written beside them. The choice is printed (``pip install -v`` shows it)
and written to ``build/engine.txt``, which ``make`` prints. The installed package says which
engine runs: ``domain.engine()``, and ``GET /health``'s ``engine``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

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


def _probe(flags: tuple[str, ...] = ()) -> str | None:
    """Why a file that includes Python.h cannot be compiled here with ``flags``, or None."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.errors import CCompilerError, DistutilsError
    from setuptools._distutils.sysconfig import customize_compiler

    compiler = new_compiler()
    customize_compiler(compiler)
    with tempfile.TemporaryDirectory() as work:
        probe = Path(work) / "probe.c"
        probe.write_text("#include <Python.h>\nint probe(void) { return 0; }\n")
        try:
            compiler.compile([str(probe)], output_dir=work, include_dirs=[sysconfig.get_paths()["include"]],
                             extra_postargs=list(flags))
        except (CCompilerError, DistutilsError, OSError) as exc:
            return f"{' '.join(compiler.compiler_so[:1])}: " \
                   f"{str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__}"
    return None


def _compiler_missing() -> str | None:
    """Why no C extension can be built here (compiler or Python headers), or None: a probe
    compiles a file that includes Python.h, as the real build will."""
    failed = _probe()
    return None if failed is None else f"no working C compiler with Python's headers ({failed})"


#: Added to mypyc's flags where the compiler takes them (GCC, clang; a probe asks). The engine is one shared
#: library whose functions only it calls (each module's shim finds its init function through a
#: capsule; only the ``PyInit_`` functions are exported, as Python's headers mark them): its
#: functions are then called directly and may be inlined, where a shared library's public
#: functions are called through its symbol table and never inlined. About 15% faster games
#: (bench/results/history/51).
LOCAL_CALLS = ("-fvisibility=hidden", "-fno-semantic-interposition", "-fno-plt")


def _is_gcc() -> bool:
    """Is the C compiler GCC (whose profile options ``ProfiledBuild`` uses)? clang, even named
    ``gcc`` (macOS), takes other ones."""
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()  # (as the build finds it)
    try:
        said = subprocess.run([*compiler, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "clang" not in said.lower() and ("gcc" in said.lower() or "free software foundation" in said.lower())


def switch(name: str) -> str:
    """An environment variable that chooses: ``""`` (unset: where it can), ``"0"`` or ``"1"``."""
    choice = os.environ.get(name, "")
    if choice not in ("", "0", "1"):
        raise SystemExit(f"{name} must be 0 or 1 (or unset), not {choice!r}")
    return choice


def why_no_profile() -> str | None:
    """Why the compiled engine is built without a profile, or None when it is profiled."""
    choice = switch("GAMES_PGO")
    if choice == "0":
        return "GAMES_PGO=0"
    reason = None if _is_gcc() else "the C compiler is not GCC"
    if reason is None:
        failed = _probe(("-fprofile-generate", "-fprofile-update=single"))
        reason = None if failed is None else f"the compiler refuses -fprofile-generate ({failed})"
    if reason is not None and choice == "1":
        raise SystemExit(f"GAMES_PGO=1 but the engine cannot be built with a profile: {reason}")
    return reason


#: The games the instrumented engine plays to count its hot paths: a fixed set of seeded random
#: games of every game at several seat counts (and Wakhan's), every command chosen among ``legal_commands`` as a client
#: would (seeds far from the benches' own). It runs on the build's output only, and refuses to
#: run the sources.
TRAINING = r"""
import random
import domain.games.pax_pamir
from domain.games import default_registry
from domain.kernel.rng import Rng
assert not domain.games.pax_pamir.__file__.endswith(".py"), "the training must run the compiled engine"
registry = default_registry()
CASES = [("pax_pamir", 2, {}, 24), ("pax_pamir", 3, {}, 10), ("pax_pamir", 4, {}, 8), ("pax_pamir", 5, {}, 6),
         ("pax_pamir", 1, {"wakhan": True}, 6), ("pax_pamir", 2, {"wakhan": True}, 6),
         ("dynasties", 3, {}, 120), ("dynasties", 4, {}, 60), ("dynasties", 6, {}, 30)]
for game, seats, given, games in CASES:
    rules = registry[game]
    options = rules.check_options(given)
    for seed in range(100_000, 100_000 + games):
        choose = random.Random(seed)
        events = rules.setup(seats, options, Rng(seed, 0))
        state = None
        for event in events:
            state = rules.evolve(state, event)
        count = len(events)
        while not rules.is_over(state):
            seat = choose.choice(rules.to_move(state))
            command = choose.choice(rules.legal_commands(state, seat))
            events, state = rules.play(state, seat, command, Rng(seed, count))
            count += len(events)
print("trained on", sum(case[3] for case in CASES), "games")
"""


#: What the last finished build of the compiled engine said (a build stopped half-way, say after
#: its instrumented compile, leaves none): an unchanged engine is not built again.
LAST_BUILD = ROOT / "build" / "engine-built.txt"


def built_as(no_profile: str | None) -> str:
    """What a finished build of the compiled engine says of itself, given why it has no profile
    (None: it has one)."""
    if no_profile is None:
        return "the rules engine is compiled with mypyc, optimised with a profile of seeded games (GCC PGO)"
    return f"the rules engine is compiled with mypyc, without a profile ({no_profile})"


class ProfiledBuild(build_ext):
    """mypyc's extensions built with ``LOCAL_CALLS`` and, where ``why_no_profile`` allows, with a
    profile of ``TRAINING`` (GCC's ``-fprofile-generate``, then ``-fprofile-use``)."""

    def run(self) -> None:
        if not self.extensions:
            super().run()
            return
        self._compiler = self.compiler  # (``build_ext.run`` replaces it with the compiler it made)
        local_calls = LOCAL_CALLS if _probe(LOCAL_CALLS) is None else ()  # (a compiler that refuses them builds without)
        compile_args = {ext.name: [*ext.extra_compile_args, *local_calls] for ext in self.extensions}
        link_args = {ext.name: list(ext.extra_link_args) for ext in self.extensions}
        reason = why_no_profile()
        last = LAST_BUILD.read_text().strip() if LAST_BUILD.exists() else None
        if not self.force and last == built_as(reason) and self._up_to_date():  # (the same choice of
            say(f"{last} (unchanged since it was built)")  # profile as now: GAMES_PGO switched rebuilds)
            self._build(compile_args, link_args, [], [], force=False)  # (compiles nothing)
            return
        LAST_BUILD.unlink(missing_ok=True)
        if reason is not None:
            # (all of it compiled again unless the last build was this one: its objects may carry
            # another build's flags, a profile's or an instrumented one's, with the C unchanged)
            self._build(compile_args, link_args, [], [], force=last != built_as(reason))
            self._built(built_as(reason))
            return
        with tempfile.TemporaryDirectory(prefix="games-pgo-") as counts:
            say("compiling the rules engine instrumented (1 of 2), to count what games do")
            self._build(compile_args, link_args,
                        ["-fprofile-generate", "-fprofile-update=single", f"-fprofile-dir={counts}"],
                        ["-fprofile-generate"])
            failed = self._train()
            if failed is not None and switch("GAMES_PGO") == "1":
                raise SystemExit(f"GAMES_PGO=1 but the training games failed: {failed}")
            if failed is not None:
                self._build(compile_args, link_args, [], [])
                self._built(f"the rules engine is compiled with mypyc, without a profile (the training games "
                            f"failed: {failed})")
                return
            say("compiling the rules engine with what the training games counted (2 of 2)")
            self._build(compile_args, link_args,
                        ["-fprofile-use", f"-fprofile-dir={counts}", "-fprofile-correction", "-Wno-missing-profile"],
                        [])
        self._built(built_as(None))

    def _build(self, compile_args: dict[str, list[str]], link_args: dict[str, list[str]], more: list[str],
               more_link: list[str], force: bool = True) -> None:
        """``build_ext`` with these flags; ``force``: every file compiled again (the instrumented
        build and the one with the counts), else only what changed."""
        for ext in self.extensions:
            ext.extra_compile_args = [*compile_args[ext.name], *more]
            ext.extra_link_args = [*link_args[ext.name], *more_link]
        self.force = force
        self.compiler = self._compiler
        super().run()

    def _built(self, line: str) -> None:
        say(line)
        LAST_BUILD.write_text(line + "\n")

    def _up_to_date(self) -> bool:
        """Is every extension built and newer than its C sources (mypyc rewrites a C file only when
        it changes)?"""
        for ext in self.extensions:
            built = Path(self.get_ext_fullpath(ext.name))
            if not built.exists():
                return False
            when = built.stat().st_mtime
            if any(Path(source).stat().st_mtime > when for source in [*ext.sources, *ext.depends]):
                return False
        return True

    def _train(self) -> str | None:
        """Play ``TRAINING`` on the instrumented build (its output, beside the interpreted modules
        ``build_py`` copies there); why it failed, or None."""
        self.run_command("build_py")
        with tempfile.TemporaryDirectory() as elsewhere:  # (not the sources' directory: never the sources)
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                [os.path.abspath(self.build_lib), *filter(None, [os.environ.get("PYTHONPATH")])])}
            try:
                done = subprocess.run([sys.executable, "-c", TRAINING], cwd=elsewhere, env=env, capture_output=True,
                                      text=True, timeout=1800)
            except (OSError, subprocess.SubprocessError) as exc:
                return str(exc)
        if done.returncode:
            return (done.stderr.strip().splitlines() or ["exit status " + str(done.returncode)])[-1]
        say(done.stdout.strip())
        return None


def why_pure() -> str | None:
    """Why this build installs the pure-Python engine, or None when it compiles."""
    choice = switch("GAMES_USE_MYPYC")
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


setup(ext_modules=extensions(), cmdclass={"build_ext": ProfiledBuild})
