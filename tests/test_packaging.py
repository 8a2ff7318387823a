"""The wheel a user installs (pip or pipx) carries the core, every registered source's package, the chunkers and
the sample workspace, with the `brief` entry point; `python -m briefing` runs the same CLI."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from briefing import registry

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_wheel_has_everything_the_registry_names(tmp_path: Path) -> None:
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next(tmp_path.glob("brief-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for dotted in registry.SOURCES.values():
        package = dotted.partition(":")[0].replace(".", "/")
        assert f"{package}/__init__.py" in names or f"{package}.py" in names, dotted
    for descriptor in registry.descriptors():
        for module in [descriptor.factory] + [k.chunker for k in descriptor.kinds]:
            if module:
                assert module.partition(":")[0].replace(".", "/") + ".py" in names, module
    assert "briefing/sample/brief.toml" in names
    # The sample ships its data only; the generators that wrote it live in scripts/sample/.
    assert not [n for n in names if n.startswith("briefing/sample/") and n.endswith(".py")]
    assert not any(n.startswith("tests/") for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "brief=briefing.cli.entry:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_python_dash_m_briefing_is_the_cli() -> None:
    result = subprocess.run([sys.executable, "-m", "briefing", "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("brief ")
