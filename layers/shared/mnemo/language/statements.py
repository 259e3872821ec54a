"""What a pack's deterministic extractor reads and answers: the turns of a conversation, the sentences of a
message with their spans, and the statements it keeps, each citing where it came from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Cited:
    """Where a statement came from: a sentence of a message (`content[start:end]` of message `message_index`)."""

    message_index: int
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Statement:
    text: str
    cited: tuple[Cited, ...]  # the user's sentence, and the assistant's question it answers when it needed it

    @property
    def message_index(self) -> int:
        """The user's message it came from."""
        return self.cited[-1].message_index


@dataclass(frozen=True, slots=True)
class Turn:
    index: int
    role: str
    content: str
