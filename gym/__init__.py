"""gym: an evaluation harness for LLMs behind OpenAI-compatible endpoints."""

__version__ = "0.1.0"
