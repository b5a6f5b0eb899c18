"""task=collect's run, below its door: gym/tasks/collect.py types the config and reads the knobs once
(gym.core.typed, gym.rollouts.settings.CollectKnobs) and hands them here. pipeline.py runs the steps in
order (load the benchmark, check its tasks, start the endpoints, plan, run, summarise), endpoints.py starts
and connects the run's endpoints, summary.py writes the summary and the closing lines."""
