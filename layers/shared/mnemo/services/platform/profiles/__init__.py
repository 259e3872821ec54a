"""User profiles: the profile service (settings, profiles, generations, jobs), the staleness that memory changes
claim, the generators (LLM or similarity), and the local worker that runs the generations and jobs."""
