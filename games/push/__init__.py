"""The pages' push channel: server-sent events telling a page "this match changed;
ask for your view", rung after each commit that changes a match (bell.py), served
by the ASGI process without a thread per page (asgi.py). docs/push.md."""
