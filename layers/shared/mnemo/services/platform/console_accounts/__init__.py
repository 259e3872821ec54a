"""The console's sign-in for platform users (mnemo.ports.console_auth.ConsoleAuth): passwords, sessions,
invitations and sign-in throttling, each a small module, put together by ConsoleAccounts (service.py)."""
