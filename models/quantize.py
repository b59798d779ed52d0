"""Int8 copies of exported networks (static QDQ quantisation with ONNX Runtime's tools)."""

from __future__ import annotations

import contextlib
import os
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vision.perception.model_contract import set_props


def quantize_int8(
    model: Path,
    out: Path,
    inputs: Sequence[np.ndarray],
    input_name: str = "images",
    keep_float: Sequence[str] = (),
) -> Path:
    """Write an int8 copy of an exported network (static QDQ, calibrated on `inputs`).

    Weights per channel in int8 (on 7 bits, see below), activations in uint8 with ranges
    measured on the given network inputs (batches for `input_name`); nodes of the op types in
    `keep_float` stay in float.
    The metadata is carried over; the file is written under a temporary name and moved into
    place.
    """
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class _Inputs(CalibrationDataReader):
        def __init__(self) -> None:
            self.items = iter([{input_name: x} for x in inputs])

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.items, None)

    model, out = Path(model).resolve(), Path(out).resolve()  # the tools run in a scratch folder
    with tempfile.TemporaryDirectory(prefix=".int8-", dir=out.parent) as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        staged = Path(tmp) / "int8.onnx"
        # The quantisation tools leave scratch files in the working folder: work in ours.
        with warnings.catch_warnings(), contextlib.chdir(tmp):
            warnings.simplefilter("ignore")
            quant_pre_process(str(model), str(prepared), skip_symbolic_shape=True)
            nodes = onnx.load(str(prepared)).graph.node
            floats = [node.name for node in nodes if node.op_type in keep_float]
            quantize_static(
                str(prepared),
                str(staged),
                _Inputs(),
                quant_format=QuantFormat.QDQ,
                per_channel=True,
                activation_type=QuantType.QUInt8,
                weight_type=QuantType.QInt8,
                nodes_to_exclude=floats,
                # 7-bit weights: a CPU with AVX2 but no VNNI sums pairs of uint8 x int8
                # products in int16, which saturates with full-range weights (on such a
                # machine a taught reader's int8 copy named the class its float reader named
                # for only 0.90-0.93 of 60 held-out crops)
                reduce_range=True,
            )
        quantized = onnx.load(str(staged))
        del quantized.metadata_props[:]
        set_props(quantized, {p.key: p.value for p in onnx.load(str(model)).metadata_props})
        onnx.save(quantized, str(staged))
        os.replace(staged, out)
    return out
