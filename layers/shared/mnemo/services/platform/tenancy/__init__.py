"""Tenancy: organizations, projects, members and roles, project API keys, the entities and events a project's
records hold, its reports and exports, and what a delete scrubs beside the memories."""
