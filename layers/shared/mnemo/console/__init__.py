"""The web console for platform tenants: server-rendered pages over the platform's services."""
