"""Web Push: a player's browser told "your turn" when they are away, as the email is
(docs/webpush.md). The site signs each message with its VAPID key (keys.py) and
encrypts it for the browser's subscription (RFC 8291, by pywebpush); the browser's
push service carries it to the service worker (push-sw.js), which shows it."""
