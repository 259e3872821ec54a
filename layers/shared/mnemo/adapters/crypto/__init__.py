"""Cryptographic adapters: password hashing (argon2id), signed tokens (HS256 JWT) and the box that seals stored
secrets (Fernet)."""
