from django.urls import path

from games.compete import views

app_name = "compete"

urlpatterns = [
    path("games/<str:game>/leaderboard/", views.leaderboard, name="leaderboard"),
    # "bot:" is never part of a username, so this cannot hide a person's page.
    path("players/bot:<str:name>/", views.bot_profile, name="bot"),
]
