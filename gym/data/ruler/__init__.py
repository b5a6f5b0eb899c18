"""RULER's synthetic long-context tasks, generated at prepare for a tokenizer and a length (tasks: the
generators; sources: the upstream files they read)."""
