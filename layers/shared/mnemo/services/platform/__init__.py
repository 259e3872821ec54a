"""The platform surface's use cases, one package per feature: tenancy (organizations, projects, keys, events,
reports), memories (a project's memories and filters), jobs (adds, imports and their queue), webhooks, profiles
and dream; `features.py` is the set of them the composition root builds."""
