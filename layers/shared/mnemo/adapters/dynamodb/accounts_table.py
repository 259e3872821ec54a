"""The accounts table: dashboard users (user_store.py), their API keys (api_key_store.py), refresh tokens
(refresh_token_store.py) and, every partition key under `T#`, the platform's tenancy (tenancy_store/).

Keyed by strings `pk`/`sk`, on-demand, no secondary index, a TTL on `ttl`: see ACCOUNTS.md beside this file.
Every read the authentication path depends on is strongly consistent (a key revoked or a session ended is
refused on the very next request); changes to more than one item are transactions.
"""

from __future__ import annotations

from mnemo.adapters.dynamodb.tables import create_key_table

# For tests and local tools: the table as template.yaml declares it (the adapters never create tables).
create_accounts_table = create_key_table
