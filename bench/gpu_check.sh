#!/usr/bin/env bash
# The GPU path checked on a bare machine, from this checkout alone: a virtualenv with the project
# installed from its own pyproject.toml (`.[blender]`: bpy 5.0.1 and every dependency), then
# bench/gpu_check.py: each family's busiest scene at the standard preset on the GPU and on the CPU,
# time per image, PSNR and SSIM between the two, the denoiser each used. Meant to take under 8
# minutes on one GPU (the install about 1, four scenes at 640x360 on each side the rest).
#
#   bench/gpu_check.sh [--cpu-only] [--wheels DIR] [-- OPTIONS OF bench/gpu_check.py]
#
# A machine without a package index installs from a folder of wheels (--wheels, or $WHEELS;
# default ~/.cache/byo-wheels, where `make install` keeps bpy's): fill it where pip works with
#   pip download -d DIR --python-version 3.11 --only-binary=:all: '.[blender]' setuptools
# bpy 5.0.1 is built for CPython 3.11 only: $PYTHON names one where `python3.11` is not on the PATH.
# An existing $VENV (default .venv) that imports bpy and byo is used as it is. --cpu-only renders
# both sides on the CPU (no GPU needed; tests/bench/test_gpu_check.py runs it so).
set -euo pipefail
cd "$(dirname "$0")/.."

CPU_ONLY=()
WHEELS="${WHEELS:-$HOME/.cache/byo-wheels}"
VENV="${VENV:-.venv}"
while [ $# -gt 0 ]; do
    case "$1" in
        --cpu-only) CPU_ONLY=(--cpu-only); shift ;;
        --wheels) WHEELS="$2"; shift 2 ;;
        --) shift; break ;;
        *) echo "gpu_check.sh: unknown option $1 (expected --cpu-only, --wheels DIR, -- options)" >&2; exit 2 ;;
    esac
done

started=$(date +%s)
if "$VENV/bin/python" -c "import bpy, byo" >/dev/null 2>&1; then
    echo "using $VENV ($("$VENV/bin/python" --version))"
else
    PY="${PYTHON:-$(command -v python3.11 || true)}"
    if [ -z "$PY" ]; then
        echo "gpu_check.sh: bpy 5.0.1 needs CPython 3.11; none on the PATH: set PYTHON=/path/to/python3.11" >&2
        exit 2
    fi
    echo "installing into $VENV with $PY"
    "$PY" -m venv "$VENV"
    if ls "$WHEELS"/bpy-5.0.1-*.whl >/dev/null 2>&1 && [ -n "$(ls "$WHEELS"/*.whl 2>/dev/null | grep -v bpy-)" ]; then
        # every wheel from the folder, nothing from an index (the GPU machine reaches none)
        "$VENV/bin/pip" install -q --no-index --find-links "$WHEELS" setuptools
        "$VENV/bin/pip" install -q --no-index --find-links "$WHEELS" --no-build-isolation -e '.[blender]'
    else
        "$VENV/bin/pip" install -q --find-links "$WHEELS" -e '.[blender]'
    fi
    echo "installed in $(( $(date +%s) - started )) s"
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "nvidia-smi: none here"
status=0
"$VENV/bin/python" bench/gpu_check.py "${CPU_ONLY[@]}" "$@" || status=$?
echo "gpu_check: $(( $(date +%s) - started )) s in all, exit $status"
exit "$status"
