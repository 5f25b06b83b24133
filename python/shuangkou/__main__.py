"""`python -m shuangkou ...` is the `shuangkou` command."""

import sys

from .cli import main

sys.exit(main())
