"""τ²-bench's `banking_knowledge` domain, one module per tool family: agent.py (the agent's toolkit and
its discoverable tools), user.py (the user's toolkit and the DOMAIN both sides share), db.py (the database and
its record look-ups), accounts/activation/cards/credit/disputes/limits/order/pins/scans (the tool families),
kb.py, dense.py and shell.py (the knowledge base's BM25 and grep, embeddings and `shell` retrieval), and
prepare.py (the domain file read from upstream)."""
