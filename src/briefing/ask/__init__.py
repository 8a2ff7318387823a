"""The ask flow: constraints, retrieval, answer."""
