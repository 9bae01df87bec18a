#!/usr/bin/env python3
"""Derive recompress.c's knot_rank_order table (docs/RECORD.md "Knot edits as ranks since version 19").

Input: lines "KE part try ladder degree" each followed by "KD <base> <target>", the multiplicity per frame
(0..9, one digit each, frames 0..range) of a knot-edit entry's try and of the original's knot vector. They come
from a development build of version 18 whose entry_part (src/encode/recompress.c) prints the KE line before it
calls knot_edits_get and whose knot_edits_get prints the KD line after applying the edits; session 28 ran
`hkspline check --reencode -j 1` over the Sekiro folder with it (check applies each record twice; a repeated
entry counts once). Usage: knot_rank_table.py DUMP... > table (pasted into knot_rank_order).

Output: the C table, one row per context seen at least MIN_COUNT times: the context number
((m(f-1) * 5 + m(f)) * 5 + m(f+1)) * 9 + the previous frame's symbol, and the symbols 0..8 in decreasing
frequency (ties: the smaller symbol first), packed 4 bits each, first in the low bits (the ninth is implied)."""
import sys, collections
MIN_COUNT = 30
def zz(d): return 2 * d if d >= 0 else -2 * d - 1
def mult(b, f): return min(b[f], 4) if 0 <= f < len(b) else 0
counts = collections.defaultdict(collections.Counter)
seen = set()
for fn in sys.argv[1:]:
    lines = open(fn).read().split('\n')
    for i in range(len(lines) - 1):
        if not (lines[i].startswith('KE') and lines[i + 1].startswith('KD')):
            continue
        a, b = lines[i + 1].split()[1:]
        if (lines[i], a, b) in seen:  # an entry applied twice by check --reencode counts once
            continue
        seen.add((lines[i], a, b))
        base = [int(c) for c in a]; tgt = [int(c) for c in b]
        prev = 0
        for f in range(len(base)):
            s = min(zz(tgt[f] - base[f]), 8)
            ctx = ((mult(base, f - 1) * 5 + mult(base, f)) * 5 + mult(base, f + 1)) * 9 + prev
            counts[ctx][s] += 1
            prev = s
rows = []
for ctx in sorted(counts):
    C = counts[ctx]
    if sum(C.values()) < MIN_COUNT:
        continue
    order = sorted(range(9), key=lambda s: (-C[s], s))
    if order == list(range(9)):
        continue  # the identity is the default
    packed = 0
    for i, s in enumerate(order[:8]):
        packed |= s << (4 * i)
    rows.append((ctx, packed))
print(f"/* {len(rows)} contexts (tools/knot_rank_table.py) */")
out = []
for ctx, packed in rows:
    out.append(f"{{{ctx}, 0x{packed:08X}u}}")
line = "\t"
for i, o in enumerate(out):
    item = o + ("," if i + 1 < len(out) else "")
    if len(line) + len(item) + 1 > 116:
        print(line.rstrip())
        line = "\t"
    line += item + " "
print(line.rstrip())
