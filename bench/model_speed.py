"""How fast this machine runs the embedding model right now: the default embedder (int8 MiniLM on ONNX Runtime, one
text per run, as a served request embeds), in this process, on the HTTP benchmark's own questions and add texts.

The machines these benchmarks ran on differed by 2x in this figure, and one of them drifted by a third within
minutes, so every HTTP result records it beside its throughput (bench.http_load, bench.http_split): a result is
only comparable with another taken at the same model speed.
"""

from __future__ import annotations

import time
from typing import Any

from bench.corpus import http_texts


def model_costs(count: int = 2_000) -> dict[str, Any]:
    """CPU ms per text: `question_ms` (a search's query) and `add_text_ms` (an add's text), each over `count` texts
    embedded one per call, after a warm-up; with their mean token counts."""
    from mnemo.adapters.embedders.local_minilm import LocalMiniLMEmbedder

    corpus = http_texts(fresh=count)
    texts = {
        "question": [i.question for i in corpus.preloaded[:count]],
        "add_text": [i.text for i in corpus.fresh],
    }
    embedder = LocalMiniLMEmbedder()
    tokens = {name: sum(len(embedder._tokenizer.encode(t).ids) for t in ts) / len(ts) for name, ts in texts.items()}
    for text in texts["question"][:100]:
        embedder.embed([text])
    figures: dict[str, Any] = {"texts_each": count, "tokens_mean": {k: round(v, 2) for k, v in tokens.items()}}
    for name, ts in texts.items():
        start = time.process_time()
        for text in ts:
            embedder.embed([text])
        figures[f"{name}_ms"] = round(1000 * (time.process_time() - start) / len(ts), 3)
    return figures
