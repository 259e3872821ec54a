"""The composition root: typed settings in, a container of wired services out. Nothing else builds adapters.

`container.build_container` picks the backend; `local`, `aws` and `platform` wire each part; `auth` the
authentication services of the self-hosted surface; `maintenance` the stores a maintenance command opens.
"""
