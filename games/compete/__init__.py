"""Competing: a rating per account per game (openskill's Plackett-Luce), every change
kept as a row, and where players see them (the end of a match, leaderboards,
profiles, the API). docs/compete.md."""
