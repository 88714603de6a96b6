"""``python -m bpe_lesson`` is the ``bpe-lesson`` command."""
import sys

from .cli import main

sys.exit(main())
