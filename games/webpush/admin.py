from django.contrib import admin

from games.webpush.models import PushNotice, PushSubscription, VapidKey


@admin.register(VapidKey)
class VapidKeyAdmin(admin.ModelAdmin):
    list_display = ["public_key", "created_at"]
    # The private key is a secret of the site: shown to nobody, not even staff.
    exclude = ["private_pem"]
    readonly_fields = ["public_key", "created_at"]

    def has_add_permission(self, request: object) -> bool:
        return False  # made on first use or by `manage.py webpush_vapid_rotate`


@admin.register(PushSubscription)
class PushSubscriptionAdmin(admin.ModelAdmin):
    list_display = ["user", "endpoint", "created_at", "last_success_at", "failures"]
    search_fields = ["user__username"]
    raw_id_fields = ["user"]
    readonly_fields = ["endpoint", "p256dh", "auth", "vapid_key", "created_at"]


@admin.register(PushNotice)
class PushNoticeAdmin(admin.ModelAdmin):
    list_display = ["user", "match", "turn_number", "status", "send_after", "sent_at"]
    list_filter = ["status"]
    raw_id_fields = ["user", "match"]
