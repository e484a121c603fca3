"""ContextDB Cloud: the backend on the official client, and a contract double for tests."""
