"""The extractor used when no LLM is configured: what the user says of themselves and the people and things in their
life, one statement per sentence, each citing where it came from — and nothing else.

For each user message, sentence by sentence (mnemo.language.en.extraction.sentences):
- a question is dropped, but for what it says before it asks ("I'm allergic to peanuts, is satay safe?" keeps "I'm
  allergic to peanuts"); filler or an acknowledgement is dropped ("ugh ok thx", "haha yes"), and so is a request to the
  assistant ("I need dinner ideas", "Can you write an email to my manager…") or a sentence with nothing but vague
  words ("I'll think about it");
- a self-introduction is kept as the user's name ("I'm Alice." -> "Name is Alice");
- a note an agent wrote about its user is the user's fact ("User prefers window seats" -> "Prefers window seats");
- a sentence opening with a third person pronoun is about the last person the conversation named that it can
  stand for, written with them as its subject ("She's a nurse." -> "My sister Emma is a nurse."); with nobody to
  stand for, it is not the user's fact and is dropped (mnemo.language.en.extraction.people);
- a sentence that speaks of the user (I, my, we, our…) or of a person they named is kept;
- a reply opening with yes or no is read with the question it answers ("Are you watching your B12?" + "yes I take a
  supplement" -> "Is watching B12: I take a supplement"); in a reply kept as it is, an "it" that stands for what the
  question asked about is written out, and a topic the question was "about" that the reply does not name is added;
- what says no fact is dropped though it says "I": "good point, I'll ask Giulia", "it's not, I checked", "I feel
  human again", talk about the conversation ("I hope you're having a good Sunday", "bear with me") and a fragment
  that says only when ("around three weeks ago.") (mnemo.language.en.extraction.wording);
- any other sentence is a fragment: kept when it tells an event of the user's without its subject ("closed on a
  house in Montclair yesterday") or dates something other than today ("finals start in two weeks"); else the first
  sentence of a reply to the assistant's question that says more than filler ("Well…") is read with it
  ("Where do you hike?" + "Mostly in the Alps." -> "Hikes mostly in the Alps", citing both messages:
  mnemo.language.en.extraction.answers); otherwise it is dropped (small talk, "Mostly in the Alps." on its own);
- relative dates are written as the dates they mean at the message's time ("last Tuesday" -> "on Tuesday 11 March
  2025": mnemo.language.en.extraction.dates).
The assistant's own sentences are never the user's memories; they only give context (the question an answer
answers, the people they name). A statement keeps at least one content word beyond filler.

What it does not do: rewrite the user's sentences otherwise (it keeps "I …"), resolve a pronoun inside a sentence
("I visited her"), merge two sentences into one fact, or judge whether a fact is worth keeping beyond these rules.
Near-duplicates and facts that replace older ones are the memory service's (mnemo.services.memory)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from mnemo.language.en.extraction.answers import NO, YES, answered, with_object
from mnemo.language.en.extraction.dates import resolve_dates
from mnemo.language.en.extraction.introductions import introduction_end, introduction_of, is_greeting
from mnemo.language.en.extraction.notes import agent_note
from mnemo.language.en.extraction.people import People, with_owner
from mnemo.language.en.extraction.sentences import sentences
from mnemo.language.en.extraction.wording import (
    content_words,
    is_filler,
    is_passing_feeling,
    is_question,
    is_reply_intention,
    is_request,
    is_small_talk,
    is_subjectless_event,
    is_vague,
    job_title,
    note_about_the_user,
    says_more_than_when,
    speaks_of_an_unnamed_it,
    speaks_of_self,
    tokens,
)
from mnemo.language.en.patterns import pattern
from mnemo.language.statements import Cited, Sentence, Statement, Turn


def extract_statements(turns: Sequence[Turn], at: datetime) -> list[Statement]:
    """The statements of a conversation, in order; `at`: when its messages were sent (relative dates are read
    against it)."""
    people = People()
    questions: list[Cited] = []  # the assistant's questions in its last message, while the user has not replied
    found: list[Statement] = []
    lone = _is_a_note(turns)
    for turn in turns:
        if turn.role == "assistant":
            questions = _assistants(turn, people)
        elif turn.role == "user":
            found += _users(turn, people, questions, at, lone)
            questions = []
    return found


def _assistants(turn: Turn, people: People) -> list[Cited]:
    """The questions of an assistant's message; the people it names noted."""
    spans = sentences(turn.content)
    for span in spans:
        people.observe(span.text)
    return [_cited(turn.index, s) for s in spans if is_question(s.text)]


def _users(turn: Turn, people: People, questions: list[Cited], at: datetime, lone: bool) -> list[Statement]:
    """The statements of a user's message, sentence by sentence (`lone`: the add is this one message, which may be
    an agent's note); only its first sentence that says something answers the assistant's `questions`."""
    found: list[Statement] = []
    for span, greeted in _with_introductions_apart(sentences(turn.content)):
        statement = _statement(span, turn.index, people, questions, at, greeted)
        if statement is None and lone:
            statement = _as_a_note(span, turn, at)
        people.observe(span.text)
        if statement is not None:
            found.append(statement)
        if statement is not None or not is_filler(span.text):
            questions = []
    return found


def _is_a_note(turns: Sequence[Turn]) -> bool:
    """The add is one user message: what an agent's memory tool sends (mnemo.language.en.extraction.notes)."""
    return len(turns) == 1 and turns[0].role == "user"


def _as_a_note(span: Sentence, turn: Turn, at: datetime) -> Statement | None:
    continued = turn.content[: span.start].rstrip().endswith(";")
    note = agent_note(span.text, continued)
    return None if note is None else _kept(note, (_cited(turn.index, span),), at)


def _with_introductions_apart(spans: Sequence[Sentence]) -> list[tuple[Sentence, bool]]:
    """The user's sentences, an introduction followed by more ("hi im ines, on my break") split in two, each with
    whether a greeting came right before it ("hi!!" before "rosa here.")."""
    out: list[tuple[Sentence, bool]] = []
    for i, span in enumerate(spans):
        greeted = i > 0 and is_greeting(spans[i - 1].text)
        end = introduction_end(span.text, greeted)
        if end is None:
            out.append((span, greeted))
            continue
        intro = span.text[:end].rstrip(" ,")
        rest = span.text[end:]
        out.append((Sentence(intro, span.start, span.start + len(intro)), greeted))
        out.append((Sentence(rest, span.start + end, span.end), False))
    return out


def _statement(
    span: Sentence, index: int, people: People, questions: Sequence[Cited], at: datetime, greeted: bool = False
) -> Statement | None:
    """What one user sentence says of the user, or None (see the module); `greeted`: a greeting came right before
    it."""
    said = _said_before_asking(span) if is_question(span.text) else span
    if said is None or is_request(said.text):
        return None
    cited = _cited(index, said)
    introduced = introduction_of(said.text, greeted)
    if introduced is not None:
        return Statement(introduced, (cited,))
    noted = note_about_the_user(said.text)
    if noted is not None:
        return _kept(noted, (cited,), at)
    if _says_no_fact(said.text, questions):
        return None
    people.name_the_unnamed(said.text)
    return _read(said, cited, people, questions, at)


def _says_no_fact(sentence: str, questions: Sequence[Cited]) -> bool:
    """Filler (unless it may answer a question), an acknowledgement with what the user will do next, a sentence about
    an "it" it does not name, a passing feeling."""
    if is_filler(sentence) and not questions:
        return True
    return (
        is_reply_intention(sentence)
        or speaks_of_an_unnamed_it(sentence)
        or is_passing_feeling(sentence)
        or is_small_talk(sentence)
    )


def _read(span: Sentence, cited: Cited, people: People, questions: Sequence[Cited], at: datetime) -> Statement | None:
    """A sentence that may say something of the user: a yes or no read with its question, a statement of the user or
    of a person of theirs, a subjectless event or a dated one, else a fragment read with its question."""
    if questions and _answers_yes_or_no(span.text):
        statement = _answer(span, cited, questions, at, people)
        if statement is not None:
            return statement
    resolved = people.resolve(with_owner(span.text))
    if resolved is None:
        return None
    return _read_resolved(span, people.introduce(resolved), cited, people, questions, at)


def _read_resolved(
    span: Sentence, resolved: str, cited: Cited, people: People, questions: Sequence[Cited], at: datetime
) -> Statement | None:
    """The sentence, its pronoun resolved and its people introduced (`resolved`): kept when it speaks of the user or
    of a person of theirs, or tells without its subject; else read with the question it may answer."""
    if resolved != span.text or speaks_of_self(span.text) or people.names_someone(span.text):
        return _kept(_in_context(resolved, questions[-1].text) if questions else resolved, (cited,), at)
    told = _told_without_subject(resolved, questions, at)
    if told is not None:
        return _kept(told, (cited,), at)
    return _answer(span, cited, questions, at, people)


def _told_without_subject(sentence: str, questions: Sequence[Cited], at: datetime) -> str | None:
    """A subjectless event of the user's, or (with no question open) a sentence that dates something or a job title
    ("data analyst at a fintech now" -> "Works as a data analyst…"); with a question open, a job may be someone
    else's."""
    if is_subjectless_event(sentence) or (not questions and _dated(sentence, at)):
        return sentence
    return None if questions else job_title(sentence)


_TODAY = pattern("extractor.toml", "today")


def _dated(sentence: str, at: datetime) -> bool:
    """Dates something of the user's other than today ("finals start in two weeks"); "The weather is nice today" is
    small talk."""
    undated = _TODAY.sub("", sentence)
    return resolve_dates(undated, at) != undated


def _kept(text: str, cited: tuple[Cited, ...], at: datetime) -> Statement | None:
    """The statement, its relative dates resolved, when it says something: a content word beyond filler and the
    words of a time, and more than vague words."""
    resolved = resolve_dates(text, at)
    meaningful = says_more_than_when(resolved) and not is_vague(text)
    return Statement(resolved, cited) if meaningful else None


def _answers_yes_or_no(sentence: str) -> bool:
    """Opens with yes or no ("yes I take a supplement", "nah I cancelled it")."""
    first = tokens(sentence)[:1]
    return bool(first) and first[0] in YES | NO


_ABOUT = pattern("extractor.toml", "about")


def _in_context(sentence: str, question: str) -> str:
    """The user's reply with what it answers: an "it" that stands for what the question asked about written out ("she
    loves it" + "Does Sofia eat spicy food?" -> "she loves spicy food"), and the question's topic added when the reply
    does not name it ("we want something small next summer" + "Have you started thinking about the wedding?" -> "…
    (about the wedding)")."""
    sentence = with_object(sentence, question)
    about = _ABOUT.search(question.strip())
    if about is None:
        return sentence
    topic = about.group("topic")
    if set(content_words(topic)) & set(content_words(sentence)):
        return sentence
    return f"{sentence.rstrip(' .!')} (about the {topic})"


_ASKING = pattern("extractor.toml", "asking")


def _said_before_asking(span: Sentence) -> Sentence | None:
    """What a question says before it asks ("I'm training for the Dublin half marathon, can you make me a plan?" ->
    "I'm training for the Dublin half marathon"), as a sentence of its own; None when it says nothing first."""
    parts = _ASKING.split(span.text, maxsplit=1)
    if len(parts) < 2 or not parts[0].strip() or is_question(parts[0]):
        return None
    said = parts[0].rstrip(" ,;")
    return Sentence(said, span.start, span.start + len(said))


def _answer(span: Sentence, cited: Cited, questions: Sequence[Cited], at: datetime, people: People) -> Statement | None:
    """A fragment read with the assistant's question it answers (its last one that gives a reading), or None."""
    for i in range(len(questions) - 1, -1, -1):
        previous = questions[i - 1].text if i else None
        read = answered(questions[i].text, span.text, previous)
        if read is not None:
            return Statement(resolve_dates(people.introduce(read), at), (questions[i], cited))
    return None


def _cited(index: int, span: Sentence) -> Cited:
    return Cited(index, span.start, span.end, span.text)
