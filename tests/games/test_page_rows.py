"""The page's rows made by hand (games/selectors.py) are the ORM's rows."""

from __future__ import annotations

import pytest
from site_support import drain

from games import selectors, services
from games.models import Resolution


@pytest.mark.django_db(transaction=True)
def test_a_movie_s_rows_are_the_orm_s(player):
    match = services.match_create(creator=player, seat_count=2, bots=["random"], turn_seconds=3600)
    for turn in (0, 2):
        services.orders_submit(match_id=match.pk, user=player, turn=turn, actions=[])
        drain(match, emails=False)
    fields = ("turn_number", "step", "seat", "events", "turn_ms", "state")
    orm = list(
        Resolution.objects.filter(match=match, turn_number__gte=1, turn_number__lte=3)
        .order_by("turn_number", "step")
        .only(*fields)
    )
    mine = selectors.movie_rows(match, 1, 3)
    assert len(orm) == len(mine) >= 2
    for theirs, ours in zip(orm, mine, strict=True):
        assert ours.pk == theirs.pk
        assert isinstance(ours.state, dict) and isinstance(ours.events, list)
        assert {f: getattr(ours, f) for f in fields} == {f: getattr(theirs, f) for f in fields}


def test_fields_out_of_the_model_s_order_are_refused():
    out_of_order = tuple(Resolution._meta.get_field(n) for n in ("id", "turn_ms", "state"))
    with pytest.raises(ValueError, match="order"):
        selectors._from_row(Resolution, (1, 5, "{}"), out_of_order)
