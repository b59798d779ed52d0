"""Allow `python -m templecam`."""

import sys

from templecam.cli import main

sys.exit(main())
