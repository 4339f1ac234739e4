"""The bot HTTP API of docs/protocol.md under /api/v1/ (django-ninja)."""
