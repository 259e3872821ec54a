"""In-process adapters: a queue for the local process, with the semantics of SQS."""
