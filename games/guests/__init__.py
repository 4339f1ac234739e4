"""Visitors: guests who play before they have an account, and the home page's
showcase match between bots."""
