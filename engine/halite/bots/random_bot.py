"""`random`: every piece of the seat draws a direction uniformly from 0..4 (still, north,
east, south, west); pieces drawn still are left out of the orders (not named = still).

The draws are `rng.randrange(5)` for each piece in row-major order, made in bulk: for
a range below 2**32, `randrange(5)` takes the top 3 bits of the generator's next 32-bit
word and draws again while they read 5 or more, and `getrandbits(32 * m)` gives the
next m words, the first in the lowest bits. So the top byte of each word, shifted right
by 5, with the values 5..7 dropped, is the same sequence of draws; words drawn beyond
the last piece are never used (the generator is the bot's own for this turn)."""

from __future__ import annotations

from itertools import compress
from random import Random

from engine.halite.state import SEAT_CELLS, State

# The top byte of a 32-bit word, as a draw: its 3 high bits; bytes 0xA0 and up (5 to 7)
# are draws `randrange(5)` rejects.
_DRAW = bytes(b >> 5 for b in range(256))
_REJECTED = bytes(range(0xA0, 0x100))


def choose(state: State, seat: int, rng: Random) -> list[list[int]]:
    width = state.width
    owner = state.owner
    mine = list(compress(range(len(owner)), bytes(owner).translate(SEAT_CELLS[seat])))
    draws = _draws(rng, len(mine))
    return [[i % width, i // width, d] for i, d in zip(mine, draws, strict=True) if d]


def _draws(rng: Random, count: int) -> bytes:
    """`count` draws of `rng.randrange(5)`, in order."""
    out = b""
    while len(out) < count:
        # 8 words give 5 draws on average; a few more make a second round rare.
        words = (count - len(out)) * 8 // 5 + 16
        top = rng.getrandbits(32 * words).to_bytes(4 * words, "little")[3::4]
        out += top.translate(_DRAW, _REJECTED)
    return out[:count]
