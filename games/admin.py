"""Staff tools: matches with filters, inline seats and turns, a read-only view of
the full state, and the actions (pause, resume, pass now, replace a seat with a
bot, abort). The actions call services, and the services record every one of
them as an AdminAction row."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html

import engine
from games import presentation, services, words
from games.errors import ServiceError
from games.models import (
    SEATS_MAX,
    AdminAction,
    ApiToken,
    Match,
    Notification,
    NotificationSettings,
    Orders,
    Resolution,
    Seat,
    Turn,
)
from games.services.tokens import tokens_revoke_by_staff

# The admin's board: as wide as the match page's at most, never wider than the page.
BOARD_STYLE = "width:640px;max-width:100%"
JSON_LINE = 100


def compact_json(value: Any, indent: int = 0) -> str:
    """JSON a person can read and scroll: two-space indents, keys sorted, but a list
    of numbers (a helium row), a record of plain values (a robot) or anything short
    stays on one line."""
    flat = json.dumps(value, sort_keys=True)
    if not isinstance(value, (dict, list)) or not value:
        return flat
    items = value.values() if isinstance(value, dict) else value
    plain = all(not isinstance(v, (dict, list)) for v in items)
    if plain or len(flat) + indent <= JSON_LINE:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        lines = [
            f"{pad}{json.dumps(k)}: {compact_json(value[k], indent + 2)}" for k in sorted(value)
        ]
        return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"
    lines = [pad + compact_json(v, indent + 2) for v in value]
    return "[\n" + ",\n".join(lines) + "\n" + " " * indent + "]"


def _staff(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


class StaleTurnFilter(admin.SimpleListFilter):
    title = "stale turns"
    parameter_name = "stale"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            ("overdue", "Deadline passed, not passed yet"),
            ("unresolved", "Orders accepted, not resolved"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        now = timezone.now()
        if self.value() == "overdue":
            stale = Turn.objects.filter(
                match=OuterRef("pk"), status=Turn.Status.WAITING, deadline_at__lt=now
            )
        elif self.value() == "unresolved":
            stale = Turn.objects.filter(
                match=OuterRef("pk"),
                status=Turn.Status.ACCEPTED,
                accepted_at__lt=now - timedelta(seconds=settings.RESOLVE_GRACE_SECONDS),
            )
        else:
            return queryset
        return queryset.filter(Exists(stale), ~Q(status__in=["finished", "aborted"]))


class RulesetFilter(admin.SimpleListFilter):
    """Matches of one game: every ruleset the engine has, by the name players see."""

    title = "game"
    parameter_name = "ruleset"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(name, presentation.get(name).title) for name in engine.ruleset_names()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> QuerySet[Match]:
        value = self.value()
        return queryset.filter(ruleset=value) if value else queryset


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    fields = ("number", "player", "user", "missed_in_row", "joined_at")
    readonly_fields = fields

    @admin.display(description="Player")
    def player(self, obj: Seat) -> str:
        """As the site names it: "alice", "bot fighter", "alice (played by bot miner)"."""
        return obj.label

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# The turns a match's page shows: its latest, folded away (a long match has
# hundreds, and listed in full they made the page 6,000 px tall).
TURNS_SHOWN = 20


class TurnInline(admin.TabularInline):
    model = Turn
    extra = 0
    can_delete = False
    ordering = ("-number",)
    classes = ("collapse",)
    verbose_name_plural = f"Turns (the latest {TURNS_SHOWN})"
    fields = (
        "number",
        "seat",
        "status",
        "started_at",
        "deadline_at",
        "paused_remaining",
        "warned_at",
        "accepted_at",
        "resolved_at",
        "missed",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Turn]:
        turns = super().get_queryset(request)
        match_id = str(
            request.resolver_match.kwargs.get("object_id", "") if request.resolver_match else ""
        )
        if not match_id.isdigit():
            return turns
        latest = (
            Match.objects.filter(pk=int(match_id)).values_list("turn_number", flat=True).first()
        )
        if latest is None:
            return turns
        # A filter, not a slice: the formset filters the rows by their match after this.
        return turns.filter(number__gt=latest - TURNS_SHOWN)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _seat_words(match: Match, numbers: list[int]) -> str:
    """Seats as the site names them: "seat 4 (alice), seat 2 (bot miner)"."""
    labels = {s.number: s.label for s in match.seats.select_related("user")}
    return ", ".join(f"seat {n} ({labels[n]})" if n in labels else f"seat {n}" for n in numbers)


class MatchActionForm(ActionForm):
    seat = forms.IntegerField(required=False, min_value=1, max_value=SEATS_MAX, label="Seat")
    bot = forms.CharField(required=False, label="Bot", initial="random", max_length=32)


def _run(modeladmin: MatchAdmin, request: HttpRequest, queryset: QuerySet[Match], fn: Any) -> None:
    done = 0
    for match in queryset:
        try:
            fn(match)
        except ServiceError as error:
            modeladmin.message_user(request, f"Match {match.pk}: {error.message}", messages.ERROR)
        else:
            done += 1
    if done:
        modeladmin.message_user(request, f"Done for {done} match(es).", messages.SUCCESS)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "title",
        "ruleset",
        "status",
        "seat_count",
        "turn_number",
        "to_move",
        "turn_time",
        "created_at",
        "finished_at",
    )
    list_filter = ("status", RulesetFilter, "seat_count", StaleTurnFilter)
    search_fields = ("id", "title", "seats__user__username", "seats__user__email")
    inlines = [SeatInline, TurnInline]
    action_form = MatchActionForm
    actions = ["pause", "resume", "pass_current_turn", "replace_seat_with_bot", "abort"]
    readonly_fields = (
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
        "status",
        "seat_count",
        "turn_time",
        "length",
        "ruleset",
        "seed",
        "turn_number",
        "to_move",
        "winners_named",
        "scores",
        "board",
        "full_state",
    )
    # The numbers behind the words above, and the JSON the state is shown as below.
    exclude = (
        "state",
        "initial_state",
        "record",
        "turn_seconds",
        "length_ms",
        "winners",
        "final_money",
    )

    @admin.display(description="Time per turn", ordering="turn_seconds")
    def turn_time(self, obj: Match) -> str:
        return words.seconds_words(obj.turn_seconds)

    @admin.display(description="Battle length")
    def length(self, obj: Match) -> str:
        return words.ms_words(obj.length_ms)

    @admin.display(description="Winners")
    def winners_named(self, obj: Match) -> str:
        if obj.status != Match.Status.FINISHED:
            return "—"
        return _seat_words(obj, [int(n) for n in obj.winners or []]) or "nobody"

    @admin.display(description="Final scores")
    def scores(self, obj: Match) -> str:
        if not isinstance(obj.final_money, dict) or not obj.final_money:
            return "—"
        labels = {s.number: s.label for s in obj.seats.select_related("user")}
        return "; ".join(
            f"seat {n} ({labels.get(int(n), '?')}): {words.number(v)}"
            for n, v in sorted(obj.final_money.items(), key=lambda kv: int(kv[0]))
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # matches are made in the lobby

    @admin.display(description="Board (full state)")
    def board(self, obj: Match) -> str:
        if not obj.state:
            return "—"
        # Staff see everything, shields included: the full state has the view's shape,
        # drawn as nobody's seat. The SVG has only a viewBox: the box gives it a width.
        svg = presentation.get(obj.ruleset).board(
            {**obj.state, "viewer": None}, caption=f"Match {obj.pk}, full state"
        )
        return format_html('<div class="admin-board" style="{}">{}</div>', BOARD_STYLE, svg)

    @admin.display(description="Full state (JSON)")
    def full_state(self, obj: Match) -> str:
        if not obj.state:
            return "—"
        return format_html(
            '<pre class="state-json" style="max-height:32em;overflow:auto;margin:0">{}</pre>',
            compact_json(obj.state),
        )

    @admin.action(description="Pause (keep the remaining deadline time)")
    def pause(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        _run(
            self,
            request,
            queryset,
            lambda m: services.match_pause(match_id=m.pk, admin=_staff(request)),
        )

    @admin.action(description="Resume")
    def resume(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        _run(
            self,
            request,
            queryset,
            lambda m: services.match_resume(match_id=m.pk, admin=_staff(request)),
        )

    @admin.action(description="Resolve the current turn now as a pass")
    def pass_current_turn(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        _run(
            self,
            request,
            queryset,
            lambda m: services.turn_pass_now(match_id=m.pk, admin=_staff(request)),
        )

    @admin.action(description="Replace the seat given below with the bot given below")
    def replace_seat_with_bot(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        seat = request.POST.get("seat", "")
        bot = request.POST.get("bot", "").strip() or "random"
        if not seat.isdigit():
            self.message_user(request, "Give the seat number to replace.", messages.ERROR)
            return
        _run(
            self,
            request,
            queryset,
            lambda m: services.seat_replace_with_bot(
                match_id=m.pk, seat_number=int(seat), bot=bot, admin=_staff(request)
            ),
        )

    @admin.action(description="Abort")
    def abort(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        _run(
            self,
            request,
            queryset,
            lambda m: services.match_abort(match_id=m.pk, admin=_staff(request)),
        )


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(AdminAction)
class AdminActionAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "admin", "match", "action", "details")
    list_filter = ("action",)


@admin.register(Orders)
class OrdersAdmin(ReadOnlyAdmin):
    list_display = ("match", "turn_number", "seat", "source", "submitted_by", "created_at")
    list_filter = ("source",)


@admin.register(Resolution)
class ResolutionAdmin(ReadOnlyAdmin):
    list_display = ("match", "turn_number", "seat", "turn_length", "created_at")

    @admin.display(description="Turn length", ordering="turn_ms")
    def turn_length(self, obj: Resolution) -> str:
        return words.ms_words(obj.turn_ms)


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    list_display = (
        "created_at",
        "send_after",
        "user",
        "match",
        "kind",
        "turn_number",
        "status",
        "sent_at",
    )
    list_filter = ("kind", "status")


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """Bots' keys: who holds which, when each was last used, and a revoke for a
    leaked one. Only the digest is stored, so nothing here can show a token; users
    create theirs on their settings page (or `manage.py issue_token`)."""

    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("name", "prefix", "user__username")
    exclude = ("digest",)
    actions = ("revoke",)

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        count = tokens_revoke_by_staff(token_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"Revoked {count} token(s).", messages.SUCCESS)


@admin.register(NotificationSettings)
class NotificationSettingsAdmin(admin.ModelAdmin):
    list_display = (
        "user",
        "your_turn",
        "deadline_warning",
        "seat_to_bot",
        "match_started",
        "match_over",
    )
