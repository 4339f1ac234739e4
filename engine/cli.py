"""`python -m engine ...`: the engine on the command line, JSON in and JSON out.

Every error is a protocol error object on standard output with exit code 1 (2 for
an option the ruleset does not take, or a value out of its range); nothing here
prints a traceback. `export-hlt` and `import-hlt` convert Halite replays to and from
the 2016 format, `import-skyportmap` prints a 2013 Skyport map as JSON; a file that
is not what they read exits 2.

Every command takes `--ruleset NAME` and `--option NAME=VALUE` (repeatable):

- `new`, `play`, `bench`, `tournament`: the game they start, and its options.
- `apply`, `view`, `replay`, `export-hlt`, `import-hlt`: the input (the state, the
  replay, the replay imported) must be of that ruleset and have those option values,
  or the command exits 2 having written nothing. Without them it takes any ruleset
  (read from the state) and prints exactly what it always did.
- `bots`, `import-skyportmap`: the ruleset (`bots`: whose bots; `import-skyportmap`
  reads Skyport maps only) and options checked against it; the output does not
  depend on the options.
- `rulesets`: only the ruleset named, and only the rulesets that take every option
  given (exit 2 if none does).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, NoReturn

import engine
from engine import match, rulesets
from engine.core import OptionError, OptionValue
from engine.errors import EngineError, ShapeError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ShapeError("bad_shape", f"{message[:1].upper()}{message[1:]}.")


def _read_json(text: str | bytes) -> Any:
    try:
        return json.loads(text)  # bytes not valid UTF-8 raise UnicodeDecodeError, a ValueError
    except (ValueError, RecursionError) as exc:
        raise EngineError("bad_json", f"The input is not valid JSON ({exc}).") from None


def _stdin_json() -> Any:
    # Bytes, not text: decoding stdin with a strict codec would crash on garbage input.
    return _read_json(getattr(sys.stdin, "buffer", sys.stdin).read())


def _seat(value: int) -> int | None:
    return None if value == 0 else value


def _out(data: Any) -> None:
    sys.stdout.write(json.dumps(data, separators=(",", ":")) + "\n")


class InputMismatch(ShapeError):
    """The input is not of the ruleset `--ruleset` names, or has another value of an
    option `--option` names: wrong usage, so the command exits 2 as on a bad option."""

    exit_status = 2

    def __init__(self, message: str) -> None:
        super().__init__("bad_shape", message)


def _check_input(args: argparse.Namespace, state: Any, what: str) -> None:
    """`--ruleset` and `--option` of a command reading a state: `state` (the input, or
    a replay's initial state) must be of that ruleset and have those option values.
    Does nothing when neither is given, so the command reads any state as before."""
    if args.ruleset is None and not args.option:
        return
    rules = rulesets.of_state(state)
    if args.ruleset is not None and rules.name != args.ruleset:
        raise InputMismatch(f"{what} is of ruleset {rules.name}, not {args.ruleset}.")
    for name, wanted in rules.parse_options(args.option).items():
        if name not in state:
            raise InputMismatch(f"{what} does not say its {name}, so it cannot be {wanted}.")
        found = state[name]
        if type(found) is not type(wanted) or found != wanted:
            raise InputMismatch(f"{what} has {name}={str(found)[:40]}, not {name}={wanted}.")


def _options(args: argparse.Namespace) -> dict[str, OptionValue]:
    """`--option NAME=VALUE ...` (and `--length-ms`, the same as `--option length_ms=`),
    checked against the ruleset's options."""
    given = engine.ruleset(args.ruleset).parse_options(args.option)
    length_ms = getattr(args, "length_ms", None)
    if length_ms is not None:
        if "length_ms" in given:
            raise OptionError("Give the battle length once, with --length-ms or --option.")
        try:
            given["length_ms"] = engine.ruleset(args.ruleset).option("length_ms").check(length_ms)
        except OptionError as error:  # a flag of its own, a usage error as it always was
            raise ShapeError("bad_shape", error.message) from None
    return given


def cmd_new(args: argparse.Namespace) -> None:
    options = _options(args)
    _out(engine.new_game(seed=args.seed, seats=args.seats, ruleset=args.ruleset, options=options))


def _taking(name: str, texts: list[str]) -> bool:
    """Whether ruleset `name` takes every `--option NAME=VALUE` of `texts`."""
    try:
        engine.ruleset(name).parse_options(texts)
    except OptionError:
        return False
    return True


def cmd_rulesets(args: argparse.Namespace) -> None:
    names = engine.ruleset_names() if args.ruleset is None else [args.ruleset]
    if args.ruleset is not None:
        engine.ruleset(args.ruleset).parse_options(args.option)  # its own error on a bad one
    elif args.option:
        names = [name for name in names if _taking(name, args.option)]
        if not names:
            raise OptionError(f"No ruleset takes {' '.join(args.option)[:80]}.")
    described = [engine.ruleset(name).describe() for name in names]
    if args.json:
        _out(described)
        return
    for rules in described:
        counts = ", ".join(str(n) for n in rules["seats"])
        ruleset = engine.ruleset(rules["name"])
        options = "; ".join(o.describe() for o in ruleset.options) or "none"
        sys.stdout.write(
            f"{rules['name']}: {rules['title']}; seats {counts} (default {rules['default_seats']});"
            f" {ruleset.shape.describe()}; bots {', '.join(rules['bots'])}; options: {options}\n"
        )


def cmd_apply(args: argparse.Namespace) -> None:
    data = _stdin_json()
    if not isinstance(data, dict) or "state" not in data or "orders" not in data:
        raise ShapeError("bad_shape", 'Give {"state": ..., "orders": ...} on standard input.')
    _check_input(args, data["state"], "The state")
    applied = engine.apply(data["state"], data["orders"])
    if args.as_seat is None:
        _out({"state": applied.state, "events": applied.events})
        return
    seat = _seat(args.as_seat)
    over = bool(applied.state["over"])
    ruleset = applied.state["ruleset"]
    _out(
        {
            "state": engine.view(applied.state, seat),
            "events": engine.events_view(applied.events, seat, over=over, ruleset=ruleset),
        }
    )


def cmd_view(args: argparse.Namespace) -> None:
    state = _stdin_json()
    _check_input(args, state, "The state")
    _out(engine.view(state, _seat(args.seat)))


def cmd_bots(args: argparse.Namespace) -> None:
    _options(args)  # checked: the bots play a game of any options
    sys.stdout.write("".join(f"{name}\n" for name in engine.bot_names(args.ruleset)))


def cmd_play(args: argparse.Namespace) -> None:
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    seats = engine.ruleset(args.ruleset).seats
    if len(bots) not in seats:
        counts = f"{seats[0]} to {seats[-1]}" if len(seats) > 1 else str(seats[0])
        raise ShapeError("bad_shape", f"Name {counts} bots, one per seat, separated by commas.")
    options = _options(args)
    record = match.play_match(args.seed, bots, ruleset=args.ruleset, options=options)
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as fh:
                json.dump(record, fh, separators=(",", ":"))
        except OSError as exc:
            raise ShapeError("bad_shape", f"Cannot write {args.out}: {exc.strerror}.") from None
    _out(match.summary(record))


def cmd_replay(args: argparse.Namespace) -> None:
    try:
        with open(args.file, "rb") as fh:
            text = fh.read()
    except OSError as exc:
        raise ShapeError("bad_shape", f"Cannot read {args.file}: {exc.strerror}.") from None
    record = _read_json(text)
    if isinstance(record, dict):  # anything else is replay_check's error, as before
        _check_input(args, record.get("initial"), "The replay")
    _out(match.replay_check(record))


def _read_hlt_input(path: str) -> bytes:
    from engine.halite import hlt

    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise hlt.HltError(f"Cannot read {path}: {exc.strerror}.") from None


def cmd_export_hlt(args: argparse.Namespace) -> None:
    from engine.halite import hlt

    text = _read_hlt_input(args.file)
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise hlt.HltError(f"The replay is not valid JSON ({exc}).", "bad_json") from None
    if isinstance(record, dict):  # anything else is hlt.export's error, as before
        _check_input(args, record.get("initial"), "The replay")
    names = None if args.names is None else [n.strip() for n in args.names.split(",")]
    sys.stdout.write(hlt.export(record, names).dumps() + "\n")


def cmd_import_hlt(args: argparse.Namespace) -> None:
    from engine.halite import hlt

    record = hlt.to_record(hlt.loads(_read_hlt_input(args.file)))
    _check_input(args, record["initial"], "The imported replay")
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as fh:
                json.dump(record, fh, separators=(",", ":"))
        except OSError as exc:
            raise ShapeError("bad_shape", f"Cannot write {args.out}: {exc.strerror}.") from None
        _out(match.summary(record))
        return
    _out(record)


def cmd_import_skyportmap(args: argparse.Namespace) -> None:
    from engine.skyport.mapgen import MapError, read_skyportmap

    _options(args)  # checked against Skyport's: a map is the same whatever the options
    try:
        with open(args.file, "rb") as fh:
            text = fh.read().decode("utf-8")
    except OSError as exc:
        raise MapError(f"Cannot read {args.file}: {exc.strerror}.") from None
    except UnicodeDecodeError:
        raise MapError("The map is not UTF-8 text.") from None
    _out(read_skyportmap(text).to_json())


def cmd_tournament(args: argparse.Namespace) -> None:
    # Imported here: it loads Helium 3 and its bots, which the other commands (a
    # process each) do not all need.
    from engine import tournament

    if args.matches < 1:
        raise ShapeError("bad_shape", "Play at least one match (--matches 1 or more).")
    best = args.best or tournament.default_best(args.ruleset)
    rival = args.rival or tournament.default_rival(args.ruleset)
    match.check_bots(args.ruleset, [best, rival])
    options = _options(args)
    if args.ruleset == rulesets.DEFAULT and not options and args.seats is None:
        series = tournament.run(args.matches, args.seed_base, best, rival)
    else:
        series = tournament.run_ruleset(
            args.ruleset, args.matches, args.seed_base, best, rival, options, args.seats
        )
    sys.stdout.write(tournament.table(series, args.seed_base))


def cmd_bench(args: argparse.Namespace) -> None:
    from engine import bench  # Helium 3 and its bots, as for the tournament

    if args.runs < 1 or args.matches < 1:
        raise ShapeError("bad_shape", "--runs and --matches must be at least 1.")
    options = _options(args)
    if args.ruleset == rulesets.DEFAULT and not options:
        _out(bench.run(runs=args.runs, matches=args.matches))
    else:
        _out(bench.run_ruleset(args.ruleset, runs=args.runs, matches=args.matches, options=options))


def _game_arguments(
    p: argparse.ArgumentParser,
    *,
    default: str | None = rulesets.DEFAULT,
    choices: list[str] | None = None,
    ruleset_help: str = "the game's ruleset",
    option_help: str = "an option of the ruleset (repeatable; `rulesets` lists them)",
) -> None:
    """--ruleset and --option, which every command takes (each says what they mean)."""
    p.add_argument(
        "--ruleset",
        default=default,
        choices=choices or rulesets.names(),
        help=f"{ruleset_help} (default: {default or 'any'})",
    )
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help=option_help)


def _input_arguments(
    p: argparse.ArgumentParser, what: str, choices: list[str] | None = None
) -> None:
    """--ruleset and --option of a command reading a state or a replay: checks of it."""
    _game_arguments(
        p,
        default=None,
        choices=choices,
        ruleset_help=f"check that {what} is of this ruleset",
        option_help=f"check that {what} has this option value (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description="The Helium 3 rules engine.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("new", help="print a new state")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--seats", type=int, default=None, help="default: the ruleset's usual count")
    p.add_argument("--length-ms", type=int, default=None, help="--option length_ms=")
    _game_arguments(p)
    p.set_defaults(run=cmd_new)
    p = sub.add_parser("apply", help="resolve {state, orders} from standard input")
    p.add_argument(
        "--as", dest="as_seat", type=int, default=None, help="seat's view; 0 = spectator"
    )
    _input_arguments(p, "the state")
    p.set_defaults(run=cmd_apply)
    p = sub.add_parser("view", help="a seat's view of the state on standard input")
    p.add_argument("--seat", type=int, required=True, help="0 = spectator")
    _input_arguments(p, "the state")
    p.set_defaults(run=cmd_view)
    p = sub.add_parser("bots", help="list the built-in bots")
    _game_arguments(
        p,
        ruleset_help="whose bots",
        option_help="checked against the ruleset's options; the bots play any (repeatable)",
    )
    p.set_defaults(run=cmd_bots)
    p = sub.add_parser("play", help="play a whole match between built-in bots")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--bots", required=True, help="comma-separated, one per seat")
    p.add_argument("--length-ms", type=int, default=None, help="--option length_ms=")
    p.add_argument("--out", default=None, help="write the replay file here")
    _game_arguments(p)
    p.set_defaults(run=cmd_play)
    p = sub.add_parser("replay", help="re-resolve a replay file; exit 1 if it differs")
    p.add_argument("file")
    _input_arguments(p, "the replay")
    p.set_defaults(run=cmd_replay)
    p = sub.add_parser("export-hlt", help="a Halite replay as a 2016 replay (.hlt, version 11)")
    p.add_argument("file")
    p.add_argument("--names", default=None, help="players' names, comma-separated, one per seat")
    _input_arguments(p, "the replay", ["halite"])
    p.set_defaults(run=cmd_export_hlt)
    p = sub.add_parser("import-hlt", help="a 2016 Halite replay (.hlt) as our replay file")
    p.add_argument("file")
    p.add_argument("--out", default=None, help="write the replay here; print its summary")
    _input_arguments(p, "the imported replay", ["halite"])
    p.set_defaults(run=cmd_import_hlt)
    p = sub.add_parser("import-skyportmap", help="a Skyport map (.skyportmap) as JSON")
    p.add_argument("file")
    _game_arguments(
        p,
        default="skyport",
        choices=["skyport"],
        ruleset_help="the maps' ruleset",
        option_help="checked against Skyport's options; the map is the same (repeatable)",
    )
    p.set_defaults(run=cmd_import_skyportmap)
    p = sub.add_parser("tournament", help="measure the best bot against random and the miner")
    p.add_argument("--matches", type=int, default=100, help="matches in each series")
    p.add_argument("--seed-base", type=int, default=0, help="the first match's seed")
    p.add_argument("--best", default=None, help="default: the ruleset's last bot listed")
    p.add_argument("--rival", default=None, help="default: the bot listed before it")
    p.add_argument("--seats", type=int, default=None, help="against random bots; default: usual")
    _game_arguments(p)
    p.set_defaults(run=cmd_tournament)
    p = sub.add_parser("bench", help="time turn resolution and whole matches (one JSON object)")
    p.add_argument("--runs", type=int, default=5, help="timed runs; the median is reported")
    p.add_argument("--matches", type=int, default=10, help="recorded random matches")
    _game_arguments(p)
    p.set_defaults(run=cmd_bench)
    p = sub.add_parser("rulesets", help="list the rulesets: seats, turn shape, bots, options")
    p.add_argument("--json", action="store_true", help="one JSON list instead of lines")
    _game_arguments(
        p,
        default=None,
        ruleset_help="list this ruleset only",
        option_help="list only the rulesets taking this option value (repeatable)",
    )
    p.set_defaults(run=cmd_rulesets)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        args.run(args)
    except OptionError as error:
        _out(error.to_json())
        return 2
    except EngineError as error:
        _out(error.to_json())
        # A file that is not what the command reads is wrong usage, as a bad option is.
        return int(getattr(error, "exit_status", 1))
    except (KeyboardInterrupt, BrokenPipeError):
        return 1
    except RecursionError:
        _out(EngineError("bad_json", "The input is nested too deeply.").to_json())
        return 1
    return 0
