# brief developer tasks (https://just.systems)

default: lint test

# Install the project with development tools into the active environment
install:
    pip install -e '.[dev]'

# Run the test suite (extra args go to pytest)
test *args:
    python -m pytest {{args}}

# The fast subset: no full index and nothing costing more than about half a second of CPU (slow), no ../shared corpus
# (corpus). 1,489 tests: 68 to 76 s of CPU (user + system), 88 to 167 s of wall time on two shared cores (2026-12-06)
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
