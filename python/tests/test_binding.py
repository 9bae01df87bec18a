"""The binding on inputs generated here (tools/make_sample.c): frames bit for bit as `hkspline decode`,
encode bytes as the CLI's, recompress + encode(record=...) gives the original back, error() as
`error --json`, errors raised with their code. No corpus needed."""
import json
import os

import numpy as np
import pytest

import hkspline
from conftest import run


def hex_frames(cli, path, out, *extra):
    """decode --hex: frames and floats of every animation as uint32 bit patterns."""
    run(cli, "decode", *extra, "--hex", path, "-o", out)
    doc = json.load(open(out))
    anims = {}
    for a in doc["animations"]:
        n = a["frames"]
        t = np.array([[[int(v, 16) for v in tr["translation"][f]] + [int(v, 16) for v in tr["rotation"][f]] +
                       [int(v, 16) for v in tr["scale"][f]] for tr in a["tracks"]] for f in range(n)],
                     dtype=np.uint32).reshape(n, len(a["tracks"]), 10)
        fl = np.array([[int(ft[f], 16) for ft in a["float_tracks"]] for f in range(n)],
                      dtype=np.uint32).reshape(n, len(a["float_tracks"]))
        anims[a["index"]] = (t, fl, [tr["bone"] for tr in a["tracks"]], int(a["duration"], 16))
    return anims


def test_load_and_objects(sample):
    f = hkspline.load(str(sample / "s.hkx"))
    assert f.container == "packfile"
    assert len(f.animations) == 1 and f.animations[0].kind == "spline"
    a = f.animations[0]
    assert a.binding is not None and a.binding.skeleton_name == "Sample"
    assert a.bone_names == ["Root", "Child"]  # the skeleton beside the file, as decode finds it
    sk = hkspline.load(str(sample / "Skeleton.HKX")).skeletons[0]
    assert sk.names == ["Root", "Child"]
    assert list(sk.parents) == [-1, 0]
    assert sk.reference_pose.shape == (2, 10) and sk.reference_pose.dtype == np.float32
    assert sk.reference_pose[0, 6] == 1.0  # rotation w of the identity
    # bytes give the same file
    g = hkspline.load(open(sample / "s.hkx", "rb").read())
    assert np.array_equal(g.animations[0].frames().view(np.uint32), a.frames().view(np.uint32))
    assert f.to_bytes() == open(sample / "s.hkx", "rb").read()


def test_frames_equal_decode(sample, cli, tmp_path):
    want = hex_frames(cli, sample / "s.hkx", tmp_path / "s.json")
    a = hkspline.load(str(sample / "s.hkx")).animations[0]
    t, fl, bones, _ = want[0]
    assert a.frames().shape == t.shape
    assert np.array_equal(a.frames().view(np.uint32), t)
    assert np.array_equal(a.floats().view(np.uint32), fl)
    assert a.bone_names == bones


@pytest.mark.parametrize("options,cli_args", [
    ({}, []),
    ({"tolerance": 0.01}, ["--tolerance", "0.01"]),
    ({"degree": 2, "rotation_quantization": "48", "max_frames_per_block": 8},
     ["--degree", "2", "--rotation-quantization", "48", "--max-frames-per-block", "8"]),
    ({"cpu": "exact", "solver": "quality", "no_guard": True}, ["--cpu", "exact", "--solver", "quality",
                                                               "--no-guard"]),
])
def test_encode_equals_cli(sample, cli, tmp_path, options, cli_args):
    src = sample / "s.hkx"
    run(cli, "decode", src, "-o", tmp_path / "s.json")
    run(cli, "encode", tmp_path / "s.json", "--like", src, "-o", tmp_path / "cli.hkx", *cli_args)
    a = hkspline.load(str(src)).animations[0]
    assert hkspline.encode(a, like=str(src), **options) == open(tmp_path / "cli.hkx", "rb").read()
    # the same from a bare array and an explicit duration
    got = hkspline.encode(a.frames(), like=str(src), floats=a.floats(), duration=a.duration, **options)
    assert got == open(tmp_path / "cli.hkx", "rb").read()


def test_recompress_record_roundtrip(sample, cli, tmp_path):
    src = str(sample / "s.hkx")
    pred, record = hkspline.recompress(src)
    run(cli, "recompress", src, "-o", tmp_path / "p.hkx", "--record", tmp_path / "r.rec")
    assert pred == open(tmp_path / "p.hkx", "rb").read()
    assert record == open(tmp_path / "r.rec", "rb").read()
    a = hkspline.load(src).animations[0]
    assert hkspline.encode(a, like=src, record=record) == open(src, "rb").read()


def test_error_equals_cli(sample, cli, tmp_path):
    src = sample / "s.hkx"
    a = hkspline.load(str(src)).animations[0]
    (tmp_path / "b.hkx").write_bytes(hkspline.encode(a, like=str(src), tolerance=0.01))
    want = json.loads(run(cli, "error", src, tmp_path / "b.hkx", "--json").stdout)
    got = hkspline.error(str(src), str(tmp_path / "b.hkx"))
    assert got == want
    assert {"max_translation", "max_object_space", "worst_bone", "frames_a", "only_in_b", "complete"} <= set(got)
    detailed = hkspline.error(str(src), str(tmp_path / "b.hkx"), report="detailed")
    assert len(detailed["per_track"]) == 2


def test_errors_raise_with_code(sample, tmp_path):
    data = open(sample / "s.hkx", "rb").read()
    for n in (0, 16, 100, len(data) // 2):
        with pytest.raises(hkspline.Error) as e:
            hkspline.load(data[:n])
        assert e.value.name in ("truncated", "malformed", "unsupported")
    with pytest.raises(hkspline.Error) as e:
        hkspline.load(data[:100])
    assert e.value.code == hkspline.RESULT_CODES["truncated"]
    assert e.value.offset >= 0
    (tmp_path / "t.hkx").write_bytes(data[:150])
    with pytest.raises(hkspline.Error) as e:
        hkspline.load(str(tmp_path / "t.hkx"))
    assert e.value.code == hkspline.RESULT_CODES["truncated"]
    with pytest.raises(hkspline.Error) as e:
        hkspline.load(str(tmp_path / "missing.hkx"))
    assert e.value.name in ("io", "not_found")
    with pytest.raises(hkspline.Error) as e:
        hkspline.error(str(sample / "s.hkx"), str(tmp_path / "missing.json"))
    assert e.value.name == "io"
    # frames that do not fit the original
    a = hkspline.load(str(sample / "s.hkx")).animations[0]
    with pytest.raises(hkspline.Error) as e:
        hkspline.encode(a.frames()[:, :1], like=str(sample / "s.hkx"), floats=a.floats())
    assert e.value.name == "mismatch"
    with pytest.raises(ValueError):
        hkspline.encode(a, like=str(sample / "s.hkx"), tolerance=-1)
    with pytest.raises(TypeError):
        hkspline.encode(a, like=str(sample / "s.hkx"), tolerances=1)
    # a record of another file
    with pytest.raises(hkspline.Error):
        hkspline.encode(a, like=str(sample / "s.hkx"), record=b"HKSF\x02\x00\x00\x00garbage")
