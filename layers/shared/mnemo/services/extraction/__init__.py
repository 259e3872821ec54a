"""The topics an add names (`includes`, `excludes`) and whether a statement is about one of them."""
