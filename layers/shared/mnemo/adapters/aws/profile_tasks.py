"""Profile tasks on AWS (mnemo.ports.profile_tasks): each task is a message of the profile SQS queue (a standard
queue, so that each message can be delayed: the debounce of a generation), which the ingest worker reads."""

from __future__ import annotations

import math

from mnemo.adapters.aws.queue import MAX_RETRY_SECONDS, SqsQueue
from mnemo.domain.profiles import ProfileTask


class SqsProfileTasks:
    def __init__(self, queue: SqsQueue) -> None:
        if queue.fifo:
            raise ValueError("The profile queue must be a standard SQS queue: its messages are delayed one by one.")
        self._queue = queue

    def dispatch(self, task: ProfileTask, delay: float = 0.0) -> None:
        """`delay` rounded up to whole seconds, at most 15 minutes (SQS's longest)."""
        seconds = min(MAX_RETRY_SECONDS, max(0, math.ceil(delay)))
        self._queue.send(task.to_json(), delay_seconds=seconds)
