"""The prompts of the LLM path of add: fact extraction (extract.py), the per-fact decision against the related
memories (decide.py), and the summary of a procedural memory (procedural.py).

Each call is shaped for a provider's prompt cache: the system message holds the fixed instructions and examples
first, then only what the deployment or project configured (the language rule, the operator's instructions), so it
is byte-identical from one call to the next under one configuration; what changes with every call (today's date, the
stored memories, the new facts, the conversation) is the final user message."""

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
- The last message you receive gives today's date, then the conversation.

Example:
Today's date is 2024-05-02.

[0] user: Hi! I moved to Porto last month and I work as a nurse now.
[1] assistant: Congratulations on the new job!
-> {{"facts": [{{"text": "Moved to Porto in April 2024", "sources": [0]}}, \
{{"text": "Works as a nurse", "sources": [0]}}]}}

{language_rule}
{custom_instructions}
Reply with a JSON object only: {{"facts": [{{"text": "...", "sources": [0]}}]}}"""

LANGUAGE_SAME = "Write each fact in the language the speaker used."
LANGUAGE_ENGLISH = "Write each fact in English."

CONVERSATION = """Today's date is {today}.

{transcript}"""

UPDATE_DECISION = """You keep a memory store consistent. You are given existing memories (each with an id) and \
new facts (numbered from 0). Reply with the changes the new facts make, and only those:
- ADD: a new fact that no existing memory covers. Give it the id "new" and the fact's text.
- UPDATE: an existing memory about the same thing whose content the new fact changes, refines or \
contradicts; the newest information wins. Keep the existing id and give the full new text.
- DELETE: an existing memory that the new facts make false and that no UPDATE replaces. Keep its id, and give \
in "replaced_by" the number of the new fact that makes it false.

Leave out everything else: an existing memory the new facts do not change, and a new fact an existing memory \
already states, need no item. Never repeat an unchanged memory. When nothing changes, reply {"memory": []}.

Example:
Existing memories (id and text):
[{"id": "0", "text": "Lives in Paris"}, {"id": "1", "text": "Likes tea"}, {"id": "2", "text": "Has a cat"}]

New facts:
["Lives in Porto", "Likes tea", "Plays the piano"]
-> {"memory": [{"id": "0", "text": "Lives in Porto", "event": "UPDATE", "old_memory": "Lives in Paris"}, \
{"id": "new", "text": "Plays the piano", "event": "ADD"}]}

Reply with a JSON object only:
{"memory": [{"id": "<existing id or new>", "text": "<memory text>", "event": "ADD|UPDATE|DELETE", \
"old_memory": "<previous text, for UPDATE>", "replaced_by": <new fact number, for DELETE>}]}"""

DECISION_INPUT = """Existing memories (id and text):
{existing}

New facts:
{facts}"""

PROCEDURAL_SUMMARY = """Summarise the agent's execution history below as a procedural memory: the task, \
each step taken with its outcome, and what remains. Keep concrete values (names, ids, numbers). \
Reply with the summary text only."""
