import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import GenerateConfig, ModelOutput, get_model
from inspect_ai.scorer import SampleScore

from inspect_culture.benchmarks.care.prompts import RESPONSE_CLOSE, RESPONSE_OPEN, judge_prompt
from inspect_culture.benchmarks.care.ratings import load_care_ratings
from inspect_culture.care_agreement import agreement, care_judge_agreement, record_to_sample
from inspect_culture.datasets_hub import DatasetUnavailableError, DataValidationError
from inspect_culture.inspect_adapter.errors import TaskSetupError
from inspect_culture.stats.human_agreement import agreement_metrics, correlations, histogram

RATINGS = Path(__file__).parents[2] / "data" / "care_ratings"


@pytest.fixture
def ratings_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "mirror" / "care" / "data"
    shutil.copytree(RATINGS, target)
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path / "mirror"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf_cache"))
    return target


def test_correlations_by_hand() -> None:
    # x = 1 2 3 4, y = 1 3 2 4: sum dxdy = 4, sum dx^2 = sum dy^2 = 5 -> r = 0.8; the ranks are
    # the values, so rho = 0.8; 5 concordant and 1 discordant pairs -> tau = 4/6
    expected = {"pearson": 0.8, "spearman": 0.8, "kendall": 2 / 3}
    assert correlations([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(expected)
    # undefined (a constant side) is NaN, not 0
    assert all(v != v for v in correlations([5, 5, 5], [1, 2, 3]).values())


def test_histogram_and_metrics() -> None:
    assert histogram([1, 9.5, 10, 3.2, 3]) == {**dict.fromkeys(range(1, 11), 0), 1: 1, 3: 2, 10: 2}
    opinion = [(1, 1, "opinion"), (2, 3, "opinion"), (None, 5, "opinion")]
    m = agreement_metrics([*opinion, (3, 2, "literacy"), (4, 4, "literacy")])
    assert (m["n_scored"], m["n_unscored"]) == (4.0, 1.0)
    assert m["pearson"] == pytest.approx(0.8)
    assert m["judge_hist_4"] == 1 and m["human_hist_5"] == 0  # the unscored pair is left out


def test_loader_reads_both_field_layouts_and_filters_language(ratings_mirror: Path) -> None:
    zh = load_care_ratings("zh")
    assert len(zh.records) == 13 and zh.provenance["rows_read"] == 17
    older = [r for r in zh.records if r["question"].startswith("旧问题")]
    assert [r["human_rating"] for r in older] == [3.0, 4.0, 5.0]  # string "rating" column
    assert older[0]["answer"] == ""  # the older layout has no reference answer
    assert len(load_care_ratings("ar").records) == 4
    assert len(load_care_ratings().records) == 17


def test_bad_rating_names_row_and_field(ratings_mirror: Path) -> None:
    path = ratings_mirror / "train-current.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[2]["human_rating"] = 11
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    with pytest.raises(DataValidationError, match="row 2, field 'human_rating'"):
        load_care_ratings("zh")


def test_missing_data_says_where_to_put_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CULTURE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("INSPECT_CULTURE_OFFLINE", "1")
    with pytest.raises(DatasetUnavailableError, match=f"geyang627/CARE.*{tmp_path}/care/data"):
        load_care_ratings("zh")


def test_a_language_with_no_rated_responses_is_refused(ratings_mirror: Path) -> None:
    message = "no rated responses for language='ja' in the CARE data"
    with pytest.raises(ValueError, match=message):
        load_care_ratings("ja")
    with pytest.raises(TaskSetupError, match=message):  # the Inspect task says the same
        care_judge_agreement(language="ja")


def test_record_to_sample_pins_a_rated_response(ratings_mirror: Path) -> None:
    record = load_care_ratings("zh").records[0]
    sample = record_to_sample(record, "paper")
    assert (sample.id, sample.target) == ("care_rating_00000", "1.0")
    assert sample.metadata == {"human_rating": 1.0, "category": "entities"}
    assert sample.input == judge_prompt("entities", "合成问题 0？", "参考答案 0", "模型回答 0")


def test_judge_rating_and_agreement_on_mockllm_count_epochs_once(
    ratings_mirror: Path, tmp_path: Path
) -> None:
    human = {r["response"]: r["human_rating"] for r in load_care_ratings("zh").records}
    temperatures = set()

    def verdict(
        messages: list[Any], tools: Any, choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        """The evaluated model is the judge: it agrees with the humans, but rates no "模型回答 3"."""
        temperatures.add(config.temperature)
        prompt = messages[-1].text
        response = prompt.split(RESPONSE_OPEN + "\n", 1)[1].split("\n" + RESPONSE_CLOSE, 1)[0]
        rated = "I will not rate this." if response == "模型回答 3" else f"[[{human[response]}]]"
        return ModelOutput.from_content(model="mockllm", content=rated)

    judge = get_model("mockllm/model", custom_outputs=verdict, memoize=False)
    metrics = {}
    for epochs in (1, 3):
        [log] = inspect_eval(
            care_judge_agreement(language="zh"), model=judge, epochs=epochs,
            log_dir=str(tmp_path / str(epochs)), display="none",
        )  # fmt: skip
        assert log.status == "success", log.error
        [result] = log.results.scores
        assert result.name == "judge_rating" and result.unscored_samples == epochs
        metrics[epochs] = {k: v.value for k, v in result.metrics.items()}
    assert temperatures == {0.0}  # the judge decodes greedily
    assert metrics[1]["n_scored"] == 12 and metrics[1]["pearson"] == pytest.approx(1.0)
    assert metrics[1]["kendall"] == pytest.approx(1.0)
    # ratings of 4: "模型回答 3" (unscored, left out) and "旧回答 1" (scored)
    assert metrics[1]["human_hist_10"] == 1
    assert metrics[1]["judge_hist_4"] == metrics[1]["human_hist_4"] == 1
    assert metrics[3] == metrics[1]
    unscored = [s.scores["judge_rating"] for s in log.samples if s.scores["judge_rating"].reason]
    assert len(unscored) == 3 and unscored[0].reason == "no parsable rating in the judge output"
    rated = [s for s in log.samples if s.scores["judge_rating"].reason is None]
    direct = agreement()(
        [SampleScore(score=s.scores["judge_rating"], sample_id=s.id) for s in rated]
    )
    assert direct == pytest.approx(metrics[1], nan_ok=True)


def test_rows_without_a_culture_are_counted_and_said_for_a_language(
    ratings_mirror: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = ratings_mirror / "train-current.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[0]["associated_culture"] = ""
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    with caplog.at_level("WARNING"):
        zh = load_care_ratings("zh")
    assert zh.provenance["rows_without_culture"] == 1
    assert "1 of 17 rows have an empty associated_culture" in caplog.text
    assert len(load_care_ratings().records) == 17  # all languages: nothing left out
