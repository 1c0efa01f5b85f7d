"""Which build of the rules engine the tests import: the compiled one or the sources.

``make compile`` builds the server's package (setup.py: ``domain/`` compiled with mypyc where
it can be) and unpacks it into ``build/engine``, away from the sources. ``use_compiled_domain()``,
called before anything imports ``domain``, makes every ``domain`` module load from there; the
rest (service, projections, the tests) still comes from the checkout. ``tests/conftest.py``
does so unless ``DOMAIN_PURE=1``, and refuses to start when the build is older than a source.
The tests that compare the two engines run each in a subprocess.

    .venv/bin/python -m tests.helpers.engine      # prints "compiled" or "pure": what the tests get
"""

from __future__ import annotations

import sys
import sysconfig
from importlib.abc import MetaPathFinder
from importlib.machinery import (
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    ModuleSpec,
    SourceFileLoader,
)
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "build" / "engine"


class _FromBuild(MetaPathFinder):
    """Finds the ``domain`` package in the built package (its submodules then follow its path)."""

    def find_spec(self, name: str, path, target=None) -> ModuleSpec | None:
        if name != "domain":
            return None
        return FileFinder(str(ENGINE), (ExtensionFileLoader, EXTENSION_SUFFIXES),
                          (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(name)


def compiled_build_present() -> bool:
    """Did ``make compile`` leave a compiled engine in build/engine?"""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return (ENGINE / "domain" / "kernel" / f"prompt{suffix}").exists()


def stale_sources() -> list[str]:
    """The ``domain`` sources that differ from those the build was made of (added, removed or
    edited since): the build would run other rules than the checkout's."""
    here = {path.relative_to(ROOT): path for path in (ROOT / "domain").rglob("*.py")}
    built = {path.relative_to(ENGINE): path for path in (ENGINE / "domain").rglob("*.py")}
    return sorted(str(name) for name in here.keys() | built.keys()
                  if name not in here or name not in built or here[name].read_bytes() != built[name].read_bytes())


def built_beside_the_sources() -> list[str]:
    """C extensions in ``domain/`` itself (the in-place builds of before): Python would import
    them instead of the sources beside them."""
    return sorted(str(path.relative_to(ROOT)) for path in (ROOT / "domain").rglob("*.so"))


def use_compiled_domain() -> None:
    if "domain" in sys.modules:
        raise RuntimeError("domain is already imported: use_compiled_domain() must come first")
    sys.meta_path.insert(0, _FromBuild())
    # the modules' shared library is a top-level module of the package (<hash>__mypyc)
    sys.path.append(str(ENGINE))


def domain_is_compiled() -> bool:
    """Is the ``domain`` imported in this process the mypyc build?"""
    import domain

    return domain.engine() == "compiled"


if __name__ == "__main__":
    print("compiled" if compiled_build_present() else "pure")
