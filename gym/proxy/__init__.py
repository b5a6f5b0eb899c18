"""gym's model proxy: a third-party agent's model calls, forwarded to the run's model and recorded.

gym.proxy.server runs it (one per trial), gym.proxy.dialects reads and answers OpenAI chat completions,
OpenAI Responses and Anthropic Messages, gym.proxy.streams tells a reply as an event stream,
gym.proxy.record keeps each call under NeMo Gym's field names and the trial's budgets.
"""

from gym.proxy.record import Budget, CallLog, trajectory  # noqa: F401
from gym.proxy.server import ModelProxy  # noqa: F401
