"""Before set-up has anything to probe, a plan prices at the reference machine's speeds scaled by this machine's
numpy figures (lclab.planning.machine); a probed model is priced at its own speeds."""

import json

import pytest

MODEL = "local/qwen2.5-coder-0.5b"


def _keep_figures(record, **figures):
    from lclab.planning import speed

    known = json.loads(record.read_text()) if record.exists() else {}
    known.setdefault(speed._machine(), {})[speed.PROXY_KEY] = figures
    record.write_text(json.dumps(known))


def test_the_figures_are_measured_in_a_child_process_and_kept_at_their_fastest(record, monkeypatch):
    from lclab.planning import machine, speed

    figures = machine.measure()
    assert set(figures) == {"gflops", "gflops_1", "gbps"} and all(v > 0 for v in figures.values())
    assert machine.measured() == figures and speed.proxy_ratios().keys() == figures.keys()
    assert machine.ensure() == figures  # kept: not measured again
    # A plan before set-up measures again and keeps each figure at the fastest seen here: a first measurement
    # slowed by other work is not kept for good (this test worker's share of the cores stands for the machine).
    monkeypatch.setattr(machine, "threads_limited", lambda: False)
    _keep_figures(record, **(figures | {"gflops": 1e6}))
    again = machine.ensure(again=True)
    assert again["gflops"] == 1e6 and again["gbps"] >= figures["gbps"] and machine.measured() == again


def test_a_test_workers_share_of_the_cores_is_not_measured_as_the_machine(record, monkeypatch):
    from lclab.planning import machine

    monkeypatch.setattr(machine, "threads_limited", lambda: True)
    monkeypatch.setattr(machine, "measure", lambda: pytest.fail("measured on a share of the cores"))
    assert machine.ensure() == {}


def test_a_slower_machine_scales_each_reference_speed_by_its_own_figure(record):
    from lclab.planning.speed import REFERENCE, SUSTAINED, reference_basis, seconds_for, speed_factor, speeds

    there = REFERENCE["proxy"]
    reference = REFERENCE["models"][MODEL]
    unscaled = seconds_for(MODEL, 1_000, 100, 2, 2 * 500 ** 2, constrained=True)
    assert "unscaled" in reference_basis()
    # half the reference's matrix products on every core, a third of its memory copy, a quarter on one core
    _keep_figures(record, gflops=there["gflops"] / 2, gbps=there["gbps"] / 3, gflops_1=there["gflops_1"] / 4)
    prefill, decode, overhead, _ = speeds(MODEL)
    assert prefill == pytest.approx(2 * reference["prefill_s_per_token"])
    assert decode == pytest.approx((2 * 2 / 3 + 3 / 3) * reference["decode_s_per_token"])  # 2/3 compute, 1/3 memory
    assert overhead == pytest.approx(4 * reference["call_s"])
    scaled = seconds_for(MODEL, 1_000, 100, 2, 2 * 500 ** 2, constrained=True)
    assert 2 * unscaled < scaled < 4 * unscaled
    assert speed_factor(MODEL) == (SUSTAINED, reference_basis())
    assert "(prefill x2.00, decode x2.33), x1.04 for a long run" in reference_basis()
    # an embedder's texts are priced by the figures alone (a plan's embed rows are not a stream of model calls)
    factor, source = speed_factor("local/all-MiniLM-L6-v2")
    assert factor == 1.0 and "x2.00 by this machine's numpy figures; set-up probes" in source


def test_a_probed_model_is_priced_at_its_probe_whatever_the_figures_say(record):
    from lclab.planning import probe
    from lclab.planning.speed import REFERENCE, speeds

    _keep_figures(record, **{k: v / 2 for k, v in REFERENCE["proxy"].items()})
    probe._keep(MODEL, {"prefill_s_per_token": 0.002, "decode_s_per_token": 0.02, "call_s": 0.001,
                        "prompt_tokens_per_s": 500.0, "decode_tokens_per_s": 50.0})
    assert speeds(MODEL)[:3] == (0.002, 0.02, 0.001)
    # the plan before the probe (what the probe's factor is taken against) still scales the reference
    assert speeds(MODEL, probed=False)[0] == pytest.approx(2 * REFERENCE["models"][MODEL]["prefill_s_per_token"])


def test_the_reference_holds_every_embedded_model_and_the_default_embedder():
    from lclab.models.embeddings import DEFAULT_EMBEDDER
    from lclab.models.local_models import EMBEDDED_MODELS
    from lclab.planning.speed import REFERENCE, SCALED_BY

    assert {f"local/{m}" for m in EMBEDDED_MODELS} | {DEFAULT_EMBEDDER} == set(REFERENCE["models"])
    for model, record in REFERENCE["models"].items():
        priced = {k for k in record if k in SCALED_BY}
        assert priced, f"{model}: no speed the figures scale"
    assert set(REFERENCE["proxy"]) == {"gflops", "gflops_1", "gbps"}


def test_a_plan_measures_the_figures_again_only_while_a_model_it_needs_is_unprobed(record, monkeypatch):
    from lclab.planning import machine, probe

    monkeypatch.setattr(machine, "threads_limited", lambda: False)
    _keep_figures(record, gflops=100.0, gflops_1=50.0, gbps=20.0)
    measured = []
    monkeypatch.setattr(machine, "measure", lambda fastest_kept=False: measured.append(fastest_kept) or {})
    machine.ensure_for(["qwen2.5-coder-0.5b"])  # not probed here: measured again, each figure kept at its fastest
    assert measured == [True]
    probe._keep(MODEL, {"prefill_s_per_token": 0.002, "decode_s_per_token": 0.02, "call_s": 0.001,
                        "prompt_tokens_per_s": 500.0, "decode_tokens_per_s": 50.0})
    assert machine.ensure_for(["qwen2.5-coder-0.5b"]) == {"gflops": 100.0, "gflops_1": 50.0, "gbps": 20.0}
    assert measured == [True]  # probed: the kept figures, nothing measured
