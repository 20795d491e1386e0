"""Retrieval on your own corpus: chunks with stable ids, vector stores behind one contract, and the metrics.

    chunking.py      fixed-size chunks (tokens or characters) with ids that survive re-indexing
    vectorstores/    Chroma (embedded or server), Elasticsearch, Pinecone: add(chunks), search(query, k)
    metrics.py       recall/precision/F1@k, hit rate, MRR, nDCG (pure functions)

Embeddings are model calls, so they live behind the model door: `lclab.models.embeddings`.
"""
