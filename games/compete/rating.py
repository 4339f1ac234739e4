"""The rating arithmetic is openskill's: Plackett-Luce (Weng-Lin) with the library's
defaults. This module only turns places into its call and its numbers into what
people read; it does no rating maths of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
MU = float(MODEL.mu)  # 25
SIGMA = float(MODEL.sigma)  # 25 / 3
# A rating is provisional (shown with "?", off the leaderboards) while sigma is above this.
PROVISIONAL_SIGMA = 4.0


@dataclass(frozen=True)
class Skill:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def conservative(self) -> float:
        """What leaderboards rank by: mu - 3 sigma (openskill's ordinal)."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA

    @property
    def shown(self) -> int:
        return shown_rating(self.mu)


def shown_rating(mu: float) -> int:
    """The integer people read: 1500 for a new player, 40 points per unit of mu."""
    return round(1500 + 40 * (mu - MU))


def shown_text(mu: float, sigma: float) -> str:
    """ "1523", or "1523?" while provisional."""
    return f"{shown_rating(mu)}{'?' if sigma > PROVISIONAL_SIGMA else ''}"


def rate(skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """Every seat's new skill after one match: `places[i]` is seat i's place (1 best;
    equal places are ties), all seats updated at once."""
    if len(skills) != len(places) or len(skills) < 2:
        raise ValueError("A rated result needs two or more seats, each with a place.")
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [Skill(mu=float(team[0].mu), sigma=float(team[0].sigma)) for team in rated]
