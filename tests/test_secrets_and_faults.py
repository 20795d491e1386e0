"""What a fault matrix against a local fake endpoint found, each kept fixed: a query value of any name stays out of
what is written, a link out of the corpus is not read, a refused spec's password is not printed, a model config's
credentials reach the server, a cut item-log line leaves a log pandas can read, a bug is not a failed item."""

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from lclab.models import Request, complete
from lclab.models.configs import model_config
from lclab.models.fault_server import FaultServer
from lclab.models.specs import SECRETS_ENV, parse_spec, redact
from lclab.runs.folders import ItemLog
from lclab.runs.naming import without_credentials
from lclab.text.corpus import load_corpus

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("query", ["code=CANARY1", "pwd=CANARY1", "jwt=CANARY1", "api-version=CANARY1&x=CANARY2"])
def test_no_query_value_of_any_name_survives_redaction(query):
    spec = f"openai/q@https://fn.example.net/api/v1?{query}"
    shown = redact(spec)
    assert "CANARY" not in shown
    assert shown.startswith("openai/q@https://fn.example.net/api/v1?")  # host, path and the names stay
    assert query.split("=")[0] in shown


def test_a_link_out_of_the_corpus_folder_is_not_read_and_is_named(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("CANARY: the contents of a private file")
    corpus = tmp_path / "manuals"
    corpus.mkdir()
    (corpus / "guide.txt").write_text("How to reset the device: hold the button for ten seconds.")
    (corpus / "notes.txt").symlink_to(secret)
    (corpus / "same.txt").symlink_to(corpus / "guide.txt")  # a link that stays inside is an ordinary file
    with pytest.warns(UserWarning, match="notes.txt"):
        loaded = load_corpus(str(corpus))
    assert sorted(d.source for d in loaded.documents) == ["guide.txt", "same.txt"]
    assert [name for name, _ in loaded.skipped] == ["notes.txt"]
    assert "outside the corpus folder" in loaded.skipped[0][1]
    assert not any("CANARY" in d.text for d in loaded.documents)


def test_a_refused_spec_is_printed_without_its_password_or_key(tmp_path):
    spec = "openai/f@http://u:CANARYPASS@127.0.0.1:0/v1?api_key=CANARYKEY"
    env = {**os.environ, "PYTHONPATH": str(REPO / "lib")}
    ran = subprocess.run([sys.executable, "-m", "lclab.runs.notebooks", "--profile", "smoke", "--model", spec,
                          "--plan", "09_synthetic_tasks"], capture_output=True, text=True, env=env, timeout=300,
                         cwd=REPO)
    assert ran.returncode == 2
    assert "port 0" in ran.stderr and "CANARY" not in ran.stdout + ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1


def test_an_endpoint_that_is_not_http_is_refused_as_such():
    with pytest.raises(ValueError, match="http"):
        parse_spec("openai/f@ftp://127.0.0.1/v1")


def test_a_model_config_with_credentials_reaches_its_server_with_them(monkeypatch):
    monkeypatch.setenv(SECRETS_ENV, "{}")  # restored after the test: hiding a spec records it here
    with FaultServer(reply="ok") as server:
        url = server.base_url.replace("http://", "http://lab:CANARYPW@") + "?api_key=CANARYKEY"
        config = without_credentials({"model": "bielik", "api_base": url})  # as ./run_all.sh hands it over
        assert "CANARY" not in json.dumps(config)
        spec = model_config(config).spec
        assert "CANARY" not in spec
        assert complete(spec, "Say ok.", stage="answer", request=Request(max_tokens=4)).text == "ok"
    auth = server.headers[0].get("Authorization", "")
    assert auth == "Basic " + base64.b64encode(b"lab:CANARYPW").decode()
    assert server.queries[0] == "api_key=CANARYKEY"


def test_a_cut_item_log_line_is_moved_aside_and_the_log_reads_back_with_pandas(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"id": 1, "answer": "a"}) + "\n" + '{"id": 2, "answ')  # cut mid-row
    log = ItemLog(path, ["id"])
    with pytest.warns(UserWarning, match="cut short.*items.jsonl.damaged"):
        log.append({"id": 2, "answer": "b"})
    assert pd.read_json(path, lines=True)["id"].tolist() == [1, 2]
    assert (tmp_path / "items.jsonl.damaged").read_text() == '{"id": 2, "answ\n'
