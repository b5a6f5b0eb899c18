"""SciCode: scientific problems solved one sub-step at a time, each step's code tested on its own."""
