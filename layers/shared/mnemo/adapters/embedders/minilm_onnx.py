"""all-MiniLM-L6-v2 on ONNX Runtime: the graph is written here from the safetensors weights (no torch, no export).

The graph is the BERT encoder built from ONNX Runtime's fused CPU kernels (com.microsoft `EmbedLayerNormalization`,
`MultiHeadAttention`, `SkipLayerNormalization`, `BiasGelu`; the query, key and value projections a MatMul of their
own) followed by mean pooling and L2 normalisation, so one session run turns `input_ids` and `attention_mask` (int64,
[batch, seq], right-padded) into `embeddings` (float32, [batch, 384]). Optionally every MatMul's weights are
dynamically quantised to int8 (per output channel).

Built models are cached on disk, named after the weights' sha256 and this builder's version so that another model
or a changed graph gets a new file. Files are written to a temporary name and renamed into place, so processes that
build at the same time never see a half-written file; a file that does not load (or was built from other weights)
is built again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from mnemo.errors import ConfigurationError

log = logging.getLogger(__name__)

GRAPH_VERSION = 2  # bump whenever build_model changes what it writes
INPUTS = ("input_ids", "attention_mask")
OUTPUT = "embeddings"
_MS = "com.microsoft"
_META_WEIGHTS = "mnemo.weights_sha256"
_META_VARIANT = "mnemo.variant"
_META_VERSION = "mnemo.graph_version"
_build_lock = threading.Lock()


def default_cache_dir() -> Path:
    """$MNEMO_MODEL_CACHE_DIR, else $XDG_CACHE_HOME/mnemo/models, else ~/.cache/mnemo/models."""
    if explicit := os.environ.get("MNEMO_MODEL_CACHE_DIR"):
        return Path(explicit).expanduser()
    if base := os.environ.get("XDG_CACHE_HOME"):
        return Path(base) / "mnemo" / "models"
    try:
        return Path.home() / ".cache" / "mnemo" / "models"
    except RuntimeError:  # no home directory at all (some containers)
        return Path(tempfile.gettempdir()) / "mnemo" / "models"


def file_sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def cached_model_path(cache_dir: Path, model: str, weights_sha256: str, quantize: bool) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", model).strip("._") or "model"
    variant = "int8" if quantize else "fp32"
    return cache_dir / f"{safe}-{weights_sha256[:16]}-g{GRAPH_VERSION}-{variant}.onnx"


def build_model(tensors: dict[str, np.ndarray], *, heads: int = 12, eps: float = 1e-12) -> onnx.ModelProto:
    """The encoder, mean pooling and normalisation as one ONNX model, weights stored as initializers."""
    inits: list[TensorProto] = []
    nodes: list[onnx.NodeProto] = []

    def init(name: str, array: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op: str, inputs: list[str], outputs: list[str], domain: str = "", **attrs: Any) -> None:
        nodes.append(helper.make_node(op, inputs, outputs, name=outputs[0], domain=domain, **attrs))

    def f32(name: str) -> np.ndarray:
        return np.asarray(tensors[name], dtype=np.float32)

    # Embeddings. Token type ids are always 0, so that row is folded into the position table (no segment input).
    node("Cast", ["input_ids"], ["ids32"], to=TensorProto.INT32)
    node("Cast", ["attention_mask"], ["mask32"], to=TensorProto.INT32)
    position = f32("embeddings.position_embeddings.weight") + f32("embeddings.token_type_embeddings.weight")[0]
    node(
        "EmbedLayerNormalization",
        [
            "ids32",
            "",
            init("word_embedding", f32("embeddings.word_embeddings.weight")),
            init("position_embedding", position),
            "",
            init("emb_gamma", f32("embeddings.LayerNorm.weight")),
            init("emb_beta", f32("embeddings.LayerNorm.bias")),
            "mask32",
        ],
        ["hidden_0", "mask_index"],
        domain=_MS,
        epsilon=eps,
    )

    count = 1 + max(int(k.split(".")[2]) for k in tensors if k.startswith("encoder.layer."))
    hidden = int(tensors["embeddings.word_embeddings.weight"].shape[1])
    split = init("qkv_split", np.array([hidden] * 3, dtype=np.int64))
    x = "hidden_0"
    for i in range(count):
        p = f"encoder.layer.{i}."
        qkv_w = np.concatenate([f32(p + f"attention.self.{n}.weight") for n in ("query", "key", "value")], axis=0).T
        qkv_b = np.concatenate([f32(p + f"attention.self.{n}.bias") for n in ("query", "key", "value")])
        # The query, key and value projections as one MatMul of their own, so that int8 quantises it too (the fused
        # `Attention` keeps its weights float32: a quarter of the encoder's multiply-adds), then split.
        node("MatMul", [x, init(f"l{i}_qkv_w", qkv_w)], [f"l{i}_qkv"])
        node("Split", [f"l{i}_qkv", split], [f"l{i}_q", f"l{i}_k", f"l{i}_v"], axis=2)
        node(
            "MultiHeadAttention",
            [f"l{i}_q", f"l{i}_k", f"l{i}_v", init(f"l{i}_qkv_b", qkv_b), "mask32"],
            [f"l{i}_context"],
            domain=_MS,
            num_heads=heads,
        )
        node("MatMul", [f"l{i}_context", init(f"l{i}_out_w", f32(p + "attention.output.dense.weight").T)], [f"l{i}_ao"])
        node(
            "SkipLayerNormalization",
            [
                f"l{i}_ao",
                x,
                init(f"l{i}_ln1_g", f32(p + "attention.output.LayerNorm.weight")),
                init(f"l{i}_ln1_b", f32(p + "attention.output.LayerNorm.bias")),
                init(f"l{i}_out_b", f32(p + "attention.output.dense.bias")),
            ],
            [f"l{i}_attn"],
            domain=_MS,
            epsilon=eps,
        )
        node("MatMul", [f"l{i}_attn", init(f"l{i}_up_w", f32(p + "intermediate.dense.weight").T)], [f"l{i}_up"])
        node("BiasGelu", [f"l{i}_up", init(f"l{i}_up_b", f32(p + "intermediate.dense.bias"))], [f"l{i}_act"], _MS)
        node("MatMul", [f"l{i}_act", init(f"l{i}_down_w", f32(p + "output.dense.weight").T)], [f"l{i}_down"])
        node(
            "SkipLayerNormalization",
            [
                f"l{i}_down",
                f"l{i}_attn",
                init(f"l{i}_ln2_g", f32(p + "output.LayerNorm.weight")),
                init(f"l{i}_ln2_b", f32(p + "output.LayerNorm.bias")),
                init(f"l{i}_down_b", f32(p + "output.dense.bias")),
            ],
            [f"hidden_{i + 1}"],
            domain=_MS,
            epsilon=eps,
        )
        x = f"hidden_{i + 1}"

    # Mean pooling over the real tokens, then unit length (as sentence-transformers' Pooling and Normalize).
    node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT)
    node("Unsqueeze", ["maskf", init("axis_last", np.array([-1], dtype=np.int64))], ["mask3"])
    node("Mul", [x, "mask3"], ["masked"])
    node("ReduceSum", ["masked", init("axis_seq", np.array([1], dtype=np.int64))], ["summed"], keepdims=0)
    node("ReduceSum", ["maskf", "axis_seq"], ["count"], keepdims=1)
    node("Max", ["count", init("min_count", np.array(1e-9, dtype=np.float32))], ["count_safe"])
    node("Div", ["summed", "count_safe"], ["pooled"])
    node("ReduceL2", ["pooled"], ["norm"], axes=[1], keepdims=1)
    node("Max", ["norm", init("min_norm", np.array(1e-12, dtype=np.float32))], ["norm_safe"])
    node("Div", ["pooled", "norm_safe"], [OUTPUT])

    graph = helper.make_graph(
        nodes,
        "all_minilm_encoder",
        [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"]) for name in INPUTS],
        [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", hidden])],
        initializer=inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(_MS, 1)],
        producer_name="mnemo",
    )
    model.ir_version = 8
    return model


def _stamp(model: onnx.ModelProto, weights_sha256: str, variant: str) -> None:
    """Record what the file was built from: a cached file is only used when this matches (see OnnxMiniLM._ours)."""
    props = {p.key: p.value for p in model.metadata_props}
    props |= {_META_WEIGHTS: weights_sha256, _META_VARIANT: variant, _META_VERSION: str(GRAPH_VERSION)}
    helper.set_model_props(model, props)


def _sweep(cache_dir: Path, older_than: float = 3600.0) -> None:
    """Remove temporary files and directories that a build killed half-way left behind."""
    now = time.time()
    for leftover in cache_dir.glob(".*.tmp"):
        try:
            if now - leftover.stat().st_mtime > older_than:
                if leftover.is_dir():
                    shutil.rmtree(leftover, ignore_errors=True)
                else:
                    leftover.unlink(missing_ok=True)
        except OSError:  # another process got there first
            continue


def _write_atomically(target: Path, write: Callable[[Path], None]) -> None:
    """`write(tmp)` then rename tmp to target: readers see either no file or a complete one."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        with tmp.open("rb") as handle:
            os.fsync(handle.fileno())
        tmp.chmod(0o644)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _build_fp32(tensors: dict[str, np.ndarray], target: Path, weights_sha256: str) -> None:
    model = build_model(tensors)
    _stamp(model, weights_sha256, "fp32")
    _write_atomically(target, lambda tmp: onnx.save_model(model, str(tmp)))


class _DropQuantizerLogs(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "onnxruntime" not in record.pathname or "quantization" not in record.pathname


@contextmanager
def _quiet_quantizer() -> Iterator[None]:
    """The quantizer logs through the root logger (advice, per-tensor notes): keep that out of the service's log."""
    drop = _DropQuantizerLogs()
    root = logging.getLogger()
    root.addFilter(drop)
    try:
        yield
    finally:
        root.removeFilter(drop)


def _build_int8(fp32: Path, target: Path, weights_sha256: str) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    def write(tmp: Path) -> None:
        scratch = tempfile.TemporaryDirectory(prefix=".quantize-", suffix=".tmp", dir=target.parent)
        with scratch as work, _quiet_quantizer():
            raw = Path(work) / "quantized.onnx"
            # Per output channel (MiniLM's weights need it: per-tensor int8 drops the cosine to ~0.76), 7-bit weights
            # so that AVX2 without VNNI cannot saturate its int16 accumulators, MatMul only: the query, key and value
            # projections are one (ORT's QAttention, which quantises the fused `Attention`, lost more).
            quantize_dynamic(
                fp32,
                raw,
                op_types_to_quantize=["MatMul"],
                weight_type=QuantType.QInt8,
                per_channel=True,
                reduce_range=True,
                extra_options={"DefaultTensorType": TensorProto.FLOAT},
            )
            model = onnx.load_model(str(raw))
        _stamp(model, weights_sha256, "int8")
        onnx.save_model(model, str(tmp))

    _write_atomically(target, write)


def session_options(threads: int) -> ort.SessionOptions:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle pool threads sleep instead of spinning: the server's request threads share the same few cores.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    return options


class OnnxMiniLM:
    """One ORT session over the cached model; `__call__` is safe from many threads (ORT's Run is)."""

    def __init__(
        self,
        weights: Path,
        *,
        model: str,
        cache_dir: Path,
        quantize: bool = False,
        intra_op_threads: int = 1,
        tensors: Callable[[], dict[str, np.ndarray]],
    ) -> None:
        self._model = model
        self._weights_sha256 = file_sha256(weights)
        self._tensors = tensors
        self._variant = "int8" if quantize else "fp32"
        self._options = session_options(intra_op_threads)
        self.path = cached_model_path(cache_dir, model, self._weights_sha256, quantize)
        self.session = self._load(cache_dir)

    def __call__(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        (out,) = self.session.run([OUTPUT], {INPUTS[0]: input_ids, INPUTS[1]: attention_mask})
        result: np.ndarray = out
        return result

    def _load(self, cache_dir: Path) -> ort.InferenceSession:
        with _build_lock:
            session = self._open(self.path)
            if session is not None:
                return session
            try:
                self._build(cache_dir)
            except OSError as exc:
                # A read-only or full disk must not stop the service: build in a scratch directory instead.
                log.warning("cannot cache the ONNX model in %s (%s): building it in a scratch dir", cache_dir, exc)
                with tempfile.TemporaryDirectory(prefix="mnemo-onnx-") as scratch:
                    self.path = self._build(Path(scratch))
                    session = self._open(self.path)
            else:
                session = self._open(self.path)
        if session is None:
            raise ConfigurationError(f"Could not load the ONNX model built at {self.path}.")
        return session

    def _open(self, path: Path) -> ort.InferenceSession | None:
        """The session over a cached file, or None if it is missing, unreadable or not built from these weights."""
        if not path.is_file():
            return None
        try:
            session = ort.InferenceSession(str(path), self._options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # ORT raises its own exception types for corrupt or invalid files
            log.warning("cached ONNX model %s does not load (%s): building it again", path, exc)
            return None
        if not self._ours(session.get_modelmeta().custom_metadata_map, self._variant):
            log.warning("cached ONNX model %s is from other weights or another version: building it again", path)
            return None
        return session

    def _ours(self, meta: dict[str, str], variant: str) -> bool:
        return (
            meta.get(_META_WEIGHTS) == self._weights_sha256
            and meta.get(_META_VARIANT) == variant
            and meta.get(_META_VERSION) == str(GRAPH_VERSION)
        )

    def _build(self, cache_dir: Path) -> Path:
        """Build the model file(s) into cache_dir; returns the path of the one to load."""
        fp32 = cached_model_path(cache_dir, self._model, self._weights_sha256, quantize=False)
        target = cached_model_path(cache_dir, self._model, self._weights_sha256, quantize=self._variant == "int8")
        log.info("building the ONNX model %s", target)
        if cache_dir.is_dir():
            _sweep(cache_dir)
        if target == fp32 or not self._usable_fp32(fp32):
            _build_fp32(self._tensors(), fp32, self._weights_sha256)
        if target != fp32:
            _build_int8(fp32, target, self._weights_sha256)
        return target

    def _usable_fp32(self, path: Path) -> bool:
        try:
            model = onnx.load_model(str(path))
        except Exception:  # missing or corrupt: build it
            return False
        return self._ours({p.key: p.value for p in model.metadata_props}, "fp32")
