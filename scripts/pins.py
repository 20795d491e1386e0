"""The pinned requirements of the project and the given extras (comma-separated), one per line, without
llama-cpp-python: what scripts/setup.sh installs while llama.cpp compiles. Prints nothing on a Python without
tomllib (3.10), and set-up then installs everything after the compile."""

import sys

try:
    import tomllib
except ImportError:  # Python 3.10
    raise SystemExit(0)

with open("pyproject.toml", "rb") as f:
    project = tomllib.load(f)["project"]
extras = [e for e in (sys.argv[1] if len(sys.argv) > 1 else "").split(",") if e]
wanted = list(project["dependencies"]) + [r for e in extras for r in project["optional-dependencies"][e]]
print("\n".join(r for r in wanted if not r.lower().startswith("llama-cpp-python")))
