"""The English words of topics (data/topics.toml): how a free text is split into the topics it names, and the
phrase a topic is embedded as."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from mnemo.language.en.words import PackDataError, read_toml

_FILE = "mnemo.language.en data/topics.toml"


@dataclass(frozen=True, slots=True)
class TopicRules:
    split: re.Pattern[str]  # what separates two topics
    about: str  # the phrase a topic is embedded as, with {} for the topic


@functools.cache
def rules() -> TopicRules:
    """The topic rules (read once)."""
    doc = read_toml("topics.toml")
    joining, about = doc.get("joining_words"), doc.get("about")
    if not isinstance(joining, list) or not joining or not all(isinstance(w, str) and w.strip() for w in joining):
        raise PackDataError(f"{_FILE}: `joining_words` must be a non-empty list of words")
    if not isinstance(about, str) or about.count("{}") != 1:
        raise PackDataError(f"{_FILE}: `about` must be a phrase holding {{}} once (where the topic goes)")
    words = "|".join(re.escape(w) for w in joining)
    return TopicRules(re.compile(rf"[,;\n]+|\s+(?:{words})\s+", re.IGNORECASE), about)


def topics(text: str) -> list[str]:
    """The topics a free text names ("health, money and my kids" -> health, money, my kids), each once, in order."""
    found = [t.strip(" .!") for t in rules().split.split(text)]
    return list(dict.fromkeys(t for t in found if t))


def about(topic: str) -> str:
    """The phrase a topic is embedded as ("facts about health")."""
    return rules().about.format(topic)
