from django.contrib import admin

from games.ladder.models import LadderEntry, LadderGame, LadderMatch, LadderSlot


@admin.register(LadderEntry)
class LadderEntryAdmin(admin.ModelAdmin):
    list_display = ["user", "game", "on", "joined_at", "settled", "removed_at", "told_at"]
    list_filter = ["game", "on", "settled"]
    search_fields = ["user__username"]
    raw_id_fields = ["user"]


@admin.register(LadderMatch)
class LadderMatchAdmin(admin.ModelAdmin):
    list_display = ["match", "game", "round", "index", "created_at"]
    list_filter = ["game"]
    raw_id_fields = ["match"]


@admin.register(LadderGame)
class LadderGameAdmin(admin.ModelAdmin):
    list_display = ["game", "round", "claimed_at"]


@admin.register(LadderSlot)
class LadderSlotAdmin(admin.ModelAdmin):
    list_display = ["game", "player", "number", "match"]
    list_filter = ["game"]
    raw_id_fields = ["match"]
