"""The sample team as `brief demo` ingests it: JIRA, Confluence, GitHub (and Slack) through the local vendor fakes.

`build(root)` copies the sample, serves its JIRA project, Confluence space, GitHub repositories and Slack
workspace from `briefing.devserver` on 127.0.0.1, writes the demo's config (the Web API connectors pointed at
the servers by base URL, credentials in env vars) and runs the real pipeline. The servers stop when it returns;
the index stays in `root/home`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from briefing.cli.demo import SLACK_SOURCE, _secrets, api_sources, sample_dir, without_source


@dataclass
class DemoIndex:
    home: Path
    config: Path


@contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def build(root: Path) -> DemoIndex:
    from briefing import pipeline
    from briefing.devserver import serve_sample
    from briefing.registry import FetchOptions
    from briefing.settings import load_settings

    home = root / "home"
    workspace = root / "sample"
    shutil.copytree(sample_dir(), workspace)
    config = workspace / "brief.toml"
    with _environ({"BRIEF_HOME": str(home), **_secrets()}), serve_sample(workspace) as urls:
        text = without_source(config.read_text(encoding="utf-8"), SLACK_SOURCE) if "slack" in urls else ""
        config.write_text(text + api_sources(urls, workspace, None), encoding="utf-8")
        settings = load_settings(config)
        summary = pipeline.run(settings, list(settings.sources), options=FetchOptions())
        assert summary.broken == [] and summary.failure_count == 0, summary
    return DemoIndex(home=home, config=config)
