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
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from ..models import Request, complete
from ..models.judge_choice import judge_spec

ROLES = ("model", "judge", "retrieval")


@dataclass(frozen=True)
class Given:
    """What every stage of one run is given: the parameters `p`, the judge chosen once for the run (its spec; ""
    where nothing is judged), and what the run built once and every sample reads (an index, the chunks' texts)."""

    p: Any
    judge: str = ""
    built: Mapping[str, Any] = field(default_factory=dict)


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

    def but(self, **changes) -> "Stage":
        """This stage with some fields changed (the same answer asked under another name, reading another stage)."""
        return replace(self, **changes)
