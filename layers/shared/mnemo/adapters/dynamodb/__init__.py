"""DynamoDB adapters: the record store on one table (see README.md)."""
