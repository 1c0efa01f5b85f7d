"""The service's house: modules grouped by concern, each package saying what it holds."""

import ast
from pathlib import Path

SERVICE = Path(__file__).resolve().parents[3] / "service"


def test_the_service_root_holds_only_its_face_and_its_entry_point():
    assert sorted(p.name for p in SERVICE.glob("*.py")) == ["__init__.py", "__main__.py"]


def test_every_package_of_the_service_says_what_lives_there():
    packages = [init for init in SERVICE.rglob("__init__.py") if "__pycache__" not in init.parts]
    assert len(packages) >= 10
    silent = [str(init.relative_to(SERVICE.parent)) for init in packages
              if len(ast.get_docstring(ast.parse(init.read_text())) or "") < 80]
    assert silent == []
