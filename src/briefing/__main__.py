"""Allow `python -m briefing`."""

from briefing.cli.app import main

main()
