# Sourced by ./run_all.sh and ./run_tests.sh: the lab's processes keep the bytecode of what they import.
#
# uv, unlike pip, writes no bytecode at install, and where PYTHONDONTWRITEBYTECODE is set (as on the reference
# machine) Python writes none either: every process (each notebook kernel, each test subprocess) then compiled all
# it imported from source, every time (sentence-transformers 16 s instead of 7, pandas + seaborn 4.7 s instead of
# 1.7). Here the first process to import a module compiles it once, into .venv/pycache rather than beside the
# sources. Compiling all of site-packages at set-up instead took ~45 s of both cores, mostly for modules the lab
# never imports (torch's tests, transformers' other models).
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$PWD/.venv/pycache"
