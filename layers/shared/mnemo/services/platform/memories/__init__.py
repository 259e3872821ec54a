"""A project's memories as the platform serves them: the project memory service over the namespaces, the
platform's filter grammar, and the retrieval counters of its statistics."""
