#!/usr/bin/env bash
# Document sets of other genres than the shipped ones, from Debian's packages, as folders of .txt/.md files that
# 00_make_qa_set reads (docs/your-documents.md names which set was used for what):
#   dev_faq          the Debian FAQ and GNU's "Information for maintainers" (plain text): the set the checks were
#                    tried on while they were written
#   manual           the Debian Developer's Reference (reStructuredText sources): a software manual
#   standard         the Debian Policy Manual (reStructuredText sources) and the Filesystem Hierarchy Standard 3.0
#   encyclopaedia    entries of the Free On-line Dictionary of Computing of at least 600 characters, one a file
#   guides           six of Git's guides for contributors and maintainers (AsciiDoc text): the folder of the
#                    first 30-pair run
#   howtos           ten of Python 3.11's HOWTOs (reStructuredText sources: sockets, unicode, functional, regex,
#                    logging, urllib2, curses, sorting, descriptor, ipaddress): the folder of the 30-pair run sized
#                    to reach its count with a chance of 0.8
# Usage: benchmarks/document_sets.sh [DIR]   (default /tmp/docsets; installs the packages with apt-get as root)
set -euo pipefail
out=${1:-/tmp/docsets}
packages="debian-faq gnu-standards developers-reference debian-policy dict-foldoc git-doc python3.11-doc"
dpkg -s $packages >/dev/null 2>&1 || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $packages; }
rm -rf "$out" && mkdir -p "$out"/{dev_faq,manual,standard,encyclopaedia,guides,howtos}
zcat /usr/share/doc/debian/FAQ/debian-faq.en.txt.gz > "$out/dev_faq/debian-faq.txt"
zcat /usr/share/doc/gnu-standards/maintain.text.gz > "$out/dev_faq/gnu-maintainers.txt"
for f in /usr/share/developers-reference/_sources/*.rst.txt; do
  n=$(basename "$f" .rst.txt); [ "$n" = index ] || cp "$f" "$out/manual/$n.md"
done
for f in /usr/share/doc/debian-policy/policy.html/_sources/*.rst.txt; do
  n=$(basename "$f" .rst.txt); [ "$n" = index ] || cp "$f" "$out/standard/policy-$n.md"
done
zcat /usr/share/doc/debian-policy/fhs/fhs-3.0.txt.gz > "$out/standard/fhs-3.0.txt"
git_doc=/usr/share/doc/git-doc
for f in SubmittingPatches ReviewingGuidelines MyFirstContribution git-bisect-lk2009 \
         howto/maintain-git howto/coordinate-embargoed-releases; do
  cp "$git_doc/$f.txt" "$out/guides/$(basename "$f").txt"
done
for n in sockets unicode functional regex logging urllib2 curses sorting descriptor ipaddress; do
  cp "/usr/share/doc/python3.11/html/_sources/howto/$n.rst.txt" "$out/howtos/$n.md"
done
python3 - "$out/encyclopaedia" <<'PY'
import gzip, re, sys
from pathlib import Path
text = gzip.open("/usr/share/dictd/foldoc.dict.dz", "rt", encoding="utf-8", errors="replace").read()
# An entry: a headword line at column 0, then its indented body, up to the next headword.
entries = re.split(r"\n(?=\S)", text)
written = 0
for entry in entries:
    head, _, body = entry.partition("\n")
    body = re.sub(r"[{}]", "", "\n".join(line.strip() for line in body.splitlines())).strip()
    if head.startswith("00-") or len(body) < 600:
        continue
    name = re.sub(r"[^\w.+-]+", "_", head.strip())[:60] or f"entry{written}"
    Path(sys.argv[1], f"{name}.md").write_text(f"# {head.strip()}\n\n{body}\n", encoding="utf-8")
    written += 1
print(f"{written} FOLDOC entries")
PY
for d in "$out"/*; do echo "$(basename "$d"): $(ls "$d" | wc -l) files, $(cat "$d"/* | wc -c) bytes"; done
