"""The bot HTTP API of protocol.md under /api/v1/ (django-ninja)."""
