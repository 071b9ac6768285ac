"""``python -m leafgrad ...`` is the ``leafgrad`` command."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
