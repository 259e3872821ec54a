"""The prompts of the LLM path of add: fact extraction (extract.py), the per-fact decision against the related
memories (decide.py), and the summary of a procedural memory (procedural.py)."""

from __future__ import annotations

FACT_EXTRACTION = """You extract durable facts worth remembering about the people in a conversation: \
preferences, personal details, plans, relationships, possessions, professional details, health, opinions, \
and anything they would expect you to remember later.

Rules:
- One fact per item, short and self-contained, written in the third person or as the speaker would state it \
("Lives in Lisbon", "Is allergic to peanuts"), with dates made explicit when the conversation gives them.
- Skip greetings, small talk, questions, and anything that is not a fact about the speakers.
- Never invent facts. If there is nothing worth remembering, return an empty list.
- Each message is numbered ([0], [1], ...). For each fact, list in "sources" the numbers of the messages it \
comes from: the user's messages that state it (an assistant's message only when the user confirms what it says).
- {language_rule}
{custom_instructions}
Today's date is {today}.

{reply_format}"""

PLAIN_REPLY = """Reply with a JSON object only: {"facts": [{"text": "...", "sources": [0]}]}"""

CATEGORIZED_REPLY = """File each fact under one or two of these categories (their names exactly; the closest one \
when none fits well):
{categories}

Reply with a JSON object only: {{"facts": [{{"text": "...", "categories": ["..."], "sources": [0]}}]}}"""

LANGUAGE_SAME = "Write each fact in the language the speaker used."
LANGUAGE_ENGLISH = "Write each fact in English."

UPDATE_DECISION = """You keep a memory store consistent. Compare the new facts with the existing memories \
and decide, for each item, one event:
- ADD: a new fact that no existing memory covers. Give it a new id ("new").
- UPDATE: an existing memory about the same thing whose content the new fact changes, refines or \
contradicts; the newest information wins. Keep the existing id and give the full new text.
- DELETE: an existing memory that the new facts make false and that no UPDATE replaces. Keep its id, and give \
in "replaced_by" the number of the new fact that makes it false (the facts are numbered from 0).
- NONE: the fact is already stored (same meaning); keep the existing id and text.

Existing memories (id and text):
{existing}

New facts:
{facts}

Reply with a JSON object only:
{{"memory": [{{"id": "<existing id or new>", "text": "<memory text>", "event": "ADD|UPDATE|DELETE|NONE", \
"old_memory": "<previous text, for UPDATE>", "replaced_by": <new fact number, for DELETE>}}]}}"""

PROCEDURAL_SUMMARY = """Summarise the agent's execution history below as a procedural memory: the task, \
each step taken with its outcome, and what remains. Keep concrete values (names, ids, numbers). \
Reply with the summary text only."""
