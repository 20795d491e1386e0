"""environment.yml (for conda users) must describe the same pins as pyproject.toml."""

import tomllib

import yaml
from lclab.paths import REPO


def test_environment_yml_pins_match_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = set(project["dependencies"])
    for group in project["optional-dependencies"].values():
        wanted |= set(group)
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert set(pip) - {"-e ."} == wanted
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    major_minor = tuple(int(x) for x in python.split("=")[1].split("."))
    assert (3, 10) <= major_minor <= (3, 12)
