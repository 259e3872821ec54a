"""The platform's jobs: adds, imports and Dream runs stored as PENDING events, queued, and run by a worker (the
local add worker, or the ingest function on AWS) through one router keyed by the event's kind."""
