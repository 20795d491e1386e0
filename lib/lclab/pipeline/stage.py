"""One stage of an experiment, declared once: the runner executes it (lclab.runs.runner.Run.stages) and the plan
prices it (lclab.planning.experiment_plan).

    ANSWER = Stage("answer", request=lambda p: Request(max_tokens=p.max_answer_tokens), prompt=lambda s: s.input)
    JUDGE = Stage("judge", role="judge", request=lambda p: judge_requests(p.self_consistency),
                  template="judge_correct", reads="answer", slots=("answer",),
                  known=lambda s: {"question": s.source.question, "gold_answer": s.target})

A stage whose prompts are known before any call (a first stage) says how a sample becomes its prompt (`prompt`);
one that reads an earlier stage's replies says which stage (`reads`), its template, the template's fields known
before the run (`known`) and the fields the earlier reply fills (`slots`). The run sends `ask(p, sample)` (or, for
a judge, the judge function whose calls `requests(p)` lists); the planner looks up and prices the same prompts
under the same Request objects, so the plan and the run cannot disagree on a cache key.

What a stage writes into its trial's row is its `write(given, sample, row)`: given the run's `Given` (the
parameters, the judge chosen once for the run, what the run built once), the sample, and the row the earlier
stages wrote. A first stage without one writes its answer's shared columns (lclab.runs.runner.answer_columns).
A retrieval stage (role "retrieval") calls no model: it writes what retrieval found for a later stage to read.
A stage whose prompt holds what retrieval finds declares it (`retrieved`): its template's slot holds k chunks of
the texts retrieval chooses from, and the plan prices that slot the same way for every experiment.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from types import SimpleNamespace

from ..models import Request, complete
from ..models.judge_choice import judge_spec
from ..prompts import render

ROLES = ("model", "judge", "retrieval")


@dataclass(frozen=True)
class Given:
    """What every stage of one run is given: the parameters `p`, the judge chosen once for the run (its spec; ""
    where nothing is judged), and what the run built once and every sample reads (an index, the chunks' texts)."""

    p: Any
    judge: str = ""
    built: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Retrieved:
    """What retrieval puts into a stage's prompt: the template's `slot` holds `k(sample)` chunks of the sample's
    `pool(sample)` (the texts retrieval chooses from, each as it reads in the prompt). A plan prices the slot at
    k chunks of the pool's mean size: which chunks is retrieval's choice, and an embedding model is not run for
    a plan. `pool` gives the texts of the chunks retrieval chooses from, `piece` how one of them reads in the
    prompt (under its heading, or with its separator)."""

    slot: str
    k: Callable[[Any], int]
    pool: Callable[[Any], list[str]]
    piece: Callable[[str], str] = lambda text: text  # noqa: E731  (one chunk's text as it reads in the prompt)
    # sample -> the chunks its prompt starts with that the call before it read: asked one at a time, a local
    # model's KV cache keeps them and the template's opening (0: the opening only). None: the plan prices no
    # reuse at all (every token of every call read)
    shared: Callable[[Any], int] | None = None


@dataclass(frozen=True)
class Stage:
    """name:     the gateway stage: the accounting's row, the plan's row, the item log's step
    role:     whose model it calls: "model" (the parameter `model`, the model under test) or "judge" (the judge
              chosen for it: `judge_model`, else lclab.models.judge_choice's default); "retrieval" calls none
    request:  p -> the Request of each call per sample (a list when one sample makes several: a verdict, then its
              self-consistency samples)
    prompt:   sample -> the exact prompt (a first stage)
    reads:    the stage whose reply fills `slots` (a later stage), with its `template` and `known` fields; the
              whole reply fills one slot
              (a stage with neither, only `write`, builds its calls from what it reads, each with its own request:
              06's claim checks; its experiment's plan prices it)
    retrieved: what retrieval puts into the prompt (a Retrieved), with the `template` and `known` fields the rest
              of the prompt is made of: the run builds the prompt once retrieval has found the chunks
    when:     sample -> whether the stage is asked for it (None: every sample): the correctness judge is not
              asked for a sample without a gold answer
    workers:  the parameter that sets the stage's concurrent calls (or their number: 1 for what runs one at a time)
    write:    (given, sample, row) -> the columns it adds to the row (a dict; {"error": ...} where it cannot score
              the sample); a first stage without one writes its answer's shared columns
    """

    name: str
    request: Callable[[Any], Request | list[Request]] | None = None
    role: str = "model"
    prompt: Callable[[Any], Any] | None = None
    reads: str | None = None
    template: str | None = None
    known: Callable[[Any], dict] | None = None
    slots: tuple[str, ...] = ()
    workers: str | int = "max_workers"
    retrieved: Retrieved | None = None
    when: Callable[[Any], bool] | None = None
    write: Callable[[Given, Any, dict], dict | None] | None = None

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"stage {self.name!r}: role must be one of {ROLES}, not {self.role!r}")
        if self.role == "retrieval":
            if self.write is None:
                raise ValueError(f"retrieval stage {self.name!r} needs `write`: what it finds for a later stage")
            return
        if (self.prompt is None) == (self.reads is None) and (self.prompt is not None or self.write is None):
            raise ValueError(f"stage {self.name!r} needs either `prompt` (a first stage) or `reads` (a later one), "
                             "or only `write` (its calls built from what it reads; its experiment's plan prices it)")
        if self.request is None and (self.prompt or self.reads):
            raise ValueError(f"stage {self.name!r} calls a model: declare its `request`")
        if self.reads is not None and not (self.template and self.known and len(self.slots) == 1):
            raise ValueError(f"stage {self.name!r} reads {self.reads!r}: declare its template, known and one slot")
        if self.retrieved is not None and not (self.template and self.known):
            raise ValueError(f"stage {self.name!r} holds what retrieval finds: declare its template and known fields")
        if self.reads is not None and self.write is None:
            raise ValueError(f"stage {self.name!r} reads {self.reads!r}: declare what it writes (`write`)")

    @property
    def calls_model(self) -> bool:
        return self.role != "retrieval"

    def model(self, p) -> str:
        """The model spec this stage calls under parameters `p`."""
        return judge_spec(p.model, p.judge_model) if self.role == "judge" else p.model

    def requests(self, p) -> list[Request]:
        made = self.request(p)
        return list(made) if isinstance(made, (list, tuple)) else [made]

    def concurrency(self, p) -> int:
        return self.workers if isinstance(self.workers, int) else int(getattr(p, self.workers, 1) or 1)

    def ask(self, p, sample):
        """A first stage's call for one sample, as the run sends it (the Reply)."""
        if self.prompt is None:
            raise TypeError(f"stage {self.name!r} has no prompt of its own: its `write` makes its calls")
        return self.send(p, self.prompt(sample))

    def send(self, p, prompt):
        """This stage's call with a prompt built at run time (from what retrieval found: the plan's declared
        exception, priced by its template)."""
        (request,) = self.requests(p)
        return complete(self.model(p), prompt, stage=self.name, request=request)

    def with_retrieved(self, sample, found: str) -> str:
        """The prompt once retrieval has found `found` (what fills the retrieved slot): the stage's template with
        the sample's known fields, the very template the plan prices."""
        return render(self.template, **self.known(sample), **{self.retrieved.slot: found})

    def asked(self, sample) -> bool:
        return self.when is None or bool(self.when(sample))

    def but(self, **changes) -> "Stage":
        """This stage with some fields changed (the same answer asked under another name, reading another stage)."""
        return replace(self, **changes)


def each_model(p) -> list:
    """One arm per model of `p.models` (an experiment every model of which answers the same samples): the
    parameters with `model` set to that model, as a stage reads them (`Stage.model`)."""
    return [SimpleNamespace(**vars(p), model=m) for m in p.models]
