"""Harbor's task format (task.toml, instruction.md, environment/, solution/, tests/) as episodes in containers:
task.py reads and scans task folders, trial.py runs one trial (build, start, verify, remove), support.py
supplies what tests would download (uv, their Python), env.py is the Environment (shell tool, oracle, nop),
prepare.py turns a folder of tasks into prepared rows (benchmark=harbor, terminal_bench_2)."""
