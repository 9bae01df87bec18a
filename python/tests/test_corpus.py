"""The binding on a sample of the corpus (skips without it): Sekiro and Elden Ring clips and a binder
member; frames bit for bit as `hkspline decode`, encode as the CLI, recompress + record gives the original
bytes, a missing compendium raises with its code, binders read, replace and write."""
import os
import shutil

import numpy as np
import pytest

import hkspline
from conftest import run
from test_binding import hex_frames

SAMPLE = [("sekiro/c1050", 0), ("sekiro/c1050", 7), ("elden_ring/c2190", 3)]


def clips(corpus):
    for folder, k in SAMPLE:
        d = os.path.join(corpus, folder)
        if not os.path.isdir(d):
            continue
        names = sorted(n for n in os.listdir(d) if n.lower().startswith("a") and n.lower().endswith(".hkx"))
        if names:
            yield d, os.path.join(d, names[k % len(names)])


def test_frames_encode_record(corpus, cli, tmp_path):
    done = 0
    for folder, clip in clips(corpus):
        comp = [folder]
        want = hex_frames(cli, clip, tmp_path / "d.json", "--compendium", folder)
        f = hkspline.load(clip, compendium=comp)
        for a in f.animations:
            if a.kind != "spline":
                continue
            t, fl, bones, dur = want[a.index]
            assert np.array_equal(a.frames().view(np.uint32), t), clip
            assert np.array_equal(a.floats().view(np.uint32), fl), clip
            assert a.bone_names == bones
        # encode as the CLI
        run(cli, "decode", "--compendium", folder, clip, "-o", tmp_path / "d.json")
        run(cli, "encode", "--compendium", folder, tmp_path / "d.json", "--like", clip, "--tolerance", "0.002",
            "-o", tmp_path / "cli.hkx")
        anim = next(a for a in f.animations if a.kind == "spline")
        got = hkspline.encode(anim, like=clip, compendium=comp, tolerance=0.002)
        assert got == open(tmp_path / "cli.hkx", "rb").read(), clip
        # recompress + encode(record) = the original
        pred, record = hkspline.recompress(clip, compendium=comp)
        assert len(pred) > 0 and record[:4] == b"HKSF"
        assert hkspline.encode(anim, like=clip, compendium=comp, record=record) == open(clip, "rb").read(), clip
        done += 1
    if not done:
        pytest.skip("none of the sample folders is in the corpus")


def test_missing_compendium(corpus, tmp_path):
    folder, clip = next(clips(corpus), (None, None))
    if not clip:
        pytest.skip("no sample clip")
    lone = tmp_path / "lone.hkx"
    shutil.copy(clip, lone)
    f = hkspline.load(clip, compendium=[folder])
    if not open(clip, "rb").read().count(b"TCRF"):
        pytest.skip("the sample clip refers to no compendium")
    with pytest.raises(hkspline.Error) as e:
        hkspline.load(str(lone))
    assert e.value.code == hkspline.RESULT_CODES["compendium"]
    # the advice names the Python argument, not the CLI's option
    assert "compendium=" in str(e.value) and "--compendium" not in str(e.value)
    with pytest.raises(hkspline.Error) as e:
        hkspline.load(open(clip, "rb").read())
    assert e.value.name == "compendium"
    assert f.animations


def test_binder(corpus, cli, tmp_path):
    bnd = os.path.join(corpus, "binders", "sekiro-c1060.anibnd.dcx")
    if not os.path.exists(bnd):
        pytest.skip("no sample binder")
    b = hkspline.Binder.read(bnd)
    members = [n for n in b.names if n.lower().endswith(".hkx") and "skeleton" not in n.lower()]
    assert members
    name = members[0].replace("\\", "/").split("/")[-1]
    f = hkspline.load(f"{bnd}:{name}")
    anim = next(a for a in f.animations if a.kind == "spline")
    new = hkspline.encode(anim, like=f"{bnd}:{name}", tolerance=0.01)
    b.replace(name, new)
    out = tmp_path / "c.anibnd.dcx"
    b.write(str(out))
    back = hkspline.Binder.read(str(out))
    assert back.names == b.names
    assert back.get(name) == new
    g = hkspline.load(f"{out}:{name}")
    assert g.animations[anim.index].num_transform_tracks == anim.num_transform_tracks
    # the CLI reads the new member too
    run(cli, "info", f"{out}:{name}", check=False)


def test_binder_unchanged_is_byte_identical(corpus):
    """Binder.to_bytes deflated at the header's level byte, which gives other bytes for Sekiro's binders;
    it now finds the level that reproduces the binder (as the CLI does), so an unchanged binder comes back
    byte for byte, and so does a binder whose member is put back as it was."""
    bnd = os.path.join(corpus, "binders", "sekiro-c1060.anibnd.dcx")
    if not os.path.exists(bnd):
        pytest.skip("no sample binder")
    with open(bnd, "rb") as f:
        original = f.read()
    b = hkspline.Binder.read(bnd)
    assert b.to_bytes() == original
    name = next(n for n in b.names if n.lower().endswith(".hkx") and "skeleton" not in n.lower())
    b.replace(name, b.get(name))
    assert b.to_bytes() == original


def test_binder_adds_like_encode_into(corpus, cli, tmp_path):
    """New-user trial: Binder.replace of a name the binder lacks added a bare name with ID -1. It adds like
    the binder's members (hks_bnd4_add_like): the folder prefix, the flags and the ID rule, exactly as
    `hkspline encode --into` does; an explicit id= / flags= still adds the name as given."""
    bnd = os.path.join(corpus, "binders", "sekiro-c1060.anibnd.dcx")
    if not os.path.exists(bnd):
        pytest.skip("no sample binder")
    b = hkspline.Binder.read(bnd)
    donor = next(n for n in b.names if n.lower().endswith("a000_000000.hkx"))
    name = "a000_999999.hkx"
    data = hkspline.load(f"{bnd}:a000_000000.hkx").to_bytes()
    b.replace(name, data)
    added = b.entries[-1]
    prefix = donor[: -len("a000_000000.hkx")]
    base = next(e["id"] for e in b.entries if e["name"] == donor)  # a000_000000: the base itself
    assert added["name"] == prefix + name and added["id"] == base + 999999, added
    assert added["flags"] == next(e["flags"] for e in b.entries if e["name"] == donor)
    assert b.get(name) == data
    out = tmp_path / "py.anibnd.dcx"
    b.write(str(out))
    # the CLI's encode --into on another copy: the same name, ID and flags
    copy = tmp_path / "cli.anibnd.dcx"
    shutil.copyfile(bnd, copy)
    run(cli, "decode", f"{bnd}:a000_000000.hkx", "-o", tmp_path / "f.json")
    run(cli, "encode", tmp_path / "f.json", "--like", f"{bnd}:a000_000000.hkx", "-o", tmp_path / "n.hkx",
        "--into", copy, "--name", name, "--no-backup")
    want = hkspline.Binder.read(str(copy)).entries[-1]
    got = hkspline.Binder.read(str(out)).entries[-1]
    assert (got["name"], got["id"], got["flags"]) == (want["name"], want["id"], want["flags"])
    # explicit id / flags: hks_bnd4_add, the name as given
    b.replace("x_new.hkx", b"x", id=5)
    assert b.entries[-1] == {"name": "x_new.hkx", "id": 5, "flags": 0, "size": 1}


def test_cli_refuses_another_characters_gltf(corpus, cli, tmp_path):
    """An Elden Ring c3160 clip's glTF onto a Sekiro c1050 clip: refused (exit 1, nothing written) unless
    --allow-unmatched; decoding with the other character's skeleton warns. The CLI is the binding's peer here:
    the check guards the command line's glTF path."""
    er = os.path.join(corpus, "elden_ring", "c3160")
    sk = os.path.join(corpus, "sekiro", "c1050")
    if not os.path.isdir(er) or not os.path.isdir(sk):
        pytest.skip("no elden_ring/c3160 or sekiro/c1050 in the corpus")
    er_clip = os.path.join(er, sorted(n for n in os.listdir(er) if n.startswith("a0"))[0])
    sk_clip = os.path.join(sk, sorted(n for n in os.listdir(sk) if n.startswith("a0"))[0])
    sk_skel = os.path.join(sk, next(n for n in os.listdir(sk) if n.lower() == "skeleton.hkx"))
    glb = tmp_path / "er.glb"
    run(cli, "decode", "--compendium", corpus, er_clip, "-o", glb)
    out = tmp_path / "mism.hkx"
    r = run(cli, "encode", glb, "--like", sk_clip, "-o", out, check=False)
    assert r.returncode == 1, r.stderr.decode(errors="replace")
    assert "--allow-unmatched" in r.stderr.decode(errors="replace") and not out.exists()
    r = run(cli, "encode", glb, "--like", sk_clip, "-o", out, "--allow-unmatched", check=False)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    assert out.exists()
    # the right character's clip encodes without the flag
    r = run(cli, "encode", glb, "--like", er_clip, "--compendium", corpus, "-o", tmp_path / "ok.hkx", check=False)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    # decoding with another character's skeleton: a warning naming both skeletons, still exit 0
    r = run(cli, "decode", "--skeleton", sk_skel, "--compendium", corpus, er_clip, "-o", tmp_path / "w.glb",
            check=False)
    err = r.stderr.decode(errors="replace")
    assert r.returncode == 0, err
    assert "warning" in err and '"c3160"' in err and '"c1050"' in err, err
    r = run(cli, "decode", "--compendium", corpus, er_clip, "-o", tmp_path / "n.glb", check=False)
    err = r.stderr.decode(errors="replace")
    assert r.returncode == 0 and "warning" not in err, err
