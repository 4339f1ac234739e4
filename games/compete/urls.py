from django.urls import path

from games.compete import challenge_views, views

app_name = "compete"

urlpatterns = [
    path("games/<str:game>/leaderboard/", views.leaderboard, name="leaderboard"),
    # "bot:" is never part of a username, so this cannot hide a person's page.
    path("players/bot:<str:name>/", views.bot_profile, name="bot"),
    path("challenges/", challenge_views.challenge_list, name="challenges"),
    path("challenges/new/", challenge_views.challenge_new, name="challenge-new"),
    path(
        "challenges/<int:challenge_id>/accept/",
        challenge_views.challenge_accept,
        name="challenge-accept",
    ),
    path(
        "challenges/<int:challenge_id>/decline/",
        challenge_views.challenge_decline,
        name="challenge-decline",
    ),
    path(
        "challenges/<int:challenge_id>/cancel/",
        challenge_views.challenge_cancel,
        name="challenge-cancel",
    ),
    path("invite/<str:token>/", challenge_views.invitation, name="invitation"),
]
