"""τ²-bench's `airline` domain: domain.py (the DOMAIN and its tools), records.py (its record shapes)."""
