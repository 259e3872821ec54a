"""The composition root: typed settings in, a container of wired services out. Nothing else builds adapters.

`container.build_container` picks the backend and imports its composition only: `local` (SQLite, the embedded
backend's workers) or `aws` (DynamoDB, OpenSearch, SQS, SNS; `aws_functions` the webhook delivery and Dream scheduler
functions' own), each building every object through its constructor, stores first; `platform` the platform's
features over a backend's stores, `shared` the core services and the settings' values, `auth` the authentication
services of the self-hosted surface, `maintenance` the stores a maintenance command opens. `container_type` is the
Container itself, which imports no backend.
"""
