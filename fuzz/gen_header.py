#!/usr/bin/env python3
"""gen_header.py — rewrites a .gen model file's header (docs/file-format.md, "Container"):
optionally its format version, then the payload length (file size - 28) and the CRC-32 (zlib)
of everything before the checksum, so that an edited file reaches the payload parser.

    python3 fuzz/gen_header.py IN OUT [--version N]
"""
import argparse
import struct
import zlib

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("dst")
ap.add_argument("--version", type=int)
a = ap.parse_args()
b = bytearray(open(a.src, "rb").read())
if len(b) < 28 or b[:8] != b"GENMODEL":
    raise SystemExit(f"{a.src}: not a genesis model file")
if a.version is not None:
    b[8:12] = struct.pack("<I", a.version)
b[16:24] = struct.pack("<Q", len(b) - 28)
b[-4:] = struct.pack("<I", zlib.crc32(bytes(b[:-4])) & 0xFFFFFFFF)
open(a.dst, "wb").write(bytes(b))
