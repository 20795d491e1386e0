"""Import what the notebooks and the model tests import, once, so that its bytecode is written (scripts/bytecode.sh).

./run_tests.sh starts this at the lowest priority beside the quick tests. Without it the first heavy tests
compile torch, transformers, sentence-transformers, chromadb and the experiments from source (about 22 s of one
core), and on two workers both compile the same modules at the same moment, each writing its own copy.
"""

import importlib
import sys

from lclab.experiments import experiments

HEAVY = ("torch", "transformers", "sentence_transformers", "chromadb", "llama_cpp", "openai", "papermill",
         "nbconvert", "langchain_text_splitters", "lclab.models.embeddings", "lclab.runs.notebooks")

for name in [*HEAVY, *(f"lclab.{e.name}" for e in experiments())]:
    try:
        importlib.import_module(name)
    except Exception as err:  # noqa: BLE001  (a warm-up: a module that will not import fails in its test instead)
        print(f"warm_bytecode: {name}: {type(err).__name__}: {err}", file=sys.stderr)
