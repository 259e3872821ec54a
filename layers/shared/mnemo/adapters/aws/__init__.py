"""AWS adapters: SQS queue, SNS publisher, and the factory that builds every AWS adapter from settings."""
