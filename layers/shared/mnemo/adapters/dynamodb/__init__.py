"""DynamoDB adapters: the memories table and its store, the accounts table (dashboard accounts and platform
tenancy) and the request-log table, over one shared item codec (see README.md and ACCOUNTS.md)."""
