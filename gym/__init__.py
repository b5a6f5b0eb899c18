"""gym: an evaluation harness for LLMs behind OpenAI-compatible endpoints."""

from gym.core import moved as _moved

__version__ = "0.1.0"
_moved.install()
