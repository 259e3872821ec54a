"""The platform surface's use cases: tenancy and keys, project memories and events, reports."""
