"""The ctypes structures equal the C ones: a C program built against include/hkspline.h prints every size
and field offset, compared with ctypes.sizeof / the field offsets. Skips without a C compiler."""
import ctypes
import os
import shutil
import subprocess

import pytest

from hkspline import _ffi


def test_struct_layout(tmp_path):
    inc = os.environ.get("HKSPLINE_INCLUDE") or os.path.join(os.path.dirname(__file__), "..", "..", "include")
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc or not os.path.exists(os.path.join(inc, "hkspline.h")):
        pytest.skip("no C compiler or no include/hkspline.h")
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "hkspline.h"', "int main(void) {"]
    want = []
    for cname, st in _ffi.STRUCTS.items():
        lines.append(f'printf("%zu\\n", sizeof({cname}));')
        want.append((cname, "sizeof", ctypes.sizeof(st)))
        for fname, _t in st._fields_:
            lines.append(f'printf("%zu\\n", offsetof({cname}, {fname}));')
            want.append((cname, fname, getattr(st, fname).offset))
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c11", "-I", inc, str(src), "-o", str(exe)], check=True)
    got = subprocess.run([str(exe)], stdout=subprocess.PIPE, check=True).stdout.decode().split()
    assert len(got) == len(want)
    bad = [(w[0], w[1], w[2], int(g)) for w, g in zip(want, got) if w[2] != int(g)]
    assert not bad, f"ctypes layout differs from C (struct, field, ctypes, C): {bad}"
