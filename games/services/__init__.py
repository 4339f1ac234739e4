"""Use cases (writes). Each is keyword-only, typed, and runs in one transaction.

Split by concept: matches (lobby, seats, start), turns (orders in, the next turn
begun), resolution (the worker's: an accepted turn applied), clock (deadlines,
warnings, hand-over to bots), admin (staff actions), notifications (email rows and
sending).
"""

from games.services.admin import (
    match_abort,
    match_pause,
    match_resume,
    seat_replace_with_bot,
    turn_pass_now,
)
from games.services.clock import (
    SweepReport,
    clock_sweep,
    deadline_warn,
    turn_deadline_pass,
    turn_pass_on_deadline,
)
from games.services.matches import (
    match_create,
    match_play_now,
    match_title_clean,
    ruleset_at_once,
    ruleset_default_seats,
    ruleset_has_steps,
    ruleset_seats,
    seat_join,
    seat_leave,
    seat_numbers,
    seat_reclaim,
)
from games.services.notifications import (
    notification_send,
    notification_settings_update,
    notification_unsubscribe,
    notify,
    seat_seen,
)
from games.services.resolution import turn_resolve
from games.services.turns import match_locked, orders_submit, orders_submit_locked
from games.services.unsubscribe import unsubscribe_token, unsubscribe_token_read

__all__ = [
    "SweepReport",
    "clock_sweep",
    "deadline_warn",
    "match_abort",
    "match_create",
    "match_locked",
    "match_title_clean",
    "match_pause",
    "match_play_now",
    "match_resume",
    "notification_send",
    "notification_settings_update",
    "notification_unsubscribe",
    "notify",
    "orders_submit",
    "orders_submit_locked",
    "ruleset_at_once",
    "ruleset_default_seats",
    "ruleset_has_steps",
    "ruleset_seats",
    "seat_join",
    "seat_leave",
    "seat_numbers",
    "seat_reclaim",
    "seat_seen",
    "seat_replace_with_bot",
    "turn_deadline_pass",
    "turn_pass_now",
    "turn_pass_on_deadline",
    "turn_resolve",
    "unsubscribe_token",
    "unsubscribe_token_read",
]
