"""ToolSandbox (apple/ToolSandbox): stateful phone tools, a simulated user, milestone similarity scoring."""
