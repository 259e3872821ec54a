"""Which CPU each worker of `mnemo serve --workers` is kept on (mnemo.entrypoints.http_workers.worker_cpus)."""

from __future__ import annotations

import pytest

from mnemo.entrypoints.http_workers import worker_cpus


def test_given_as_many_workers_as_cpus_when_auto_then_each_worker_gets_a_cpu_of_its_own() -> None:
    assert worker_cpus(2, [0, 1], "auto") == [0, 1]
    assert worker_cpus(4, [2, 3, 6, 7], "auto") == [2, 3, 6, 7]  # the CPUs the process may use, not 0..n-1


@pytest.mark.parametrize(("workers", "cpus"), [(1, [0]), (1, [0, 1]), (2, [0, 1, 2, 3]), (3, [0, 1])])
def test_given_workers_and_cpus_that_differ_in_number_when_auto_then_no_worker_is_pinned(
    workers: int, cpus: list[int]
) -> None:
    assert worker_cpus(workers, cpus, "auto") == [None] * workers


def test_given_true_then_worker_i_runs_on_the_ith_cpu_round_again_past_the_last() -> None:
    assert worker_cpus(3, [4, 5], "true") == [4, 5, 4]
    assert worker_cpus(2, [0, 1, 2, 3], "true") == [0, 1]


def test_given_false_or_no_known_cpus_then_no_worker_is_pinned() -> None:
    assert worker_cpus(2, [0, 1], "false") == [None, None]
    assert worker_cpus(2, [], "true") == [None, None]
