"""Where a model runs: the one device choice every model runner takes.

The values are the words of ``panelvox describe --device``. ONNX sessions
(:mod:`panelvox.models.onnx_session`) read GPU as CUDA; llama.cpp reads it as offloading
every layer to whatever GPU its build supports (CUDA, Metal, Vulkan).
"""

from __future__ import annotations

from enum import Enum


class Device(Enum):
    AUTO = "auto"  # the GPU when the runtime here can use one, else the CPU
    CPU = "cpu"
    GPU = "gpu"  # asked for; a runtime without GPU support says so in the log and uses the CPU
