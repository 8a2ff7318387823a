"""`brief serve`: one long-running process per workspace that ingests webhook events as they happen.

`journal` remembers event ids and unpublished sources across restarts, `ingestor` turns accepted events into
raw-cache records and publishes them in batches (and runs the batch connectors on a schedule), `http` is the
server (`/healthz`, `/metrics`, `/hooks/<source>`), and `process` holds the workspace for the process's life.
"""
