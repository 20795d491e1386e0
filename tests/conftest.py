"""Shared fixtures. Every test gets its own model-call cache and output folder, so tests never read each other's
cached replies and never touch the committed figures; the smoke notebooks alone share a cache kept across sessions
(`model_call_cache`: keyed by the request, in a folder named by the llama.cpp build and the backend code that
answered it (kept_store), so what one reads is what any cold run would be answered)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# ./run_tests.sh runs one pytest worker per core (pytest-xdist): each worker's model, torch and notebook kernels
# compute on its share of the cores, so two workers never fight over a core; set before torch or
# llama.cpp load (lclab.models.llama_engine says why).
if os.environ.get("PYTEST_XDIST_WORKER"):
    _share = max(1, (os.cpu_count() or 1) // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    for _var in ("LCLAB_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, str(_share))

import httpx
import pytest
from lclab import paths
from lclab.models import reset_backend_registry
from lclab.models.accounting import ACCOUNTING
from lclab.models.fault_server import FaultServer
from lclab.models.llama_engine import llama_threads
from lclab.runs.notebooks import load_profile

from kept_stores import BACKEND_SOURCES, VERDICT_SOURCES, replies_digest

SMALL_MODEL = "local/qwen2.5-coder-0.5b"
# The shipped texts per kind the smoke profile's judge cards read: tests that judge with the 0.5B ask for as many,
# so every card comes from the shared card store (the smoke runs' verdicts), not new calls.
SMOKE_CARD_TEXTS = load_profile("smoke")["all"]["card_texts"]


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path / "llm-cache"))
    monkeypatch.setenv("LCLAB_CARD_DIR", str(tmp_path / "judge-cards"))  # never the user's cards in the home folder
    # nor the repo's shipped verdicts: a test that judges a card sees every call (shared_cards reads them)
    monkeypatch.setenv("LCLAB_SHIPPED_CARDS", str(tmp_path / "no-shipped-cards"))
    monkeypatch.setenv("LCLAB_STRICT_FIGURES", "1")  # a legend left over plotted points fails the test that drew it
    monkeypatch.setenv("LCLAB_OUTPUT_DIR", str(tmp_path))  # for notebook kernels (separate processes)
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(paths, "FIGURES", tmp_path / "figures")
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    ACCOUNTING.reset()
    yield
    ACCOUNTING.reset()


def kept_across_runs(config, name: str) -> Path:
    """A folder that outlives the test session, shared by its workers: pytest's own cache (.pytest_cache/d/<name>,
    emptied by `./run_tests.sh --cache-clear`). What lands there is keyed by what made it (a request, a text, a
    prompt), so a changed prompt is a miss, never a stale answer; it is what lets a warm rerun skip the real
    model's work, while a fresh clone (CI) runs every call. What the key leaves out is in `name` (kept_store)."""
    if getattr(config, "cache", None) is not None:
        return Path(config.cache.mkdir(f"lclab-{name}"))
    # `-p no:cacheprovider`: nothing outlives the session, but its workers still share one folder (a fresh clone)
    session = os.environ.get("PYTEST_XDIST_TESTRUNUID", str(os.getpid()))
    folder = Path(tempfile.gettempdir()) / f"lclab-tests-{session}" / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# The kept stores of replies and the sources their folder's digest covers beside the llama.cpp builds
# (tests/kept_stores.py): a changed build, version or backend module gives an empty store, not old replies.
KEPT_REPLIES = {"model-calls": BACKEND_SOURCES, "judge-cards": BACKEND_SOURCES + VERDICT_SOURCES}


def kept_store(config, name: str) -> Path:
    """The kept folder of the store `name` of KEPT_REPLIES for this session's builds and sources
    (lclab-<name>-<digest>; the folders of other digests are left for `--cache-clear`)."""
    return kept_across_runs(config, f"{name}-{replies_digest(KEPT_REPLIES[name])}")


@pytest.fixture(scope="session")
def embedding_cache(request):
    return kept_across_runs(request.config, "embeddings")  # one file per vector, written whole: safe to share


@pytest.fixture(scope="session")
def card_store(request):
    return kept_store(request.config, "judge-cards")  # verdicts appended a line at a time, keyed by prompt


@pytest.fixture(scope="session")
def model_call_cache(request):
    """The smoke notebooks' model calls (one JSON file per request, written atomically: safe to share)."""
    return kept_store(request.config, "model-calls")


@pytest.fixture
def kept_model_calls(model_call_cache, monkeypatch):
    """A test of the real model's replies keeps its calls where the smoke notebooks keep theirs: a fresh clone (CI)
    makes every call on the real model, a warm rerun replays them (keyed by the request, the build and the backend
    code: a changed prompt or a rebuilt llama.cpp asks again)."""
    monkeypatch.setenv("LCLAB_CACHE_DIR", str(model_call_cache))
    return model_call_cache


@pytest.fixture
def shared_cards(card_store, monkeypatch):
    """One store of judge-card verdicts for the notebook tests (a card depends only on the judge and the shipped
    texts), beside the verdicts the repo ships: as for a user, the smoke judge checks a few of those per kind
    once per session and reads the rest."""
    monkeypatch.setenv("LCLAB_CARD_DIR", str(card_store))
    monkeypatch.delenv("LCLAB_SHIPPED_CARDS")
    return card_store


@pytest.fixture
def shared_embeddings(embedding_cache, monkeypatch):
    """One embedding cache for the tests that use it (a vector depends only on the model and the text): the
    Paul Graham corpus is embedded once per session, not by every run that indexes or ranks it. Tests that count
    what a cold cache embeds do not use it. Kernels and child processes inherit it through the environment."""
    monkeypatch.setenv("LCLAB_EMBEDDING_CACHE_DIR", str(embedding_cache))
    return embedding_cache


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_explorer(env: dict | None = None, page: str = "/lab") -> tuple[subprocess.Popen, str]:
    """`python -m lclab.explore` on a free port with `env` added to the environment, once `page` answers 200
    (within 120 s): (the server, its base URL). The caller terminates it."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "lclab.explore", "--port", str(port)], env=os.environ | (env or {}),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    while time.perf_counter() - started < 120:
        try:
            if httpx.get(f"{base}{page}", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            if server.poll() is not None:
                pytest.fail(f"the explorer did not start:\n{server.stdout.read()}")
            time.sleep(0.5)
    return server, base


def stable_port(name: str) -> int:
    """A loopback port of this checkout's own for the server `name` (a free one where it is taken): a served model's
    replies are cached under its URL, so the same port lets a warm rerun read what an earlier session's server
    said (kept_model_calls)."""
    port = 20_000 + int(hashlib.sha256(f"{paths.REPO}:{name}".encode()).hexdigest(), 16) % 20_000
    with socket.socket() as s:
        # A port an earlier server closed (TIME_WAIT) is free; one a server listens on is not (its SO_REUSEPORT
        # lets in only another socket that sets it too)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return free_port()
    return port


def wait_for_http(proc, url: str, log_path, name: str, timeout: float) -> None:
    """Poll `url` until it answers 200; fail with the server's log if it exits or stays silent."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"{name} exited: {log_path.read_text()[-2000:]}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    pytest.fail(f"{name} did not start within {timeout:.0f} s")


@contextlib.contextmanager
def llama_server(log_dir, alias: str = "qwen-0.5b", n_ctx: int = 2048):
    """llama.cpp's OpenAI-compatible server (llama-cpp-python's) with the 0.5B model on a free loopback port:
    yields (process, base URL)."""
    from lclab.models.local_models import ensure_model

    port = free_port()
    # The server logs a lot: to a file, since an unread pipe fills up and blocks it.
    log_path = log_dir / f"llama_server_{port}.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(ensure_model("qwen2.5-coder-0.5b")),
             "--model_alias", alias, "--n_ctx", str(n_ctx), "--n_threads", str(llama_threads()), "--logits_all", "true",
             "--host", "127.0.0.1", "--port", str(port)],
            stdout=log, stderr=subprocess.STDOUT)
        base_url = f"http://127.0.0.1:{port}/v1"
        try:
            wait_for_http(proc, f"{base_url}/models", log_path, "llama_cpp.server", 120)
            yield proc, base_url
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def wait_for_build_to_end(timeout: float = 1800, built=lambda: False) -> None:
    """./run_tests.sh compiles llama-server beside the tests (LCLAB_LLAMA_SERVER_BUILD: the build's process
    group): wait until it has ended (or `built()` says its binary is there)."""
    build = os.environ.get("LCLAB_LLAMA_SERVER_BUILD")
    deadline = time.time() + timeout
    while build and not built() and time.time() < deadline:
        try:
            os.killpg(int(build), 0)
        except ProcessLookupError:
            return  # the build has ended
        time.sleep(2)


def wait_for_server_build(binary, timeout: float = 1800) -> None:
    """Wait for the llama-server build beside the tests; a build that ends without the binary fails the test with
    the build's log."""
    if binary.exists() or not os.environ.get("LCLAB_LLAMA_SERVER_BUILD"):
        return
    wait_for_build_to_end(timeout, binary.exists)
    if not binary.exists():
        log = Path(os.environ.get("LCLAB_LLAMA_SERVER_LOG", "/nonexistent"))
        tail = log.read_text(errors="replace")[-3000:] if log.exists() else "(no log)"
        pytest.fail(f"llama-server was not built ({log}):\n{tail}")


def heavy(item) -> bool:
    return item.get_closest_marker("model") is not None or item.get_closest_marker("slow") is not None


def pytest_collection_modifyitems(items):
    """The order the llama-server build beside the tests (./run_tests.sh) wants: first the quick tests, one Python
    thread each, which leave a core to the build; then the model and notebook tests, longest first, so that the
    two workers end together rather than one running a two-minute notebook while the other idles: the modules
    that run processes of their own (BUSY_PROCESSES: the explorer's run and server, two notebooks at once), then
    the tests a module lists in TYPICAL_SECONDS (the smoke notebooks, the resume tests), longest first, then the
    other model tests (seconds to half a minute each); last the tests that need the server. A worker holds one
    test ahead (ByModule below), so what the suite ends on should be short."""
    def rank(item) -> tuple[bool, bool, bool, float]:
        module = getattr(item, "module", None)
        busy = getattr(module, "BUSY_PROCESSES", 1) > 1
        typical = getattr(module, "TYPICAL_SECONDS", {})
        seconds = next((s for name, s in typical.items() if name in item.name), 0)
        return "bundled_llama_server" in getattr(item, "fixturenames", ()), heavy(item), not busy, -seconds

    items.sort(key=rank)


# Modules whose tests are independent runs of a minute or more each: under pytest-xdist each of their tests may go to
# either worker. Every other module's tests go to one worker together, so a module-scoped fixture (a served model,
# a finished run, built haystacks) is made once.
SPREAD_ACROSS_WORKERS = {"test_notebooks.py", "test_resume.py", "test_needles.py", "test_fake_model.py"}


def pytest_xdist_make_scheduler(config, log):
    """./run_tests.sh's scheduler: work units are modules (tests of SPREAD_ACROSS_WORKERS modules one by one),
    handed out in the order pytest_collection_modifyitems gives (--no-loadscope-reorder). Grouping by module
    rather than by xdist_group marks: pytest-xdist 3.8 files a test's group under an attribute pytest 9 no longer
    reads its node id from."""
    from xdist.scheduler import LoadScopeScheduling

    class ByModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return nodeid if Path(module).name in SPREAD_ACROSS_WORKERS else module

        def _reschedule(self, node) -> None:
            # A worker gets its next unit once it is down to its last test, not its last two (pytest-xdist's
            # heuristic): a worker keeps its last test until it knows the next, so one test ahead is the least
            # it can hold. Two ahead left a finished worker idle while the other still held a unit for later
            # (85 s at the end of a run here: the resume tests queued behind one worker's last notebook).
            if node.shutting_down:
                return
            if not self.workqueue:
                node.shutdown()
            elif self._pending_of(self.assigned_work[node]) <= 1:
                self._assign_work_unit(node)

    return ByModule(config, log)


def pytest_runtest_setup(item):
    """A model or notebook test starts only once the llama-server build beside the suite has ended. Their
    two-thread llama.cpp and torch work waits at barriers for whichever thread lost its core, so sharing the
    machine with the build cost them about twice the build's own progress (all-calls-fail 129 -> 204 s; on a
    fresh clone 01's smoke notebook took 172 s with the build's last two minutes beside it); the build alone on
    both cores is the cheaper order."""
    global _build_waited
    if heavy(item) and not _build_waited:
        wait_for_build_to_end()
        _build_waited = True  # once: a build still running after the timeout is not waited for again


_build_waited = False


@pytest.fixture(scope="module")
def bundled_llama_server(tmp_path_factory, request):
    """The llama.cpp server the set-up builds (llama-server), serving the 0.5B model with a 2,048-token window on
    a loopback port of the test module's own (stable_port; one per module, as two modules' servers may run at
    once, and llama-server binds with SO_REUSEPORT, so a second one on the same port would share it): yields its
    base URL."""
    from lclab.models.local_models import ensure_model, llama_server_binary

    binary = llama_server_binary()
    wait_for_server_build(binary)
    if not binary.exists():
        pytest.skip(f"{binary} is not built: run scripts/setup.sh --llama-server (./run_tests.sh does)")
    port = stable_port(f"llama-server for {request.module.__name__}")
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen([str(binary), "-m", str(ensure_model("qwen2.5-coder-0.5b")), "-c", "2048",
                                 "-t", str(llama_threads()), "--host", "127.0.0.1", "--port", str(port)],
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for_http(proc, f"http://127.0.0.1:{port}/health", log_path, "llama-server", 120)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.fixture
def record(tmp_path, monkeypatch):
    """throughput.json in a folder of the test's own (the machine's speed record is left alone)."""
    from lclab.planning import speed

    path = tmp_path / "throughput.json"
    monkeypatch.setattr(speed, "_throughput_file", lambda: path)
    return path


@pytest.fixture
def no_logprobs_server(monkeypatch):
    """An OpenAI-compatible endpoint that always replies "1" and never returns logprobs."""
    with FaultServer(reply="1") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        reset_backend_registry()
        yield "openai/no-logprobs"
    reset_backend_registry()


# The browser tests skip where no Chromium is found; on a machine that could have installed one (./run_tests.sh
# started an install, or root with apt-get) that skip fails the run, so CI never passes with them unrun.
BROWSER_SKIP = "no Chromium"
_browser_skips: list[str] = []


# The workers' time, split into the tests that need a model (marked `model`) and the quick rest; printed at the end
# (benchmarks/fresh_clone.sh reads the line).
_test_seconds = {"model": 0.0, "quick": 0.0}


def pytest_runtest_logreport(report):
    if report.skipped and BROWSER_SKIP in str(report.longrepr):
        _browser_skips.append(report.nodeid)
    _test_seconds["model" if "model" in report.keywords else "quick"] += report.duration


def pytest_terminal_summary(terminalreporter):
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        terminalreporter.write_line(f"test time (the workers' sum): model tests {_test_seconds['model']:.0f} s, "
                                    f"quick tests {_test_seconds['quick']:.0f} s")


def browser_installable() -> bool:
    import shutil

    return bool(os.environ.get("LCLAB_BROWSER_INSTALL")) or (os.geteuid() == 0 and shutil.which("apt-get") is not None)


def pytest_sessionfinish(session, exitstatus):
    if _browser_skips and not os.environ.get("PYTEST_XDIST_WORKER") and browser_installable() \
            and not os.environ.get("LCLAB_ALLOW_BROWSER_SKIP"):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = (f"{len(_browser_skips)} browser tests skipped although Chromium can be installed here "
                   f"(scripts/browser.sh; .venv/browser-install.log): failing the run "
                   "(LCLAB_ALLOW_BROWSER_SKIP=1 allows it)")
        reporter.write_line(message, red=True) if reporter else print(message)


def synthetic_samples(progress: bool = False, **given):
    """09's samples for the given parameters (the rest at their declared defaults, but RULER's tasks in the chat
    form unless `ruler_form` is given), built as its run builds them, at every length given (no window check)."""
    from lclab.synthetic import build_samples
    from lclab.synthetic.parameters import Parameters

    return build_samples(Parameters(**{"ruler_form": "chat", **given}), given["context_tokens"], progress)
