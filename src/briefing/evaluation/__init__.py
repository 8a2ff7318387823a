"""`brief eval`: run evaluation cases through the production ask path and measure retrieval and answers."""
