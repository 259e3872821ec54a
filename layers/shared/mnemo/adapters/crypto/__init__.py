"""Cryptographic adapters: password hashing (argon2id) and signed tokens (HS256 JWT)."""
