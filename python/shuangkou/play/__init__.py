"""`shuangkou play`: a web table to play against the bots (docs/play.md). Needs the
optional web stack: pip install ".[play]"."""
