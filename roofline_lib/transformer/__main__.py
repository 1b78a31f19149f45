"""``python -m roofline_lib.transformer``: see :mod:`roofline_lib.transformer.cli`."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
