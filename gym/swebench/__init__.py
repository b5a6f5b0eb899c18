"""SWE-bench: instances, per-repo environment specs, eval scripts and grading."""
