"""`python -m hybridkit` runs the command-line interface."""

import sys

from hybridkit.cli import main

sys.exit(main())
