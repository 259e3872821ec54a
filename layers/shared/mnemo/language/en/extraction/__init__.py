"""The extractor used when no LLM is configured (mnemo.language.en.extraction.extractor), and its rules: each a small
module of its own, tested on its own — sentences and their spans, what is a question or filler, self-introductions,
the people a conversation names and the pronouns that stand for them, short answers read with the assistant's
question, relative dates."""
