"""`python -m errorkb`: the same command line as `errorkb`, with the same exit codes, for an environment whose
scripts folder is not on PATH (a virtual environment used without activating it, `pipx run`, a notebook)."""

import sys

from errorkb.cli import main

if __name__ == "__main__":
    sys.exit(main())
