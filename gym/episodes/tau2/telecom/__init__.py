"""τ²-bench's `telecom` domain: domain.py (the DOMAIN and the sync between the sides), carrier.py (the
carrier's tools), phone.py (the user's simulated phone), user.py (the user's tools over it)."""
