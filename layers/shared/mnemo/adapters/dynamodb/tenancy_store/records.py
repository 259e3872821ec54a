"""A project's other records on the accounts table (mnemo.ports.tenancy_store.ProjectRecordStore): its exports
(`T#EXPORTS#<project>`, a large result in parts under `T#EXPORTPARTS#<project>`), the feedback on its memories
and its call counters (both in the project's partition).
"""

from __future__ import annotations

from typing import Any

from mnemo.adapters.dynamodb.attributes import Item, attributes, binary, integer, placeholders, text
from mnemo.adapters.dynamodb.codec import json_of, json_value, key, key_of, packed_json, unpacked_json
from mnemo.adapters.dynamodb.operations import TransactionCancelledError, fitting, projection
from mnemo.adapters.dynamodb.tenancy_store.items import export_attributes, export_of, feedback_item, feedback_of
from mnemo.adapters.dynamodb.tenancy_store.keys import (
    COUNTER,
    counter_key,
    export_part_key,
    export_parts_pk,
    export_pointer_key,
    exports_pk,
    feedback_key,
    project_pk,
)
from mnemo.adapters.dynamodb.tenancy_store.table import TenancyTable
from mnemo.domain.erasure import Erasure, scrubbed_export
from mnemo.domain.tenancy import Feedback, MemoryExport
from mnemo.errors import ConflictError

# An export's compressed result beyond this is stored in parts of this size, in items of their own.
EXPORT_PART_BYTES = 300 * 1024


class DynamoProjectRecordStore(TenancyTable):
    # ---- exports ----

    def save_export(self, export: MemoryExport) -> None:
        """The result compressed, inline when it fits, else in parts written first (`T#EXPORTPARTS#<project>` /
        `<export sk>#<n>`): the export item, written last, is what makes the export exist."""
        sk = self._ordered_sk(export.created_at, export.id)
        pointer = {**export_pointer_key(export.project_id, export.id), **attributes(export_sk=sk)}
        packed = packed_json(export.result)
        item = {**key(exports_pk(export.project_id), sk), **export_attributes(export)}
        if len(packed) <= EXPORT_PART_BYTES:
            item |= attributes(result_z=packed)
        else:
            fitting({**item, **attributes(result_parts=0)})  # before any part is written
            parts = [packed[i : i + EXPORT_PART_BYTES] for i in range(0, len(packed), EXPORT_PART_BYTES)]
            self._ops.batch_write(
                [
                    {"PutRequest": {"Item": {**export_part_key(export.project_id, sk, n), **attributes(data=part)}}}
                    for n, part in enumerate(parts)
                ]
            )
            item |= attributes(result_parts=len(parts))
        try:
            self._ops.transact([self._ops.put_new(pointer), self._ops.put(item)])
        except TransactionCancelledError:
            raise ConflictError(f"An export with id {export.id} already exists.") from None

    def _export_of(self, item: Item) -> MemoryExport:
        if "result_parts" in item:
            parts = self._ops.partition(export_parts_pk(text(item, "project_id")), f"{text(item, 'sk')}#")
            packed = b"".join(binary(p, "data") for p in parts[: integer(item, "result_parts")])
            return export_of(item, unpacked_json(packed))
        return export_of(item, json_value(item, "result"))

    def get_export(self, project_id: str, export_id: str) -> MemoryExport | None:
        pointer = self._ops.get(export_pointer_key(project_id, export_id))
        item = None if pointer is None else self._ops.get(key(exports_pk(project_id), text(pointer, "export_sk")))
        return None if item is None else self._export_of(item)

    def latest_export(self, project_id: str, filters: dict[str, Any] | None = None) -> MemoryExport | None:
        """Newest first, reading each export's filters only; the result of the one found alone is decoded."""
        names = ["pk", "sk", "filters"]
        for item in self._ops.items(
            "query",
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues=placeholders(pk=exports_pk(project_id)),
            ScanIndexForward=False,
            ConsistentRead=True,
            **projection(names),
        ):
            if filters is None or json_of(item, "filters") == filters:
                found = self._ops.get(key_of(item))
                return None if found is None else self._export_of(found)
        return None

    def erase_from_exports(self, project_id: str, erasure: Erasure) -> int:
        """A Query of the project's exports; each that held an erased memory written again whole (its result
        inline, or its parts rewritten first and the ones left over deleted)."""
        changed = 0
        for item in self._ops.partition(exports_pk(project_id)):
            export = self._export_of(item)
            clean = scrubbed_export(export, erasure)
            if clean is not None:
                self._rewrite_result(item, clean)
                changed += 1
        return changed

    def _rewrite_result(self, item: Item, export: MemoryExport) -> None:
        sk = text(item, "sk")
        packed = packed_json(export.result)
        fresh = {**key_of(item), **export_attributes(export)}
        old_parts = integer(item, "result_parts") if "result_parts" in item else 0
        parts = [packed[i : i + EXPORT_PART_BYTES] for i in range(0, len(packed), EXPORT_PART_BYTES)]
        if len(packed) <= EXPORT_PART_BYTES:
            fresh |= attributes(result_z=packed)
            parts = []
        else:
            self._ops.batch_write(
                [
                    {"PutRequest": {"Item": {**export_part_key(export.project_id, sk, n), **attributes(data=part)}}}
                    for n, part in enumerate(parts)
                ]
            )
            fresh |= attributes(result_parts=len(parts))
        self._ops.client.put_item(TableName=self._ops.table, Item=fitting(fresh))
        self._ops.delete_many(export_part_key(export.project_id, sk, n) for n in range(len(parts), old_parts))

    # ---- feedback ----

    def save_feedback(self, feedback: Feedback) -> None:
        self._ops.client.put_item(TableName=self._ops.table, Item=fitting(feedback_item(feedback)))

    def get_feedback(self, project_id: str, memory_id: str) -> Feedback | None:
        item = self._ops.get(feedback_key(project_id, memory_id))
        return None if item is None else feedback_of(item)

    # ---- counters ----

    def bump_counter(self, project_id: str, name: str, by: int = 1) -> None:
        """An atomic ADD: concurrent bumps never lose one."""
        self._ops.client.update_item(
            TableName=self._ops.table,
            Key=counter_key(project_id, name),
            UpdateExpression="ADD #v :by SET #n = :name",
            ExpressionAttributeNames={"#v": "value", "#n": "name"},
            ExpressionAttributeValues=placeholders(by=by, name=name),
        )

    def counters(self, project_id: str) -> dict[str, int]:
        return {text(i, "name"): integer(i, "value") for i in self._ops.partition(project_pk(project_id), COUNTER)}
