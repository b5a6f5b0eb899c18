"""BFCL multi-turn (Berkeley Function Calling Leaderboard v4): the API classes an entry's calls run on,
the environment that plays an entry turn by turn, and upstream's multi-turn checker in gym's words."""
