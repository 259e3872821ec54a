"""Lambda entries, one folder per function (see README.md); packages only so that tests and mypy can import them."""
