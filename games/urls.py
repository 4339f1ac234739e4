from django.urls import path

from games import views, views_archive, views_board, views_home, views_tokens
from games.guests.views import guest_signup

app_name = "games"

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("healthz", views.healthz, name="healthz"),
    path("rules/", views_home.rules, name="rules"),
    path("games/", views_home.games_index, name="games"),
    path("games/<str:name>/", views_home.rules, name="game-rules"),
    path("games/<str:name>/rules/", views_home.rules_moved, name="game-rules-moved"),
    path("guest/signup/", guest_signup, name="guest-signup"),
    path("matches/new/", views.match_create, name="match-create"),
    path("matches/play-now/", views.match_play_now, name="match-play-now"),
    path("matches/<int:match_id>/", views.match_detail, name="match-detail"),
    path("matches/<int:match_id>/orders/", views.match_orders, name="match-orders"),
    path("matches/<int:match_id>/join/", views.match_join, name="match-join"),
    path("matches/<int:match_id>/leave/", views.match_leave, name="match-leave"),
    path("matches/<int:match_id>/reclaim/", views.match_reclaim, name="match-reclaim"),
    path("matches/<int:match_id>/rematch/", views.match_rematch, name="match-rematch"),
    path("matches/<int:match_id>/replay.json", views.match_replay, name="match-replay"),
    path("matches/<int:match_id>/replay/", views_board.match_replay_page, name="match-replay-page"),
    path("matches/<int:match_id>/poll/", views_board.match_poll, name="match-poll"),
    path("matches/<int:match_id>/history/", views_board.match_history, name="match-history"),
    path("matches/<int:match_id>/hints/", views_board.match_hints, name="match-hints"),
    path(
        "matches/<int:match_id>/turns/<int:number>/movie/",
        views_board.match_turn_movie,
        name="match-turn-movie",
    ),
    path("settings/notifications/", views.notification_settings, name="notification-settings"),
    path("settings/tokens/", views_tokens.token_list, name="tokens"),
    path(
        "settings/tokens/<int:token_id>/revoke/",
        views_tokens.token_revoke_view,
        name="token-revoke",
    ),
    path("archive/", views_archive.archive_list, name="archive"),
    path("watch/", views.watch, name="watch"),
    path("bots/", views.bots, name="bots"),
    path("players/<str:username>/", views_archive.player_detail, name="player"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
