"""Build the sample `ledger-api` git repository: `python scripts/make_sample_git.py DEST` creates `DEST/ledger-api`.

The history lives in the package (`briefing.devserver.git_repo`) so that an installed `brief demo` can build it too.
"""

from briefing.devserver.git_repo import main

if __name__ == "__main__":
    main()
