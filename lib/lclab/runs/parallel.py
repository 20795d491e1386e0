"""Run a function over items with a worker pool and a progress bar, keeping input order."""

from __future__ import annotations

import contextvars
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Callable, Generic, Iterable, TypeVar

from tqdm import tqdm  # a text bar: readable in papermill logs and in Jupyter alike

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Outcome(Generic[T, R]):
    item: T
    value: R | None = None
    error: str | None = None  # "ExceptionType: message" when fn raised

    @property
    def ok(self) -> bool:
        return self.error is None


def map_items(
    fn: Callable[[T], R], items: Iterable[T], workers: int = 1, desc: str = "", quiet: bool = False,
    stop_on: tuple[type[BaseException], ...] = (),
) -> list[Outcome[T, R]]:
    """`fn` over `items` with `workers` threads; one Outcome per item, in input order.

    An item whose call raises is recorded with its error; the others go on.
    Errors of a `stop_on` type (e.g. a backend without logprobs when a run
    demands them) would fail every item alike, so they stop the run at once.
    KeyboardInterrupt still stops the whole run. Worker threads run in a copy
    of the caller's context, so the accounting scopes open here count their calls.
    """
    items = list(items)
    outcomes: list[Outcome | None] = [None] * len(items)

    def run(i: int) -> Outcome:
        try:
            return Outcome(items[i], fn(items[i]))
        except stop_on:
            raise
        except Exception as err:  # noqa: BLE001  (recorded per item, never swallowed)
            return Outcome(items[i], error=f"{type(err).__name__}: {err}")

    # Under ./run_all.sh (LCLAB_PROGRESS=final) a loop prints one line when it ends instead of a bar redrawn
    # into the executed notebook dozens of times; in Jupyter the bar stays.
    final_only = os.environ.get("LCLAB_PROGRESS") == "final"
    started = time.perf_counter()
    with tqdm(total=len(items), desc=desc, disable=quiet or final_only) as bar:
        if workers <= 1:
            for i in range(len(items)):
                outcomes[i] = run(i)
                bar.update()
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                futures = {pool.submit(contextvars.copy_context().run, run, i): i for i in range(len(items))}
                try:
                    for future in as_completed(futures):
                        outcomes[futures[future]] = future.result()
                        bar.update()
                except BaseException:
                    pool.shutdown(wait=False, cancel_futures=True)  # queued items are not started
                    raise
    if final_only and not quiet and items:
        print(f"{desc}: {len(items)} items in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return outcomes  # type: ignore[return-value]
