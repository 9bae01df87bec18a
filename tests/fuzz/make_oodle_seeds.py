#!/usr/bin/python3
"""Seeds of fuzz_oodle (layout in tests/fuzz/fuzz_oodle.c), made from nothing
but the layout: usage: make_oodle_seeds.py OUT_DIR (writes OUT_DIR/*.bin)."""
import os
import struct
import sys


def script(mode, d_kind, d_value, d_write, c_kind, c_value, declared):
    return struct.pack("<BBiHBiI", mode, d_kind, d_value, d_write, c_kind, c_value, declared)


def dcx(tag, uncompressed, payload):
    h = bytearray(0x4C)
    h[0:4] = b"DCX\0"
    struct.pack_into(">IIIII", h, 4, 0x11000, 0x18, 0x24, 0x44, 0x4C)
    h[0x18:0x1C] = b"DCS\0"
    struct.pack_into(">II", h, 0x1C, uncompressed, len(payload))
    h[0x24:0x28] = b"DCP\0"
    h[0x28:0x2C] = tag
    struct.pack_into(">I", h, 0x2C, 0x20)
    h[0x30] = 6
    struct.pack_into(">I", h, 0x40, 0x00010100)
    h[0x44:0x48] = b"DCA\0"
    struct.pack_into(">I", h, 0x48, 8)
    return bytes(h) + payload


payload = bytes((i * 37 + 11) & 0xFF for i in range(96))
seeds = {
    # built KRAK header, exact answers, all bytes written
    "exact.bin": script(0, 0, 0, 0xFFFF, 0, 0, 256) + payload,
    "exact_partial_write.bin": script(0, 0, 0, 17, 0, 0, 4096) + payload,
    "one_more.bin": script(0, 3, 0, 0xFFFF, 0, 0, 300) + payload,
    "one_less.bin": script(0, 4, 0, 0xFFFF, 0, 0, 300) + payload,
    "zero.bin": script(0, 5, 0, 0, 0, 0, 64) + payload,
    "negative.bin": script(0, 6, 0, 0, 0, 0, 64) + payload,
    "intptr_max.bin": script(0, 7, 0, 0xFFFF, 0, 0, 64) + payload,
    "intptr_min.bin": script(0, 8, 0, 0xFFFF, 0, 0, 64) + payload,
    "written_count.bin": script(0, 9, 0, 40, 0, 0, 64) + payload,
    "value.bin": script(0, 10, -123456789, 0xFFFF, 0, 0, 64) + payload,
    "delta.bin": script(0, 11, 0x10000, 0xFFFF, 0, 0, 64) + payload,
    "empty_declared.bin": script(0, 0, 0, 0xFFFF, 0, 0, 0) + payload,
    "empty_payload.bin": script(0, 0, 0, 0xFFFF, 0, 0, 128),
    "dflt_tag.bin": script(8, 0, 0, 0xFFFF, 0, 0, 64) + payload,
    "zstd_tag.bin": script(12, 0, 0, 0xFFFF, 0, 0, 64) + payload,
    # the whole DCX in the input (its header mutated by the fuzzer)
    "raw_krak.bin": script(1, 0, 0, 0xFFFF, 0, 0, 0) + dcx(b"KRAK", 512, payload),
    "raw_krak_short.bin": script(1, 0, 0, 0xFFFF, 0, 0, 0) + dcx(b"KRAK", 512, payload)[:-20],
    "raw_krak_lie.bin": script(1, 3, 0, 100, 0, 0, 0) + dcx(b"KRAK", 512, payload),
    # the writer too
    "compress_exact.bin": script(2, 0, 0, 0xFFFF, 0, 0, 96) + payload,
    "compress_claims_more.bin": script(2, 0, 0, 40, 3, 0, 96) + payload,
    "compress_fails.bin": script(2, 0, 0, 0xFFFF, 6, 0, 96) + payload,
    "compress_zero.bin": script(2, 0, 0, 0xFFFF, 5, 0, 96) + payload,
    "compress_beyond_room.bin": script(2, 0, 0, 0xFFFF, 10, 0x7FFFFFFF, 96) + payload,
    "compress_raw_dcx.bin": script(3, 4, 0, 0xFFFF, 11, 5, 0) + dcx(b"KRAK", 64, payload),
}
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
