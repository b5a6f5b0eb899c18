"""τ²-bench (sierra-research/tau2-bench, MIT) in gym: domains, their tools over JSON databases, the
episode state and replay, the scorer, and the prepare-time reading of upstream's files."""
