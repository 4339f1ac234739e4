from django.urls import path

from games.ladder import views

app_name = "ladder"

urlpatterns = [
    path("settings/ladder/<str:game>/", views.ladder_switch, name="switch"),
]
