"""The platform surface: `/v1/`, `/v2/`, `/v3/` and `/api/v1/orgs/` routes, authenticated by `Authorization: Token
<project key>`. Each module's router is one part of the `platform` route group (api/route_groups.py): importing
this package imports none of them, so an app can load the one a request needs."""
