"""Binder.write's file mode (new-user trial: binders written by the binding were 0600, the CLI's 0644) and
the documented attributes of PYTHON.md against the objects. No corpus needed."""
import os
import re
import stat

import pytest

import hkspline
from test_hostile import _binder_bytes

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "PYTHON.md")


def _mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_write_mode(sample, cli, tmp_path):
    """A new file gets 0666 & ~umask (as open() and the CLI); a file written over keeps its own mode."""
    b = hkspline.Binder.read(_binder_bytes(cli, str(sample / "s.hkx"), tmp_path))
    old = os.umask(0o022)
    try:
        b.write(str(tmp_path / "new.anibnd"))
        assert _mode(tmp_path / "new.anibnd") == 0o644
        os.umask(0o027)
        b.write(str(tmp_path / "new2.anibnd"))
        assert _mode(tmp_path / "new2.anibnd") == 0o640
        os.umask(0o022)
        kept = tmp_path / "kept.anibnd"
        kept.write_bytes(b"old")
        os.chmod(kept, 0o604)
        b.write(str(kept))
        assert _mode(kept) == 0o604 and kept.read_bytes() == b.to_bytes()
    finally:
        os.umask(old)
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".hkspline-")]  # no temporary left


def _documented():
    """The attribute lists of PYTHON.md's "Objects" section: items `- `Class`: `a`, `b()` (...), ...`."""
    text = open(DOCS, encoding="utf-8").read()
    section = text.split("## Objects", 1)[1].split("\n## ", 1)[0]
    out = {}
    for item in re.split(r"\n(?=- )", section):  # one list item with its continuation lines
        m = re.match(r"- `(\w+)`: (.*)", item, re.S)
        if m:
            # the attributes, not the quoted values of a parenthesis ("tagfile", -1, ...)
            text = re.sub(r"\([^()]*(?:\([^()]*\)[^()]*)*\)", "", m.group(2))
            out[m.group(1)] = re.findall(r"`(\w+)(?:\(\))?`", text)
    return out


def test_documented_attributes_exist(sample, tmp_path, cli):
    """Every attribute PYTHON.md lists exists on the real objects (it listed an Animation.tracks that
    does not), and the lists cover every public attribute of the objects."""
    doc = _documented()
    f = hkspline.load(str(sample / "s.hkx"), skeleton=str(sample / "Skeleton.HKX"))
    sk = hkspline.load(str(sample / "Skeleton.HKX"))
    anim = f.animations[0]
    try:
        hkspline.load(str(tmp_path / "missing.hkx"))
    except hkspline.Error as e:
        err = e
    objects = {"File": f, "Animation": anim, "Skeleton": sk.skeletons[0], "Binding": anim.binding or
               (f.bindings[0] if f.bindings else None), "Error": err,
               "Binder": hkspline.Binder.read(_binder_bytes(cli, str(sample / "s.hkx"), tmp_path))}
    assert set(doc) >= {"File", "Animation", "Skeleton", "Error", "Binder"}, doc
    for cls, attrs in doc.items():
        obj = objects.get(cls)
        if obj is None:
            continue
        missing = [a for a in attrs if not hasattr(obj, a)]
        assert not missing, f"PYTHON.md lists {cls} attributes that do not exist: {missing}"
        public = {a for a in set(dir(obj)) - set(dir(Exception)) if not a.startswith("_")} \
            if cls == "Error" else {a for a in dir(obj) if not a.startswith("_")}
        assert not public - set(attrs), f"{cls} attributes PYTHON.md does not list: {sorted(public - set(attrs))}"


def test_documented_examples_use_real_attributes(sample, tmp_path, cli):
    """The examples' `f.X`, `anim.X`, `sk.X`, `b.X` (code blocks of PYTHON.md) exist on those objects."""
    text = open(DOCS, encoding="utf-8").read()
    code = "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))
    code = re.sub(r'"[^"\n]*"', '""', code)  # not "b.hkx" in a string
    f = hkspline.load(str(sample / "s.hkx"), skeleton=str(sample / "Skeleton.HKX"))
    objects = {"f": f, "anim": f.animations[0], "sk": hkspline.load(str(sample / "Skeleton.HKX")).skeletons[0],
               "b": hkspline.Binder.read(_binder_bytes(cli, str(sample / "s.hkx"), tmp_path)), "hkspline": hkspline}
    used = set(re.findall(r"\b(f|anim|sk|b|hkspline)\.(\w+)", code))
    assert ("anim", "num_frames") in used
    missing = sorted(f"{o}.{a}" for o, a in used if not hasattr(objects[o], a))
    assert not missing, f"PYTHON.md's examples use attributes that do not exist: {missing}"
