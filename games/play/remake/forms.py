"""The remake's plain order form: up to five actions, one per vehicle, the `deflect`
action among them (a direction for a shield raised on an earlier turn). It works
without JavaScript; the rows are Helium 3's, drawn in Python."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.remake import orders
from games.play.helium3.forms import ActionsForm


class OrdersForm(ActionsForm):
    """Up to five actions as plain fields, or the protocol's action list as JSON."""

    MAX_ACTIONS: ClassVar[int] = orders.MAX_ACTIONS
    ACTION_TYPES: ClassVar[tuple[str, ...]] = orders.ACTION_TYPES
    DIRECTION_LABEL: ClassVar[str] = "Direction"
    ROBOT_LABEL: ClassVar[str] = "Vehicle"

    def _moving_extra(
        self, i: int, kind: str, direction: str | None, action: dict[str, Any]
    ) -> None:
        """A remake shield takes no direction: its deflect is a later turn's action."""
        if kind == "shield" and direction:
            self.add_error(
                f"direction_{i}",
                "A shield is raised without a direction; set it with a deflect on a later turn.",
            )
