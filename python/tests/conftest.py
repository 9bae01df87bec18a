"""Shared fixtures: the CLI and make_sample of the same build (HKSPLINE_CLI, set by ctest), the corpus
(HKSPLINE_CORPUS, else HKSPLINE_CORPUS_DEFAULT), a scratch folder."""
import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def _cli():
    cli = os.environ.get("HKSPLINE_CLI")
    if not cli:
        here = os.path.join(os.path.dirname(__file__), "..", "..", "build", "hkspline")
        cli = here if os.path.exists(here) else None
    return cli


@pytest.fixture(scope="session")
def cli():
    c = _cli()
    if not c or not os.path.exists(c):
        pytest.skip("HKSPLINE_CLI is not set (run through ctest)")
    return c


@pytest.fixture(scope="session")
def make_sample(cli):
    p = os.path.join(os.path.dirname(cli), "make_sample")
    if not os.path.exists(p):
        pytest.skip("make_sample is not built")
    return p


@pytest.fixture(scope="module")
def sample(tmp_path_factory, make_sample):
    """A folder with make_sample's clip s.hkx and its Skeleton.HKX, one per test module."""
    d = tmp_path_factory.mktemp("sample")
    run(make_sample, d / "s.hkx")
    run(make_sample, "--skeleton", d / "Skeleton.HKX")
    return d


@pytest.fixture(scope="session")
def corpus():
    c = os.environ.get("HKSPLINE_CORPUS") or os.environ.get("HKSPLINE_CORPUS_DEFAULT")
    if not c or not os.path.isdir(c):
        pytest.skip("no corpus (set HKSPLINE_CORPUS)")
    return c


def run(*args, check=True):
    r = subprocess.run([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and r.returncode != 0:
        raise AssertionError(f"{args} exited {r.returncode}: {r.stderr.decode(errors='replace')}")
    return r
