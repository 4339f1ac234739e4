from django.urls import path

from games.webpush import views

app_name = "webpush"

urlpatterns = [
    # At the root, so the worker's scope may be the whole site.
    path("push-sw.js", views.service_worker, name="service-worker"),
    path("settings/push/subscribe", views.subscribe, name="subscribe"),
    path("settings/push/unsubscribe", views.unsubscribe, name="unsubscribe"),
]
