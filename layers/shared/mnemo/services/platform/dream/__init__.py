"""Dream (reflection): the configuration and on-demand runs, the DREAM job that reflects on a user's memories
through the LLM, and the schedule that finds the users due a run."""
