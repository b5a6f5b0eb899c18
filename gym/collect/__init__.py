"""task=collect's run, below its door: gym/tasks/collect.py types the config (gym.core.typed) and hands the
RunConfig here. pipeline.py finds a resume's file, reads the knobs once (gym.rollouts.settings.CollectKnobs),
makes the settings and runs the steps in order (load the benchmark, check its tasks, start the endpoints,
plan, run, summarise), endpoints.py starts the run's endpoints (gym.model.run_endpoints) and its calls,
summary.py writes the summary and the closing lines."""
