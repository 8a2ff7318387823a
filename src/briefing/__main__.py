"""Allow `python -m briefing`."""

from briefing.cli.entry import main

main()
