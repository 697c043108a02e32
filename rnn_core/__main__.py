"""``python -m rnn_core``: the command line (see rnn_core.cli)."""

from .cli import main

raise SystemExit(main())
