"""lclab: the helper library behind the notebooks (long-context and RAG evaluation, offline first).

Start with `lclab.gateway.complete`, the single door to every model.
"""
