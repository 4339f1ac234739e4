from django.urls import path

from games.guests.views import guest_signup
from games.views import accounts, archive, board, home, lobby, match, tokens

app_name = "games"

urlpatterns = [
    path("", lobby.lobby, name="lobby"),
    path("healthz", lobby.healthz, name="healthz"),
    path("rules/", home.rules, name="rules"),
    path("games/", home.games_index, name="games"),
    path("games/<str:name>/", home.rules, name="game-rules"),
    path("games/<str:name>/rules/", home.rules_moved, name="game-rules-moved"),
    path("guest/signup/", guest_signup, name="guest-signup"),
    path("matches/new/", lobby.match_create, name="match-create"),
    path("matches/play-now/", lobby.match_play_now, name="match-play-now"),
    path("matches/<int:match_id>/", match.match_detail, name="match-detail"),
    path("matches/<int:match_id>/orders/", match.match_orders, name="match-orders"),
    path("matches/<int:match_id>/join/", match.match_join, name="match-join"),
    path("matches/<int:match_id>/leave/", match.match_leave, name="match-leave"),
    path("matches/<int:match_id>/reclaim/", match.match_reclaim, name="match-reclaim"),
    path("matches/<int:match_id>/rematch/", match.match_rematch, name="match-rematch"),
    path("matches/<int:match_id>/replay.json", match.match_replay, name="match-replay"),
    path("matches/<int:match_id>/replay/", board.match_replay_page, name="match-replay-page"),
    path("matches/<int:match_id>/poll/", board.match_poll, name="match-poll"),
    path("matches/<int:match_id>/history/", board.match_history, name="match-history"),
    path("matches/<int:match_id>/hints/", board.match_hints, name="match-hints"),
    path(
        "matches/<int:match_id>/turns/<int:number>/movie/",
        board.match_turn_movie,
        name="match-turn-movie",
    ),
    path("settings/notifications/", accounts.notification_settings, name="notification-settings"),
    path("settings/tokens/", tokens.token_list, name="tokens"),
    path(
        "settings/tokens/<int:token_id>/revoke/",
        tokens.token_revoke_view,
        name="token-revoke",
    ),
    path("archive/", archive.archive_list, name="archive"),
    path("watch/", lobby.watch, name="watch"),
    path("bots/", lobby.bots, name="bots"),
    path("players/<str:username>/", archive.player_detail, name="player"),
    path("unsubscribe/<str:token>/", accounts.unsubscribe, name="unsubscribe"),
]
