"""The browser tests may not pass by being skipped: where Chromium can be installed, their skip fails the run."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import BROWSER_SKIP

TESTS = Path(__file__).resolve().parent


def test_a_skipped_browser_test_fails_the_run_where_chromium_can_be_installed(tmp_path):
    for helper in ("conftest.py", "kept_stores.py"):  # conftest and what it imports
        shutil.copy(TESTS / helper, tmp_path)
    (tmp_path / "test_browser.py").write_text(
        f"import pytest\n\n\ndef test_in_a_browser():\n    pytest.skip({BROWSER_SKIP!r})\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env |= {"PYTHONPATH": str(TESTS.parent / "lib"), "LCLAB_BROWSER_INSTALL": str(tmp_path / "install.pid")}

    installable = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                                  str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert installable.returncode == 1, installable.stdout[-2000:]
    assert "1 browser tests skipped although Chromium can be installed here" in installable.stdout
    assert "LCLAB_ALLOW_BROWSER_SKIP=1 allows it" in installable.stdout
    assert BROWSER_SKIP in installable.stdout  # the reason printed (-rs)
