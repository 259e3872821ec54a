"""An UpdateItem request built up one attribute at a time, every attribute name aliased (`status` and others are
reserved words) and every value a placeholder, then run on its condition."""

from __future__ import annotations

from mnemo.adapters.dynamodb.attributes import AttributeValue, Item
from mnemo.adapters.dynamodb.operations import Operations


class UpdateExpression:
    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: Item = {}
        self._aliases: dict[str, str] = {}
        self._set: list[str] = []
        self._remove: list[str] = []

    def name(self, attribute: str) -> str:
        alias = self._aliases.setdefault(attribute, f"#n{len(self._aliases)}")
        self.names[alias] = attribute
        return alias

    def value(self, given: AttributeValue) -> str:
        placeholder = f":v{len(self.values)}"
        self.values[placeholder] = given
        return placeholder

    def set(self, attribute: str, given: AttributeValue) -> UpdateExpression:
        self._set.append(f"{self.name(attribute)} = {self.value(given)}")
        return self

    def set_if_absent(self, attribute: str, given: AttributeValue) -> UpdateExpression:
        alias = self.name(attribute)
        self._set.append(f"{alias} = if_not_exists({alias}, {self.value(given)})")
        return self

    def remove(self, attribute: str) -> UpdateExpression:
        self._remove.append(self.name(attribute))
        return self

    def run(self, ops: Operations, item_key: Item, condition: str) -> bool:
        """Whether the update was made (False: the condition failed, nothing was written)."""
        expression = "SET " + ", ".join(self._set)
        if self._remove:
            expression += " REMOVE " + ", ".join(self._remove)
        reply = ops.conditionally(
            "update_item",
            Key=item_key,
            UpdateExpression=expression,
            ConditionExpression=condition,
            ExpressionAttributeNames=self.names,
            ExpressionAttributeValues=self.values,
        )
        return reply is not None
