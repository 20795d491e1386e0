"""Open the static report in a real headless browser (Debian's Chromium) and take screenshots.

    apt-get install chromium                     # once; Debian's package
    .venv/bin/python benchmarks/report_in_chromium.py [--profile default] [--out /tmp/report-shots]

Builds results/report/ when it is missing, then loads index.html and the first notebook page with
Chromium headless, writes a screenshot of each and prints what the loaded page holds: its title, links,
and how many images the browser decoded (naturalWidth > 0), which is what "the figures are visible" means.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from lclab import paths
from lclab.runs.report import build
from measured_rows import append

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]
PROBE = """<script>window.addEventListener('load', () => {
  const imgs = [...document.images];
  document.title = JSON.stringify({title: document.title, links: document.links.length, images: imgs.length,
    decoded: imgs.filter(i => i.complete && i.naturalWidth > 0).length});
});</script>"""


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        sys.exit("no chromium on this machine: apt-get install chromium (Debian's package)")
    return found


def inspect(page: Path, shot: Path, profile_dir: str) -> dict:
    """Screenshot `page`, then load a copy with the probe script and read what the browser decoded."""
    browser = chromium()
    subprocess.run([browser, *FLAGS, f"--user-data-dir={profile_dir}", f"--screenshot={shot}",
                    "--window-size=1280,1600", "--virtual-time-budget=5000", page.as_uri()],
                   check=True, capture_output=True, timeout=120)
    probed = page.with_name(f".probe-{page.name}")
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = subprocess.run([browser, *FLAGS, f"--user-data-dir={profile_dir}", "--virtual-time-budget=5000",
                          "--dump-dom", probed.as_uri()], check=True, capture_output=True, text=True, timeout=120).stdout
    probed.unlink()
    title = dom.split("<title>", 1)[1].split("</title>", 1)[0] if "<title>" in dom else "{}"
    return json.loads(title.replace("&quot;", '"'))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="default")
    parser.add_argument("--out", default=tempfile.mkdtemp(prefix="report-shots-"))
    args = parser.parse_args()
    index = paths.RESULTS / "report" / "index.html"
    if not index.exists():
        index = build(args.profile)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pages = [index] + sorted(p for p in index.parent.glob("*.html") if p.name != "index.html")[:1]
    version = subprocess.run([chromium(), "--version"], capture_output=True, text=True).stdout.strip()
    rows = []
    with tempfile.TemporaryDirectory() as profile_dir:
        for page in pages:
            shot = out / f"{page.stem}.png"
            seen = inspect(page, shot, profile_dir)
            print(f"{page.name:40s} links {seen['links']:3d}  images {seen['images']:3d}  decoded {seen['decoded']:3d}"
                  f"  -> {shot}")
            rows.append({"browser": f"{version} headless", "page": page.name, "links": seen["links"],
                         "images": seen["images"], "decoded": seen["decoded"]})
    print(append("report_in_chromium", rows))  # benchmarks/measured_rows.py: this run as rows of the page
    return 0


if __name__ == "__main__":
    sys.exit(main())
