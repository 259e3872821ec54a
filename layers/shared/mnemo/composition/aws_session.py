"""The boto3 session every AWS composition starts from, its SDK data read once per process.

A boto3 session brings its own botocore data loader, which parses the SDK's JSON files again: the endpoint rules of
every partition and the model of each service a client is made for, most of the CPU a new session and client cost. A
process builds several sessions (a Lambda's container and its scheduler, a CLI command's stores, a restart of the
runtime), and those files never change while it runs, so each session made here shares one loader. The rest of a
session (its credentials, region and event hooks) stays its own. boto3 appends its own data directory to the loader's
search paths each time a session is made; the shared loader keeps one copy of each path.

boto3 is imported on call, as everywhere in composition, so the local process never imports it.
"""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_loader: Any | None = None  # botocore.loaders.Loader, made by the first session


def aws_session(region: str | None) -> Any:
    """A new boto3 session for `region` (None: the SDK's own chain decides), on the process's shared data loader."""
    import boto3
    import botocore.session

    global _loader
    with _lock:
        core = botocore.session.get_session()
        if _loader is None:
            _loader = core.get_component("data_loader")
        else:
            core.register_component("data_loader", _loader)
        session = boto3.Session(botocore_session=core, region_name=region)
        paths = _loader.search_paths
        paths[:] = list(dict.fromkeys(paths))
    return session
