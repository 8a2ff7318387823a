# brief developer tasks (https://just.systems)

default: lint test

# Install the project with development tools into the active environment
install:
    pip install -e '.[dev]'

# Run the test suite (extra args go to pytest)
test *args:
    python -m pytest {{args}}

# The fast subset: no full index (slow) and no ../shared corpus (corpus). 1,238 tests: 546 s of CPU, 33 min of wall
# time on two cores shared with other jobs at load average 7 to 14 (measured 2026-12-06)
test-fast *args:
    python -m pytest -m "not slow and not corpus" {{args}}

# Lint and type-check
lint:
    ruff check .
    ruff format --check .
    mypy

# Apply automatic fixes
fix:
    ruff check --fix .
    ruff format .

# Ingest the bundled sample workspace into a temporary home and ask it a few questions
demo:
    brief demo

# Measure ingest throughput and search latency on the sample workspace
bench:
    python scripts/bench.py
