"""The binding against whatever a Python script hands it (issue 17, "any object from Python"): wrong types,
shapes, dtypes and values, closed files, mutated bytes. Each call ends in a Python exception (hkspline.Error,
ValueError, TypeError, KeyError, OSError) or a valid result, never a crash: the mutation sweep runs in a child
process so that a crash fails the test instead of killing pytest. Inputs come from tools/make_sample.c."""
import os
import subprocess
import sys

import numpy as np
import pytest

import hkspline
from conftest import run

EXPECTED = (hkspline.Error, ValueError, TypeError, KeyError, OSError, IndexError, OverflowError)


def raises_cleanly(fn):
    try:
        fn()
    except EXPECTED:
        return True
    return False


def test_closed_file_raises(sample):
    f = hkspline.load(str(sample / "s.hkx"))
    a = f.animations[0]
    f.close()
    f.close()  # twice is harmless
    with pytest.raises(ValueError):
        f.to_bytes()
    with pytest.raises(ValueError):
        a.frames()
    with pytest.raises(ValueError):
        hkspline.encode(np.zeros((2, 2, 10), np.float32), like=f)
    # decoded before the close: the copy stays usable
    g = hkspline.load(str(sample / "s.hkx"))
    b = g.animations[0]
    frames = b.frames()
    g.close()
    assert np.array_equal(b.frames(), frames)


def test_wrong_types_and_values(sample):
    src = str(sample / "s.hkx")
    a = hkspline.load(src).animations[0]
    n, T = a.frames().shape[:2]
    calls = [
        lambda: hkspline.load(12345),
        lambda: hkspline.load(None),
        lambda: hkspline.load(b""),
        lambda: hkspline.load(b"\0" * 7),
        lambda: hkspline.load(str(sample)),  # a folder
        lambda: hkspline.encode("frames", like=src),
        lambda: hkspline.encode(np.zeros((n, T), np.float32), like=src),
        lambda: hkspline.encode(np.zeros((n, T, 9), np.float32), like=src),
        lambda: hkspline.encode(np.zeros((0, T, 10), np.float32), like=src),
        lambda: hkspline.encode(np.zeros((n, T + 5, 10), np.float32), like=src),
        lambda: hkspline.encode(a, like=src, floats=np.zeros((n + 1, 3), np.float32)),
        lambda: hkspline.encode(a, like=src, animation=-1),
        lambda: hkspline.encode(a, like=src, animation=2 ** 40),
        lambda: hkspline.encode(a, like=src, tolerance=float("nan")),
        lambda: hkspline.encode(a, like=src, tolerance=float("inf")),
        lambda: hkspline.encode(a, like=src, tolerance="x"),
        lambda: hkspline.encode(a, like=src, degree=0),
        lambda: hkspline.encode(a, like=src, degree=2 ** 70),
        lambda: hkspline.encode(a, like=src, max_frames_per_block=1),
        lambda: hkspline.encode(a, like=src, max_frames_per_block=257),
        lambda: hkspline.encode(a, like=src, rotation_quantization=7),
        lambda: hkspline.encode(a, like=src, cpu="pentium"),
        lambda: hkspline.encode(a, like=src, solver="magic"),
        lambda: hkspline.encode(a, like=src, game="skyrim"),
        lambda: hkspline.encode(a, like=src, record=b""),
        lambda: hkspline.encode(a, like=src, record=b"\xff" * 64),
        lambda: hkspline.encode(a, like=src, duration=float("nan")),
        lambda: hkspline.encode(a, like=src, duration=-1.0),
        lambda: hkspline.recompress(str(sample / "missing.hkx")),
        lambda: hkspline.recompress(src, cpu="pentium"),
        lambda: hkspline.error(src, str(sample)),
        lambda: hkspline.Binder.read(b"BND4" + b"\0" * 60),
        lambda: hkspline.Binder.read(b"DCX\0" + b"\xff" * 60),
        lambda: hkspline.Binder.read(open(src, "rb").read()),
    ]
    for k, call in enumerate(calls):
        assert raises_cleanly(call), f"call {k} returned instead of raising"
    # a file that needs no compendium loads whatever compendium paths come with it
    for comp in ([b"not a compendium"], [str(sample / "missing")], [str(sample / "s.hkx")]):
        try:
            hkspline.load(src, compendium=comp)
        except EXPECTED:
            pass
    # odd but valid arrays: non-contiguous, Fortran order, float64, NaN payloads are taken as floats
    f = a.frames()
    big = np.zeros((n, T, 20), np.float32)
    big[:, :, ::2] = f
    for frames in (big[:, :, ::2], np.asfortranarray(f), f.astype(np.float64)):
        assert hkspline.encode(frames, like=src, floats=a.floats(), duration=a.duration) == \
            hkspline.encode(f, like=src, floats=a.floats(), duration=a.duration)
    nan = f.copy()
    nan.view(np.uint32)[0, 0, 0] = 0x7FC00001
    try:  # a NaN payload in the frames: encoded or refused, never a crash
        hkspline.encode(nan, like=src, floats=a.floats())
    except EXPECTED:
        pass


SWEEP = r"""
import random, sys
sys.path.insert(0, sys.argv[3])
import hkspline
data = open(sys.argv[1], "rb").read()
rng = random.Random(int(sys.argv[2]))
ok = 0
for i in range(300):
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        k = rng.randrange(len(b))
        b[k] = rng.randrange(256)
    if rng.random() < 0.3:
        b = b[: rng.randrange(len(b))]
    try:
        f = hkspline.load(bytes(b))
        for a in f.animations:
            a.frames()
            a.floats()
        f.to_bytes()
        ok += 1
    except (hkspline.Error, ValueError):
        pass
print("loaded", ok)
"""


def test_mutated_bytes_never_crash(sample, tmp_path):
    script = tmp_path / "sweep.py"
    script.write_text(SWEEP)
    pkg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    r = subprocess.run([sys.executable, str(script), str(sample / "s.hkx"), "1", pkg], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=dict(os.environ))
    assert r.returncode == 0, r.stderr.decode(errors="replace")[-2000:]
    assert r.stdout.startswith(b"loaded ")


def test_arguments_the_c_types_would_wrap_or_cut(sample, tmp_path, cli):
    """Found by an attacker's session: ctypes wraps out-of-range integers silently (error(animation=2**33)
    compared animation 0, Binder.replace(flags=300) stored 44) and cuts strings at a NUL (load("s.hkx\\0x")
    loaded s.hkx, Binder.replace("a\\0b.hkx") added a member "a"): refused with ValueError / TypeError."""
    src = str(sample / "s.hkx")
    other = tmp_path / "o.hkx"
    other.write_bytes(open(src, "rb").read())
    assert hkspline.error(src, str(other))["frames"] > 0
    for call in (lambda: hkspline.error(src, str(other), animation=2 ** 32),
                 lambda: hkspline.error(src, str(other), animation=-1),
                 lambda: hkspline.error(src, str(other), shell_overrides={"Ro\0ot": 0.1}),
                 lambda: hkspline.error(src + "\0.json", str(other)),
                 lambda: hkspline.recompress(src, ladder=-1),
                 lambda: hkspline.load(src + "\0.other"),
                 lambda: hkspline.load(src, compendium=[str(sample) + "\0x"])):
        with pytest.raises((ValueError, TypeError)):
            call()
    b = hkspline.Binder.read(_binder_bytes(cli, src, tmp_path))
    before = list(b.names)
    for kwargs in ({"name": "a\0b.hkx"}, {"name": "n.hkx", "flags": 300}, {"name": "n.hkx", "flags": -1},
                   {"name": "n.hkx", "id": 2 ** 31}, {"name": 5}):
        name = kwargs.pop("name")
        with pytest.raises((ValueError, TypeError)):
            b.replace(name, b"x", **kwargs)
    with pytest.raises(TypeError):
        b.replace("n.hkx", "not bytes")
    assert b.names == before  # nothing was added
    b.replace("n.hkx", b"x", id=7, flags=0x40)
    assert b.names == before + ["n.hkx"]


def _binder_bytes(cli, member: str, folder) -> bytes:
    """A one-member BND4 binder holding the file `member` as "s.hkx" (hkspline bnd pack)."""
    d = folder / "pack"
    d.mkdir()
    (d / "s.hkx").write_bytes(open(member, "rb").read())
    (d / "_hkspline_bnd.txt").write_text(
        "hkspline-bnd 1\nbnd4-header\t424e443400000000000001008c000000400000000000000030374437523600002400000000"
        "000000186c0000000000000174040000000000f066000000000000\n"
        "entry\t1\t40\t40000000ffffffff00000000000000000000000000000000000000000000000000000000\ts.hkx\ts.hkx\n")
    run(cli, "bnd", "pack", d, "-o", folder / "b.anibnd")
    return (folder / "b.anibnd").read_bytes()


def test_inputs_read_whole_are_regular_files(sample, tmp_path):
    """Binder.read, encode(record=) and load(bytes, compendium=[path]) read files whole: a FIFO blocked the
    call forever and /dev/zero grew until memory ran out; now anything but a regular file is an OSError."""
    src = str(sample / "s.hkx")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    a = hkspline.load(src).animations[0]
    data = open(src, "rb").read()
    for path in (str(fifo), "/dev/zero", str(tmp_path)):
        if not os.path.exists(path):
            continue
        for call in (lambda: hkspline.Binder.read(path), lambda: hkspline.encode(a, like=src, record=path),
                     lambda: hkspline.load(data, compendium=[path])):
            with pytest.raises(OSError):
                call()


def test_decode_error_names_the_file(sample, tmp_path):
    """Damaged spline data found only when the frames are decoded: the message names the file it came from."""
    data = bytearray((sample / "s.hkx").read_bytes())
    failures = 0
    for off in range(0, len(data) - 8, 37):
        bad = bytearray(data)
        bad[off:off + 8] = b"\xff" * 8
        path = tmp_path / "dmg.hkx"
        path.write_bytes(bytes(bad))
        try:
            f = hkspline.load(str(path))
        except hkspline.Error as e:
            assert str(path) in str(e)
            continue
        for a in f.animations:
            try:
                a.frames()
            except hkspline.Error as e:
                failures += 1
                assert str(path) in str(e), str(e)
        f.close()
    assert failures > 0
