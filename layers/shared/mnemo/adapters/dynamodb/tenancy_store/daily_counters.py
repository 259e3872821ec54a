"""A project's counters per day on the accounts table (mnemo.ports.usage_counters.DailyCounterStore): one item per
project, day and name in the project's partition (`T#PROJ#<project>` / `DAY#<yyyy-mm-dd>#<name>`), bumped by an
atomic ADD, read by one Query over the range of sort keys of the days asked for. Being in the project's partition,
they go when the project is deleted (DynamoDirectoryStore.delete_project deletes every item of it)."""

from __future__ import annotations

from datetime import date

from mnemo.adapters.dynamodb.attributes import integer, placeholders, text
from mnemo.adapters.dynamodb.codec import key
from mnemo.adapters.dynamodb.tenancy_store.keys import project_pk
from mnemo.adapters.dynamodb.tenancy_store.table import TenancyTable

DAY = "DAY#"
AFTER_NAMES = "~"  # sorts after every counter name (letters, digits, underscores)


def daily_counter_sk(day: date, name: str) -> str:
    return f"{DAY}{day.isoformat()}#{name}"


class DynamoDailyCounterStore(TenancyTable):
    def bump_daily(self, project_id: str, day: date, name: str, by: int = 1) -> None:
        """An atomic ADD: concurrent bumps never lose one."""
        self._ops.client.update_item(
            TableName=self._ops.table,
            Key=key(project_pk(project_id), daily_counter_sk(day, name)),
            UpdateExpression="ADD #v :by SET #n = :name, #d = :day",
            ExpressionAttributeNames={"#v": "value", "#n": "name", "#d": "day"},
            ExpressionAttributeValues=placeholders(by=by, name=name, day=day.isoformat()),
        )

    def daily_counters(self, project_id: str, first: date, last: date) -> dict[date, dict[str, int]]:
        found: dict[date, dict[str, int]] = {}
        for item in self._ops.items(
            "query",
            KeyConditionExpression="pk = :pk AND sk BETWEEN :low AND :high",
            ExpressionAttributeValues=placeholders(
                pk=project_pk(project_id),
                low=f"{DAY}{first.isoformat()}#",
                high=f"{DAY}{last.isoformat()}#{AFTER_NAMES}",
            ),
            ConsistentRead=True,
        ):
            found.setdefault(date.fromisoformat(text(item, "day")), {})[text(item, "name")] = integer(item, "value")
        return found
