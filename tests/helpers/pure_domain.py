"""Importing ``domain`` from its Python sources even where its mypyc build sits beside them.

``make compile`` leaves C extensions next to ``domain/``'s sources, which Python imports in
their place. ``use_pure_domain()``, called before anything imports ``domain``, makes every
``domain`` module load from its ``.py`` file instead: the pure-Python engine, in the same
checkout. The tests that compare the two engines run it in a subprocess; ``DOMAIN_PURE=1``
makes the whole test session use it (``tests/conftest.py``).
"""

from __future__ import annotations

import sys
import sysconfig
from importlib.abc import MetaPathFinder
from importlib.machinery import SOURCE_SUFFIXES, FileFinder, ModuleSpec, SourceFileLoader
from pathlib import Path


class _SourcesOnly(MetaPathFinder):
    """Finds ``domain`` and its submodules among source files only."""

    def find_spec(self, name: str, path, target=None) -> ModuleSpec | None:
        if name != "domain" and not name.startswith("domain."):
            return None
        for folder in path if path is not None else sys.path:
            spec = FileFinder(folder or ".", (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(name)
            if spec is not None:
                return spec
        return None


def use_pure_domain() -> None:
    if "domain" in sys.modules:
        raise RuntimeError("domain is already imported: use_pure_domain() must come first")
    sys.meta_path.insert(0, _SourcesOnly())


def domain_is_compiled() -> bool:
    """Is the ``domain`` imported in this process the mypyc build?"""
    import domain.kernel.prompt as engine

    return not (engine.__file__ or "").endswith(".py")


def stale_compiled_modules(root: Path) -> list[str]:
    """The ``domain`` sources edited since their compiled module was built: Python would run
    the old compiled code, not the edit (``make compile`` rebuilds, ``make pure`` removes)."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    stale = []
    for source in sorted((root / "domain").rglob("*.py")):
        built = source.with_name(source.name.removesuffix(".py") + suffix)
        if built.exists() and built.stat().st_mtime < source.stat().st_mtime:
            stale.append(str(source.relative_to(root)))
    return stale
