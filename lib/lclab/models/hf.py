"""A Hugging Face model directory run in-process by transformers (spec `hf/<dir>?dtype=...`).

For models that exist only as transformers checkpoints (the form RAG-IFEval's
own local runner takes). Like the other backends it does one request and
nothing else; calls are serialized, since one CPU model gains nothing from
overlapping them. Only plain text is supported: no JSON schema, no logprobs.
"""

from __future__ import annotations

import hashlib
import threading
from functools import cached_property
from pathlib import Path

from .errors import ContextLengthError, FatalError
from .local_models import file_sha256
from .protocol import RawReply, Settings
from .specs import ModelSpec

# Load options a spec may carry. The seed's defaults (float16, flash_attention_2)
# assume a GPU; on a CPU float32 and PyTorch's own attention are what work.
_OPTIONS = {"dtype": "float32", "attn_implementation": "sdpa"}
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".json", ".model", ".txt", ".jinja")


class HFBackend:
    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.path = Path(spec.model).expanduser().resolve()
        if not (self.path / "config.json").is_file():
            raise FatalError(f"{spec.raw}: {self.path} is not a transformers model directory (no config.json)")
        unknown = {k for k, _ in spec.options} - set(_OPTIONS)
        if unknown:
            raise FatalError(f"{spec.raw}: unknown option(s) {sorted(unknown)}; known: {sorted(_OPTIONS)}")
        self.options = {**_OPTIONS, **dict(spec.options)}
        self.tokenizer_name = f"transformers tokenizer of {self.path.name}"
        self._lock = threading.Lock()

    @cached_property
    def identity(self) -> dict:
        # The files that decide a reply (weights, config, tokenizer, chat template), hashed.
        digest = hashlib.sha256()
        for f in sorted(p for p in self.path.iterdir() if p.is_file() and p.name.endswith(_WEIGHT_SUFFIXES)):
            digest.update(f"{f.name}:{file_sha256(f)}\n".encode())
        return {"backend": "transformers", "model_sha256": digest.hexdigest(), **self.options}

    @cached_property
    def _tokenizer(self):
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(self.path, local_files_only=True)

    @cached_property
    def _model(self):
        import torch
        from transformers import AutoModelForCausalLM

        dtype = getattr(torch, self.options["dtype"], None)
        if not isinstance(dtype, torch.dtype):
            raise FatalError(f"{self.spec.raw}: dtype {self.options['dtype']!r} is not a torch dtype")
        model = AutoModelForCausalLM.from_pretrained(
            self.path, dtype=dtype, attn_implementation=self.options["attn_implementation"], local_files_only=True)
        return model.eval()

    @property
    def n_ctx(self) -> int | None:
        return getattr(self._model.config, "max_position_embeddings", None)

    def context_window(self) -> int | None:
        return self.n_ctx

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def _chat_ids(self, messages: list[dict]) -> list[int]:
        if not self._tokenizer.chat_template:
            raise FatalError(f"{self.spec.raw} has no chat template: run it with text_completion")
        encoded = self._tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                                      return_dict=True)
        return list(encoded["input_ids"])

    def count_prompt_tokens(self, messages: list[dict]) -> int:
        return len(self._chat_ids(messages))

    def chat_text(self, messages: list[dict]) -> str | None:
        if not self._tokenizer.chat_template:
            return None
        return self._tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def complete(self, messages: list[dict], settings: Settings, timeout: float) -> RawReply:
        if settings.response_format is not None or settings.logprobs:
            raise FatalError(f"{self.spec.raw}: the transformers backend gives plain text only "
                             "(no response_format, no logprobs)")
        return self._generate(self._chat_ids(messages), settings)

    def complete_text(self, prompt: str, settings: Settings, timeout: float) -> RawReply:
        return self._generate(list(self._tokenizer(prompt)["input_ids"]), settings)

    def _generate(self, ids: list[int], settings: Settings) -> RawReply:
        import torch

        if self.n_ctx and len(ids) + settings.max_tokens > self.n_ctx:
            raise ContextLengthError(
                f"prompt of {len(ids)} tokens plus max_tokens={settings.max_tokens} exceeds the "
                f"{self.n_ctx} positions of {self.path.name}: shorten the prompt or lower max_tokens")
        sampling = settings.temperature > 0
        with self._lock, torch.inference_mode():
            torch.manual_seed(settings.seed)  # a sampled reply repeats for the same seed
            out = self._model.generate(
                torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                max_new_tokens=settings.max_tokens, do_sample=sampling,
                temperature=settings.temperature if sampling else None, top_p=None, top_k=None,
                pad_token_id=self._tokenizer.pad_token_id or self._tokenizer.eos_token_id)
        new = out[0, len(ids):].tolist()
        eos = self._model.generation_config.eos_token_id
        eos = set(eos if isinstance(eos, list) else [eos])
        stopped = bool(new) and new[-1] in eos
        return RawReply(
            text=self._tokenizer.decode(new, skip_special_tokens=True),
            logprobs=None,
            prompt_tokens=len(ids),
            completion_tokens=len(new),
            finish_reason="stop" if stopped else "length",
        )
