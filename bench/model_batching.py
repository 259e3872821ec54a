"""Whether concurrent requests could share one run of the embedding model on this machine (issue 18, part 1: "queries
arriving together should share one embedding call").

A shared run pays off only if (a) a text costs less in a batch than alone, and (b) a text's vector does not depend on
its batch-mates: a memory's or a query's vector must be what that text alone gives, or the same search answers
differently under load. This measures both, on the HTTP benchmark's own questions and add texts, one ONNX Runtime
thread, for three builds of all-MiniLM-L6-v2:

- `int8`: the default (mnemo.adapters.embedders.minilm_onnx): weights per channel, activations quantised with one
  scale computed per run (dynamic), so a batch-mate with larger activations changes every row's scale;
- `fp32`: the float model;
- `int8-static`: activation scales fixed by calibration on texts of the corpus (not those measured), so each row is
  computed alone whatever the batch; the feed-forward down projections stay float (quantised too, the cosine to
  the float model falls to ~0.95).

Per build and kind of text: CPU ms per text in batches of 1, 2, 4, 8 and 16 texts (consecutive texts, as requests
arrive), the least cosine between a text's vector in a batch of 8 and alone, and the mean and least cosine to the
float model's vector.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.corpus import http_texts

SIZES = (1, 2, 4, 8, 16)
SHARED_BATCH = 8  # the batch the invariance is measured in
FLOAT_KEPT = ("down",)  # the int8-static build's MatMuls left float (the feed-forward output projections)

Run = Callable[[list[list[int]]], np.ndarray]


def _feed(batch: list[list[int]]) -> dict[str, np.ndarray]:
    length = max(len(ids) for ids in batch)
    tokens = np.zeros((len(batch), length), dtype=np.int64)
    mask = np.zeros_like(tokens)
    for row, ids in enumerate(batch):
        tokens[row, : len(ids)] = ids
        mask[row, : len(ids)] = 1
    return {"input_ids": tokens, "attention_mask": mask}


def _unit(rows: np.ndarray) -> np.ndarray:
    unit: np.ndarray = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return unit


def _session(path: Path) -> Run:
    import onnxruntime as ort

    from mnemo.adapters.embedders.minilm_onnx import session_options

    session = ort.InferenceSession(str(path), session_options(1), providers=["CPUExecutionProvider"])
    return lambda batch: _unit(np.asarray(session.run(None, _feed(batch))[0], dtype=np.float32))


def static_int8(fp32: Path, calibration: list[list[int]], target: Path) -> Path:
    """The float model quantised with activation scales calibrated (min-max) on `calibration`, one text per run;
    MatMuls only, weights per channel, the FLOAT_KEPT projections left float."""
    from onnx import TensorProto
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Texts(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self._feeds = iter([_feed([ids]) for ids in calibration])

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self._feeds, None)

    typed = target.with_suffix(".typed.onnx")  # the quantiser needs every tensor's type: the contrib ops' inferred
    quant_pre_process(str(fp32), str(typed), skip_symbolic_shape=False)
    import onnx

    kept = [
        node.name
        for node in onnx.load(str(typed)).graph.node
        if node.op_type == "MatMul" and node.name.endswith(tuple(f"_{k}" for k in FLOAT_KEPT))
    ]
    quantize_static(
        str(typed),
        str(target),
        Texts(),
        quant_format=QuantFormat.QDQ,
        op_types_to_quantize=["MatMul"],
        per_channel=True,
        reduce_range=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        calibrate_method=CalibrationMethod.MinMax,
        nodes_to_exclude=kept,
        extra_options={"DefaultTensorType": TensorProto.FLOAT},
    )
    return target


def _costs(run: Run, ids: list[list[int]]) -> dict[str, float]:
    for text in ids[:20]:  # warm-up
        run([text])
    out = {}
    for size in SIZES:
        start = time.process_time()
        for at in range(0, len(ids), size):
            run(ids[at : at + size])
        out[str(size)] = round(1000 * (time.process_time() - start) / len(ids), 3)
    return out


def run(count: int = 800, calibration: int = 300, static: bool = True) -> dict[str, Any]:
    """The figures of every build on `count` questions and `count` add texts (the static build calibrated on
    `calibration` other texts of each kind)."""
    from mnemo.adapters.embedders.local_minilm import LocalEmbedderConfig, LocalMiniLMEmbedder

    default = LocalMiniLMEmbedder()
    fp32 = LocalMiniLMEmbedder(LocalEmbedderConfig(quantize=False))
    encode = default._tokenizer.encode
    corpus = http_texts(fresh=count + calibration)
    kinds = {
        "question": [encode(i.question).ids for i in corpus.preloaded[:count]],
        "add_text": [encode(i.text).ids for i in corpus.fresh[:count]],
    }
    calibrated_on = [encode(i.question).ids for i in corpus.preloaded[-calibration:]] + [
        encode(i.text).ids for i in corpus.fresh[count:]
    ]
    builds: dict[str, Run] = {"int8": _session(default._onnx.path), "fp32": _session(fp32._onnx.path)}
    with tempfile.TemporaryDirectory(prefix="mnemo-static-int8-") as scratch:
        if static:
            built = static_int8(fp32._onnx.path, calibrated_on, Path(scratch) / "int8-static.onnx")
            builds["int8-static"] = _session(built)
        result: dict[str, Any] = {"texts_each": count, "calibration_texts": len(calibrated_on), "builds": {}}
        for kind, ids in kinds.items():
            reference = np.concatenate([builds["fp32"]([text]) for text in ids])
            for name, build in builds.items():
                alone = np.concatenate([build([text]) for text in ids])
                shared = np.concatenate([build(ids[at : at + SHARED_BATCH]) for at in range(0, len(ids), SHARED_BATCH)])
                to_float = (alone * reference).sum(axis=1)
                result["builds"].setdefault(name, {})[kind] = {
                    "cpu_ms_per_text_by_batch": _costs(build, ids),
                    "batch_of_8_vs_alone_least_cosine": round(float((shared * alone).sum(axis=1).min()), 7),
                    "cosine_to_fp32": {
                        "mean": round(float(to_float.mean()), 5),
                        "least": round(float(to_float.min()), 5),
                    },
                }
    return result
