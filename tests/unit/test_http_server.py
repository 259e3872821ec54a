"""mnemo.entrypoints.http_server: the edge's limits come from the settings, the connections bounded by half the
process's open-file limit too; the configuration serves with EdgeProtocol and the keep-alive setting."""

from __future__ import annotations

from mnemo.entrypoints.http_edge import EdgeLimits, EdgeProtocol
from mnemo.entrypoints.http_server import edge_limits, open_file_limit, server_config
from mnemo.settings.server import ServerSettings


def test_the_limits_are_the_settings() -> None:
    settings = ServerSettings(
        http_max_request_line_bytes=4_096,
        http_max_header_bytes=1_024,
        http_max_headers_bytes=2_048,
        http_head_timeout_seconds=3.5,
        http_max_connections=12,
    )
    assert edge_limits(settings, None) == EdgeLimits(4_096, 1_024, 2_048, 3.5, 12)


def test_the_connections_are_at_most_half_the_open_file_limit() -> None:
    settings = ServerSettings(http_max_connections=1_000)
    assert edge_limits(settings, 1_024).max_connections == 512
    assert edge_limits(settings, 100_000).max_connections == 1_000
    assert edge_limits(settings, 1).max_connections == 1


def test_the_defaults_are_the_documented_bounds() -> None:
    limits = edge_limits(ServerSettings(), None)
    assert (limits.max_request_line_bytes, limits.max_header_bytes, limits.max_headers_bytes) == (
        64 * 1_024,
        8 * 1_024,
        32 * 1_024,
    )
    assert (limits.head_timeout_seconds, limits.max_connections) == (10.0, 1_000)


def test_the_configuration_serves_with_the_edge_protocol() -> None:
    config = server_config(
        "mnemo.entrypoints.http_workers:app", ServerSettings(http_keep_alive_seconds=7), factory=True
    )
    assert (config.http, config.timeout_keep_alive, config.factory) == (EdgeProtocol, 7, True)
    limit = open_file_limit()
    expected = 1_000 if limit is None else min(1_000, limit // 2)
    assert config.edge_limits.max_connections == expected
