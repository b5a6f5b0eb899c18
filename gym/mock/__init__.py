"""gym's reference server (`model=mock`, `judge=mock`): an OpenAI-compatible endpoint with a known answer
policy, for dry runs and tests. server: HTTP and wire formats; policy: what it answers; judge: verdicts
for judge prompts; formats: answer shapes per benchmark (each family's `mock_answer`, gym.verifiers.base)."""
