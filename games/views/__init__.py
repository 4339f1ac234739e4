"""The site's pages, one module per room: `lobby` (the lobby, Watch, Bots, the new
match form, Play now), `home` (a visitor's home page, the games and their rules),
`match` (the match page and what a player does there), `board` (the match page's
poll, history, movies, hints and the replay page), `archive` (finished matches and
players' records), `tokens` (API tokens) and `accounts` (notification settings and
unsubscribing), with `access` for who may see a match."""
