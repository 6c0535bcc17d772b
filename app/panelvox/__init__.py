"""Panelvox: an offline reader that lets blind and low-vision people read comics and manga."""

from __future__ import annotations

import os

# The one import-time side effect of Panelvox, on purpose: onnxruntime (>= 1.29) writes a
# device id under ~/.cache/Microsoft and sends telemetry (DNS to
# mobile.events.data.microsoft.com) from the moment it is imported, and only this variable,
# set before that import, stops it (ort.disable_telemetry_events() does not). rapidocr and
# piper import onnxruntime themselves, so the earliest point every Panelvox process passes
# is here: the CLI's commands, the reader and its spawned analysis worker all import this
# package first. setdefault: a user who sets the variable keeps their value.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

__version__ = "0.1.0"
