"""A variable that code under test sets for the whole process (main_job sets
INSPECT_CULTURE_JUDGE_CACHE with `os.environ.setdefault`) does not outlive its test
(tests/conftest.py): left behind, it gave every later test one shared judge cache."""

import os

# a name of its own, which no developer's shell sets, standing for main_job's variable
LEFT_BEHIND = "INSPECT_CULTURE_TEST_LEFT_BEHIND"


def test_code_under_test_may_set_a_variable_for_the_process(tmp_path) -> None:
    assert LEFT_BEHIND not in os.environ
    os.environ.setdefault(LEFT_BEHIND, str(tmp_path / "judge.sqlite"))  # as main_job does
    assert os.environ[LEFT_BEHIND].endswith("judge.sqlite")


def test_the_next_test_starts_without_it() -> None:
    assert LEFT_BEHIND not in os.environ
