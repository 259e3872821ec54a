"""mnemo: long-term memory for AI agents."""

__version__ = "0.1.0"
