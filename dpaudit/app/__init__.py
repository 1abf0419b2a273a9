"""The applications built on the engine: command line, privacy gate and baselines, pytest plugin."""
