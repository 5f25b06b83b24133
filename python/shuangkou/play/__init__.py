"""`shuangkou play`: a web table to play against the bots (docs/play.md). Needs the
optional web stack: bash scripts/setup.sh --play (or pip install '.[play]' in the clone)."""
