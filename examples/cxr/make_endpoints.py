#!/usr/bin/env python3
"""Writes endpoints.json: the scripted imaging endpoints of the `make run` CXR demo.

The classifier, segmentation and grounding answers below are written by hand
for CR-MONO1-10-chest.dcm (a 440 x 440 PA chest radiograph from the DICOM test
files in tests/fixtures/dicom); they are not any model's output. They follow
docs/imaging-endpoints.md, and the masks are PNGs built here with the standard
library (zlib), so the demo exercises the whole contract over HTTP.

    python3 examples/cxr/make_endpoints.py > examples/cxr/endpoints.json
"""
import base64
import json
import struct
import zlib

W = H = 440


def png_grey(pixels):
    """An 8-bit grey PNG from rows of bytes."""
    raw = b"".join(b"\x00" + bytes(row) for row in pixels)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 0, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def ellipse(cx, cy, rx, ry):
    return [[255 if ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1 else 0 for x in range(W)] for y in range(H)]


def mask(name, cx, cy, rx, ry):
    data = base64.b64encode(png_grey(ellipse(cx, cy, rx, ry))).decode()
    return {"name": name, "mask": {"media_type": "image/png", "width": W, "height": H, "data": data}}


LABELS = [("Cardiomegaly", 0.58), ("Enlarged Cardiomediastinum", 0.41), ("Effusion", 0.22), ("Atelectasis", 0.18),
          ("Lung Opacity", 0.16), ("Infiltration", 0.12), ("Edema", 0.09), ("Consolidation", 0.08),
          ("Pneumonia", 0.07), ("Pleural_Thickening", 0.07), ("Nodule", 0.06), ("Mass", 0.05), ("Fibrosis", 0.05),
          ("Emphysema", 0.04), ("Lung Lesion", 0.04), ("Fracture", 0.03), ("Pneumothorax", 0.02), ("Hernia", 0.01)]

script = {
    "responses": [],
    "routes": {
        "/classify": {"on_exhausted": "repeat_last", "responses": [{"status": 200, "json": {
            "model": "scripted-classifier (hand-written demo answer)",
            "labels": [{"label": l, "probability": p} for l, p in LABELS]}}]},
        "/segment": {"on_exhausted": "repeat_last", "responses": [{"status": 200, "json": {
            "model": "scripted-segmentation (hand-written demo answer)",
            "structures": [mask("Heart", 248, 290, 95, 70), mask("Left Lung", 320, 200, 80, 170),
                           mask("Right Lung", 118, 205, 82, 170)]}}]},
        "/ground": {"on_exhausted": "repeat_last", "responses": [{"status": 200, "json": {
            "model": "scripted-grounding (hand-written demo answer)",
            "boxes": [{"x0": 160, "y0": 220, "x1": 336, "y1": 360, "score": 0.71}]}}]},
    },
}
print(json.dumps(script, indent=1))
