"""In-process adapters: a queue and a publisher for the local process, with the semantics of SQS and SNS."""
