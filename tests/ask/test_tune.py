"""`brief tune`: the answer metric, BootstrapFewShot over evaluation cases with DummyLM, save and reload."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM
from typer.testing import CliRunner

from briefing.ask.answer import LLMAnswerer
from briefing.ask.tune import answer_score, load_program, program_path, to_example, tune
from briefing.evaluation.cases import Case
from briefing.settings import Settings, WorkspaceSettings
from tests.ask.conftest import NOW, workspace_chunks
from tests.conftest import SampleIndex

SUBSET = Path(__file__).resolve().parents[2] / "eval" / "ci_subset.jsonl"

QUESTIONS = {
    "q1": ("When is the Aurora cutover?", [["june 12"]]),
    "q2": ("Why did the cutover move?", [["replica lag"]]),
    "q3": ("Which cluster had the lag?", [["old cluster"]]),
    "q4": ("What date did we pick for the cutover?", [["june 12", "12 june"]]),
    "q5": ("What was too high before the cutover?", [["lag"]]),
    "q6": ("Who moved the cutover?", [["alice"]]),
    "q7": ("What is the hiring budget for next year?", []),
}


def _case(cid: str) -> Case:
    question, keywords = QUESTIONS[cid]
    return Case(
        id=cid,
        question=question,
        now=NOW.isoformat(),
        gold_refs=(),
        answer_keywords=tuple(tuple(g) for g in keywords),
        no_answer=not keywords,
        category="no_answer" if not keywords else "direct",
    )


def _examples() -> list[Any]:
    context = workspace_chunks()[:3]
    return [to_example(_case(cid), context) for cid in QUESTIONS]


def _right(cid: str) -> dict[str, Any]:
    question, keywords = QUESTIONS[cid]
    if not keywords:
        return {"answer": "The evidence does not mention a hiring budget.", "sufficient": False}
    return {"answer": f"{keywords[0][0].capitalize()}, says Alice Chen [1].", "sufficient": True}


def test_metric_rewards_facts_with_valid_citations_and_right_refusals() -> None:
    ex = {e.case_id: e for e in _examples()}
    pred = dspy.Prediction
    assert answer_score(ex["q1"], pred(answer="It moved to June 12 [1].", sufficient=True)) == 1.0
    assert answer_score(ex["q1"], pred(answer="It moved to June 12.", sufficient=True)) == 0.5  # no citation
    assert answer_score(ex["q1"], pred(answer="It moved to June 12 [9].", sufficient=True)) == 0.5  # no block 9
    assert answer_score(ex["q1"], pred(answer="It moved to May 3 [1].", sufficient=True)) == 0.0
    assert answer_score(ex["q1"], pred(answer="Not covered.", sufficient=False)) == 0.0  # a wrong refusal
    assert answer_score(ex["q7"], pred(answer="Not covered.", sufficient=False)) == 1.0
    assert answer_score(ex["q7"], pred(answer="It is 2M [1].", sufficient=True)) == 0.0
    assert answer_score(ex["q1"], pred(answer="June 12 [1]", sufficient="True"), trace=[]) is True


def test_tune_bootstraps_only_right_answers_and_saves_them(tmp_path: Path) -> None:
    wrong = {"q2", "q5"}  # the LM gets these wrong: they must not become demos
    answers = {
        QUESTIONS[cid][0]: (
            {"answer": "The cutover is in May [1].", "sufficient": True} if cid in wrong else _right(cid)
        )
        for cid in QUESTIONS
    }
    lm = DummyLM(answers)
    path = tmp_path / "ws" / "tuned" / "answer_program.json"
    report = tune(_examples(), lm, path, dev_fraction=0.3, max_demos=8, seed=1)

    assert report.train + report.dev == len(QUESTIONS) and report.dev == 2
    saved = json.loads(path.read_text())
    demo_questions = {d["question"] for d in saved["demos"]}
    assert report.demos == len(demo_questions) > 0
    assert all(QUESTIONS[w][0] not in demo_questions for w in wrong)
    assert all(d["sufficient"] in (True, False, "True", "False") for d in saved["demos"])
    assert 0.0 <= report.before <= 1.0 and 0.0 <= report.after <= 1.0


def test_the_saved_program_is_loaded_and_its_demos_reach_the_prompt(tmp_path: Path) -> None:
    path = tmp_path / "answer_program.json"
    tune(_examples(), DummyLM({QUESTIONS[c][0]: _right(c) for c in QUESTIONS}), path, dev_fraction=0.0, max_demos=2)
    program = load_program(path)
    assert len(program.demos) == 2
    lm = DummyLM([{"answer": "The cutover is on June 12 [1].", "sufficient": True}])
    answerer = LLMAnswerer(lm, program)
    assert answerer.tuned
    draft = answerer.answer("When do we cut over?", NOW.isoformat(), workspace_chunks()[:2])
    assert draft.text.startswith("The cutover is on June 12") and draft.sufficient
    prompt = json.dumps(lm.history[-1]["messages"])
    assert program.demos[0]["question"] in prompt  # the few-shot demo was sent with the question


def test_program_path_is_under_the_workspace_home(tmp_path: Path) -> None:
    settings = Settings(workspace=WorkspaceSettings(name="team"))
    settings.home = tmp_path
    assert program_path(settings) == tmp_path / "workspaces" / "team" / "tuned" / "answer_program.json"
    assert load_program(program_path(settings)).demos == []  # nothing tuned yet: a fresh program


def test_tune_without_an_llm_says_what_to_configure(tmp_path: Path) -> None:
    from briefing.cli.app import app

    config = tmp_path / "brief.toml"
    config.write_text('[workspace]\nname = "t"\n')
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({**_case("q1").__dict__, "gold_refs": [], "answer_keywords": [["june 12"]]}) + "\n")
    result = CliRunner().invoke(app, ["--config", str(config), "tune", str(cases)])
    assert result.exit_code == 3, result.output
    assert "[llm] model" in result.output and str(config) in result.output


def test_brief_tune_over_http_then_ask_uses_the_tuned_program(
    sample_index: SampleIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole path: `brief tune` retrieves from a real index, BootstrapFewShot calls a real LiteLLM LM over
    HTTP, the program is saved under BRIEF_HOME, and the next `brief ask` sends its demo to the model."""
    from briefing.cli.app import app
    from tests.fakes.openai_server import Reply, chat_fields, scripted_llm

    home, workspace = tmp_path / "home", tmp_path / "workspace"
    shutil.copytree(sample_index.home, home)  # a private copy: tuning writes under BRIEF_HOME
    shutil.copytree(sample_index.config.parent, workspace)
    monkeypatch.setenv("BRIEF_HOME", str(home))
    monkeypatch.setenv("BRIEF_TEST_LLM_KEY", "sk-test-tune-0123456789")
    cases = tmp_path / "cases.jsonl"
    lines = [json.loads(line) for line in SUBSET.read_text().splitlines()[:2]]
    cases.write_text("\n".join(json.dumps(c) for c in lines) + "\n")
    first, second = lines
    facts = " ".join(group[0] for case in lines for group in case["answer_keywords"])
    right = chat_fields(answer=f"{facts} [1].", sufficient=True)  # right for both cases, whichever is held out
    # dev score before (1 case), the bootstrap on the training case, dev score after, then one ask
    # (the ask also routes with the same model: that reply does not parse as a tool step, so the router falls back)
    with scripted_llm(*[Reply(content=right) for _ in range(12)]) as (url, fake):
        config = workspace / "brief.toml"
        config.write_text(
            config.read_text()
            + f'\n[llm]\nmodel = "openai/scripted"\napi_base = "{url}"\napi_key_env = "BRIEF_TEST_LLM_KEY"\n'
        )
        runner = CliRunner()
        tuned = runner.invoke(app, ["--config", str(config), "tune", str(cases), "--dev-fraction", "0.5", "--json"])
        assert tuned.exit_code == 0, tuned.output
        report = json.loads(tuned.stdout.strip().splitlines()[-1])
        assert (report["train"], report["dev"], report["demos"]) == (1, 1, 1)
        assert report["dev_score_after"] == 1.0
        saved = Path(report["path"])
        assert saved.is_relative_to(home) and saved.is_file()
        assert len(fake.requests) == 3  # dev before, bootstrap, dev after: no retries, no extra calls
        asked = runner.invoke(app, ["--config", str(config), "ask", first["question"], "--now", first["now"], "--json"])
        assert asked.exit_code == 0, asked.output
    assert json.loads(asked.stdout)["answer"].startswith(facts)
    demo_question = json.loads(saved.read_text())["demos"][0]["question"]
    assert demo_question in {first["question"], second["question"]}
    answer_calls = [r for r in fake.requests[3:] if "`evidence`" in r["messages"][0]["content"]]
    assert answer_calls and demo_question in json.dumps(answer_calls[-1]["messages"])  # the tuned demo was sent
