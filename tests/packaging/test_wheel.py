"""``pip`` builds the server's package with its rules engine compiled where it can, pure where not.

Each test builds a wheel the way a user's ``pip install .`` does (an isolated build, from a copy
of the project, so the checkout gets no build output), installs it into a folder of its own and
asks the installed ``domain`` which engine it is: ``GAMES_USE_MYPYC=1`` compiles (a platform
wheel with C extensions), ``=0`` builds pure Python (a wheel for any platform, no extension),
and unset it compiles unless it cannot, then says why and builds the pure one. The compiled
build takes minutes on two cores (mypyc and gcc): it is marked slow, and ``make test`` runs it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("pyproject.toml", "setup.py", "README.md", "domain", "projections", "service")


def _project_copy(into: Path) -> Path:
    project = into / "project"
    project.mkdir()
    for name in PROJECT:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, project / name, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        else:
            shutil.copy2(source, project / name)
    return project


def _build(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess, Path]:
    project = _project_copy(tmp_path)
    wheels = tmp_path / "wheels"
    environ = {key: value for key, value in os.environ.items() if key not in ("GAMES_USE_MYPYC", "CC")}
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "--wheel-dir", str(wheels), str(project)]
    # a session of its own, so that a test stopped by its timeout stops the compiler too
    with subprocess.Popen(command, env={**environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, start_new_session=True) as build:
        try:
            out, err = build.communicate()
        finally:
            if build.poll() is None:
                os.killpg(build.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(command, build.returncode, out, err), wheels


def _engine_of(wheel: Path, tmp_path: Path) -> str:
    """Installs the wheel into a folder of its own; which engine its ``domain`` is, and a game's
    first moves played on it."""
    target = tmp_path / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target),
                    str(wheel)], check=True, timeout=300)
    script = ("import domain, random\n"
              "from domain.games import default_registry\n"
              "from domain.kernel.rng import Rng\n"
              "rules = default_registry()['pax_pamir']\n"
              "state = None\n"
              "for event in rules.setup(2, rules.check_setup(2, {}), Rng(7, 0)):\n"
              "    state = rules.evolve(state, event)\n"
              "choose = random.Random(7)\n"
              "for count in range(20):\n"
              "    seat = choose.choice(rules.to_move(state))\n"
              "    _, state = rules.play(state, seat, choose.choice(rules.legal_commands(state, seat)), Rng(7, count))\n"
              "print(domain.__file__)\n"
              "print(domain.engine())\n")
    out = subprocess.run([sys.executable, "-P", "-c", script], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(target)},
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    where, engine = out.stdout.split()
    assert Path(where).is_relative_to(target), "the installed package ran, not the checkout"
    return engine


def _only_wheel(wheels: Path) -> Path:
    [wheel] = wheels.glob("*.whl")
    return wheel


def _extensions(wheel: Path) -> list[str]:
    return [name for name in zipfile.ZipFile(wheel).namelist() if name.endswith(".so") or name.endswith(".pyd")]


def test_a_pure_build_is_a_wheel_for_any_platform_and_runs_the_sources(tmp_path):
    built, wheels = _build(tmp_path, GAMES_USE_MYPYC="0")
    assert built.returncode == 0, built.stderr
    assert "the rules engine is pure Python (GAMES_USE_MYPYC=0)" in built.stderr
    wheel = _only_wheel(wheels)
    assert wheel.name.endswith("-py3-none-any.whl") and _extensions(wheel) == []
    assert _engine_of(wheel, tmp_path) == "pure"


def test_without_a_c_compiler_the_build_says_so_and_is_pure_unless_told_to_compile(tmp_path):
    missing = str(tmp_path / "no-such-cc")
    (tmp_path / "auto").mkdir()
    built, wheels = _build(tmp_path / "auto", CC=missing)
    assert built.returncode == 0, built.stderr
    assert "the rules engine is pure Python (no working C compiler" in built.stderr
    assert _extensions(_only_wheel(wheels)) == []
    (tmp_path / "insist").mkdir()
    refused, _ = _build(tmp_path / "insist", CC=missing, GAMES_USE_MYPYC="1")
    assert refused.returncode != 0
    assert "GAMES_USE_MYPYC=1 but the engine cannot be compiled: no working C compiler" in refused.stdout + refused.stderr


@pytest.mark.slow
@pytest.mark.timeout(3600)  # mypyc, then gcc twice (GCC's profile): about 9 minutes on two idle cores, more if busy
def test_a_compiled_build_is_a_platform_wheel_whose_engine_is_compiled(tmp_path):
    if shutil.which(os.environ.get("CC", "cc")) is None and os.environ.get("REQUIRE_COMPILED") != "1":
        pytest.skip("no C compiler here: the compiled build cannot be made (CI, REQUIRE_COMPILED=1, requires one)")
    built, wheels = _build(tmp_path, GAMES_USE_MYPYC="1")
    assert built.returncode == 0, built.stderr[-3000:]
    assert "the rules engine is compiled with mypyc" in built.stderr
    said = subprocess.run([os.environ.get("CC", "cc"), "--version"], capture_output=True, text=True).stdout.lower()
    if "clang" not in said and ("gcc" in said or "free software foundation" in said) \
            and os.environ.get("GAMES_PGO") != "0":
        # GCC: built instrumented, trained on seeded games, built again with the counts (setup.py)
        assert "trained on" in built.stderr and " games" in built.stderr, built.stderr[-3000:]
        assert "optimised with a profile of seeded games (GCC PGO)" in built.stderr, built.stderr[-3000:]
    wheel = _only_wheel(wheels)
    assert not wheel.name.endswith("-none-any.whl")
    extensions = _extensions(wheel)
    assert any(name.startswith("domain/kernel/prompt.") for name in extensions)
    assert not any(name.startswith("domain/kernel/bots.") for name in extensions), "the bots stay interpreted"
    assert _engine_of(wheel, tmp_path) == "compiled"
