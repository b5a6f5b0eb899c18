"""SWE-bench as an episode environment (gym.episodes.swebench.env)."""
