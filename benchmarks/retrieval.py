"""Indexing throughput and query latency of the retrieval stack on the Paul Graham essays.

Chunks every essay, embeds the chunks with the offline embedder (empty cache),
writes them to a fresh embedded Chroma index, re-indexes (everything cached and
already present), then times queries: a cold one (query not yet embedded) and a
warm one (embedding cached) per question.

    .venv/bin/python benchmarks/retrieval.py [--unit tokens --size 200] [--queries 50] [--store chroma]
"""

import argparse
import os
import statistics
import tempfile
import time
from measured_rows import append  # benchmarks/measured_rows.py: this run as rows of the page


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--unit", default="tokens", choices=["tokens", "chars"])
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--store", default="chroma", help="chroma, chroma://HOST:PORT, elasticsearch, pinecone")
    parser.add_argument("--embedder", default="local/all-MiniLM-L6-v2")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["LCLAB_CACHE_DIR"] = tmp  # an empty embedding cache: every chunk is embedded
        from lclab.models.embeddings import get_embedder
        from lclab.retrieval.chunking import Chunker
        from lclab.retrieval.vectorstores import index_name, open_index
        from lclab.text.corpus import load_corpus

        t0 = time.perf_counter()
        chunks = Chunker(args.size, args.unit).split(load_corpus().documents)
        t_chunk = time.perf_counter() - t0
        embedder = get_embedder(args.embedder)
        _ = embedder.dimension  # loads the model; not part of the throughput
        t0 = time.perf_counter()
        embedder.embed([c.text for c in chunks])
        t_embed = time.perf_counter() - t0
        index = open_index(args.store, index_name("bench", Chunker(args.size, args.unit).name, str(time.time_ns())),
                           embedder, directory=f"{tmp}/chroma")
        first = index.add(chunks)  # embeddings now come from the cache: this is the store's write time
        second = index.add(chunks)
        print(f"{len(chunks)} chunks ({args.size} {args.unit}) from the essays; chunking {t_chunk:.2f} s")
        print(f"embedding ({embedder.spec}, cold cache): {t_embed:.1f} s = {len(chunks) / t_embed:.1f} chunks/s")
        print(f"writing to {index.store_name} (vectors cached): {first.seconds:.2f} s = "
              f"{first.written / first.seconds:.0f} chunks/s")
        print(f"indexing from scratch (embed + write): {len(chunks) / (t_embed + first.seconds):.1f} chunks/s")
        print(f"re-indexing the same chunks: {second.seconds:.3f} s, {second.written} written")

        questions = [c.text.split(".")[0][:200] or c.text[:200] for c in chunks[:: max(1, len(chunks) // args.queries)]]
        questions = questions[: args.queries]
        cold, warm = [], []
        for q in questions:
            t0 = time.perf_counter()
            index.search(q, 10)
            cold.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            index.search(q, 10)
            warm.append(time.perf_counter() - t0)
        n = len(chunks)
        page = [{"step": "embedding, cold cache", "chunks": n, "seconds": f"{t_embed:.1f}",
                 "chunks_per_s": f"{n / t_embed:.1f}"},
                {"step": f"writing to {index.store_name} (vectors cached)", "chunks": n,
                 "seconds": f"{first.seconds:.2f}", "chunks_per_s": f"{first.written / first.seconds:.0f}"},
                {"step": "indexing from scratch", "chunks": n, "chunks_per_s": f"{n / (t_embed + first.seconds):.1f}"},
                {"step": f"re-indexing the same chunks ({second.written} written)", "chunks": n,
                 "seconds": f"{second.seconds:.3f}"}]
        for label, xs in (("query, embedding not cached", cold), ("query, embedding cached", warm)):
            xs = sorted(xs)
            print(f"{label}: median {1000 * statistics.median(xs):.1f} ms, "
                  f"p95 {1000 * xs[int(0.95 * (len(xs) - 1))]:.1f} ms over {len(xs)} queries (top 10)")
            page.append({"step": f"{label} (top 10, {len(xs)} queries)", "median_ms": f"{1000 * statistics.median(xs):.1f}",
                         "p95_ms": f"{1000 * xs[int(0.95 * (len(xs) - 1))]:.1f}"})
        index.delete()
        print(append("retrieval", page))


if __name__ == "__main__":
    main()
