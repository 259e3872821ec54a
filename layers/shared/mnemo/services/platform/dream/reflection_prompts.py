"""Prompts of Dream's synthesis: reflect on one user's memories — draw higher-level facts from many, and tidy what
the reading finds (duplicates, facts made false by newer ones)."""

from __future__ import annotations

REFLECTION = """You look after the long-term memory of one user of an assistant. Below is what is remembered \
about them, one memory per line: its reference (m1, m2, ...), the day it was stored, and its text. \
Memories marked [synthesized] were drawn earlier from other memories.

Do three things:
1. "synthesized": write the few higher-level facts the memories show together but no single memory says: a \
habit, a preference, a pattern, a goal (e.g. three memories about 6 am runs, early meetings and coffee at dawn \
give "Is an early riser"). Each one must follow from two or more of the memories, which you list as its \
"sources" (not [synthesized] ones). Never restate a single memory, a [synthesized] one, or anything the \
memories do not support; write nothing rather than a guess. At most {max_syntheses}.
2. "merge": memories that say the same thing in other words. Name the one to keep and its duplicates; give \
"text" only when the kept memory should be reworded to say everything its duplicates said.
3. "supersede": a memory made false by a newer one about the same thing (a move, a new job, a changed \
preference). Name the outdated memory and the newer one that replaced it. Two memories that can both be \
true (she likes tea; she likes coffee) are not a contradiction.
{custom_instructions}
Memories (newest first):
{memories}

Reply with a JSON object only: {{"synthesized": [{{"text": "...", "sources": ["m1", "m4"]}}], \
"merge": [{{"keep": "m2", "duplicates": ["m7"], "text": null}}], "supersede": [{{"outdated": "m9", \
"current": "m3"}}]}}. Use empty lists when there is nothing to do."""

CUSTOM_INSTRUCTIONS = "\nInstructions from the project (what is worth remembering):\n{instructions}\n"

RETRY = """Your reply could not be used: {error}
Reply again with the corrected JSON object only: {{"synthesized": [...], "merge": [...], "supersede": [...]}}, \
naming memories only by the references listed (m1, m2, ...)."""
