#!/bin/sh
# The Python binding's tests (ctest "python_binding"): /usr/bin/python3 -m pytest
# over python/tests, the package used in place. Exit 77 (ctest: skipped) when
# Debian's python3, numpy or pytest is missing.
PY=${HKSPLINE_PYTHON:-/usr/bin/python3}
dir=${1:-$(dirname "$0")/../python}
if ! "$PY" -c 'import numpy, pytest' 2>/dev/null; then
	echo "SKIP: $PY lacks numpy or pytest (Debian: python3-numpy python3-pytest)"
	exit 77
fi
cd "$dir" && PYTHONPATH="$dir${PYTHONPATH:+:$PYTHONPATH}" exec "$PY" -m pytest -q -rs -p no:cacheprovider tests
