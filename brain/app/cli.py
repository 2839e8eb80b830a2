"""The ``cozmo-brain`` command line.

One parser for the whole user-facing contract; each subcommand's work lives in its own
module and is imported only when that subcommand runs, so ``cozmo-brain sim`` does not pay
for loading the brain, and a broken optional module cannot stop the others.

Exit codes: 0 success, 1 validation or runtime error (with a clear message), 2 usage error.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Callable, Sequence

from .logs import setup_logging

log = logging.getLogger("cozmo_brain")

#: subcommand -> "module:function"; the function takes the parsed namespace and returns an exit code.
HANDLERS: dict[str, str] = {
    "run": "brain.app.run:run_command",
    "sim": "driver.sim.serve:sim_command",
    "check": "brain.app.check:check_command",
    "tree": "brain.app.tree:tree_command",
    "anim": "brain.app.anim:anim_command",
    "simulate": "brain.app.simulate:simulate_command",
    "service": "brain.app.service:service_command",
    "capture": "brain.app.capture:capture_command",
}


PERSONALITY_HELP = "personality file, or name such as playful (default: the one in the settings)"


def _add_common(p: argparse.ArgumentParser, *, top: bool = False) -> None:
    """-v, -q and --config, accepted before the subcommand (``top``) and after it.

    The two places write to different names (``top_*``), merged by :func:`_merge_common`:
    argparse would otherwise let the subcommand's defaults overwrite what was given before it.
    """
    prefix = "top_" if top else ""
    p.add_argument("-v", "--verbose", dest=prefix + "verbose", action="count", default=0,
                   help="more detail: -v a log line per heartbeat beat, -vv debug output of every part")
    p.add_argument("-q", "--quiet", dest=prefix + "quiet", action="store_true", help="warnings and errors only")
    p.add_argument("--config", dest=prefix + "config", metavar="FILE",
                   help="settings file (default: the first of $XDG_CONFIG_HOME/cozmo-brain/config.yaml, "
                        "/etc/cozmo-brain/config.yaml, ./config.yaml, the packaged defaults)")


def _merge_common(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Fold the options given before the subcommand into those given after it."""
    args.verbose = int(getattr(args, "verbose", 0) or 0) + args.top_verbose
    args.quiet = bool(getattr(args, "quiet", False) or args.top_quiet)
    top_config, config = args.top_config, getattr(args, "config", None)
    if top_config and config and top_config != config:
        parser.error("--config given twice with different files")
    args.config = config or top_config
    if args.verbose and args.quiet:
        parser.error("-v and -q contradict each other")


def version() -> str:
    """The installed package's version (the source tree's when not installed)."""
    from brain import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser for every subcommand of the contract."""
    parser = argparse.ArgumentParser(
        prog="cozmo-brain",
        description="A personality runtime for the Cozmo robot.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    _add_common(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("run", help="run the personality against a robot or the simulator")
    _add_common(p)
    target = p.add_mutually_exclusive_group()
    target.add_argument("--sim", action="store_true", help="start the simulated Cozmo in-process and use it")
    target.add_argument("--robot", metavar="HOST[:PORT]", help="connect to a real robot (default 172.31.1.1:5551)")
    p.add_argument("--personality", metavar="FILE|NAME", help=PERSONALITY_HELP)
    p.add_argument("--resources", metavar="DIR", action="append", help="resource root, searched in order; repeatable")
    p.add_argument("--duration", metavar="S", type=float, help="stop cleanly after S seconds")
    p.add_argument("--dashboard", metavar="HOST:PORT", help="serve the dashboard here")
    p.add_argument("--no-vision", dest="vision", action="store_false",
                   help="leave the camera off (no faces, no motion); config.yaml's vision: section otherwise")
    p.add_argument("--seed", type=int, metavar="N",
                   help="random seed of the personality's and the animations' choices (default: random); "
                        "the robot and the clock still differ from run to run")
    p.add_argument("--sim-script", metavar="FILE", help="with --sim: a YAML timeline of scripted events")
    p.add_argument("--audio", action="store_true",
                   help="with --sim: play the robot's speaker output on this computer (needs the 'audio' extra)")
    p.add_argument("--record", metavar="FILE",
                   help="write every datagram both ways to FILE (rotated: FILE.1, ...); read it with capture show")

    p = sub.add_parser("sim", help="the simulated Cozmo alone, speaking the robot's UDP protocol")
    _add_common(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=5551, help="UDP port (default 5551)")
    p.add_argument("--loss", type=float, default=0.0, metavar="P", help="drop this fraction of datagrams each way")
    p.add_argument("--duplicate", type=float, default=0.0, metavar="P", help="duplicate this fraction of datagrams")
    p.add_argument("--reorder", type=float, default=0.0, metavar="P", help="delay this fraction to reorder them")
    p.add_argument("--latency", type=float, default=0.0, metavar="MS", help="one-way latency in milliseconds")
    p.add_argument("--script", metavar="FILE", help="a YAML timeline of scripted events")
    p.add_argument("--audio", action="store_true",
                   help="play the robot's speaker output on this computer (needs the 'audio' extra)")
    p.add_argument("--duration", type=float, metavar="S", help="stop after S seconds")

    p = sub.add_parser("check", help="validate resources and a personality; exit 1 on errors")
    _add_common(p)
    p.add_argument("--personality", metavar="FILE|NAME", help="personality file or name to validate")
    p.add_argument("--resources", metavar="DIR", action="append", help="resource root, searched in order; repeatable")

    p = sub.add_parser("tree", help="show a personality's behaviour tree")
    _add_common(p)
    p.add_argument("--personality", metavar="FILE|NAME", help=PERSONALITY_HELP)
    p.add_argument("--resources", metavar="DIR", action="append", help="resource root; repeatable")
    p.add_argument("--format", choices=("ascii", "dot", "svg"), default="ascii")
    p.add_argument("--out", metavar="FILE", help="write here instead of standard output")

    p = sub.add_parser("anim", help="list, show, convert and render animation clips")
    _add_common(p)
    p.add_argument("--resources", metavar="DIR", action="append", help="resource root; repeatable")
    asub = p.add_subparsers(dest="anim_command", metavar="ACTION")
    asub.required = True
    asub.add_parser("list", help="list the clips of the resource set")
    a = asub.add_parser("show", help="describe one clip")
    a.add_argument("name")
    a = asub.add_parser("convert", help="convert a clip file between .bin, .json and the text format")
    a.add_argument("input", metavar="IN")
    a.add_argument("output", metavar="OUT")
    a = asub.add_parser("render", help="render a clip to an animated GIF and a PNG plot of its tracks")
    a.add_argument("name", help="clip name or clip file")
    a.add_argument("--out", required=True, metavar="FILE", help="GIF path; the plot goes beside it as .png")

    p = sub.add_parser("simulate", help="run a personality offline, faster than real time")
    _add_common(p)
    p.add_argument("--hours", type=float, required=True, metavar="H", help="simulated hours to run")
    p.add_argument("--personality", metavar="FILE|NAME", help=PERSONALITY_HELP)
    p.add_argument("--resources", metavar="DIR", action="append", help="resource root, searched in order; repeatable")
    p.add_argument("--report", metavar="FILE", help="write the report here (.json or .md)")
    p.add_argument("--script", metavar="FILE", help="a YAML timeline of scripted events (as for `sim --script`)")
    p.add_argument("--seed", type=int, metavar="N",
                   help="random seed; the same seed replays the same run (default: random, reported)")
    p.add_argument("--seeds", metavar="A-B",
                   help="several days, one per seed (1-8, or 1,4,9), reported each and by the worst of them")
    p.add_argument("--jobs", type=int, metavar="N",
                   help="with --seeds: days run at once in separate processes (default: the number of CPUs)")
    p.add_argument("--start", metavar="HH:MM",
                   help="the simulated local time of day at the start (default 09:00); quiet hours follow it")
    eyes = p.add_mutually_exclusive_group()
    eyes.add_argument("--pixels", action="store_true",
                      help="render, encode and detect every camera picture (slow); by default the simulator "
                           "hands the vision what its camera would see from the room's geometry")
    eyes.add_argument("--no-vision", action="store_true", help="leave the robot blind (no faces, no motion)")
    p.add_argument("--table", metavar="WxD",
                   help="the table the robot stands on, in mm; its edges are cliffs (default 900x600; none: an "
                        "endless floor)")

    p = sub.add_parser("service", help="run as a systemd service")
    ssub = p.add_subparsers(dest="service_command", metavar="ACTION")
    ssub.required = True
    u = ssub.add_parser("print-unit", help="write a systemd unit file for this installation to standard output")
    _add_common(u)
    u.add_argument("--user", metavar="USER", help="run as this user (default: a dynamic user of its own)")
    u.add_argument("--robot", metavar="HOST[:PORT]", help="the robot's address (default: the config's)")

    p = sub.add_parser("capture", help="read captures of the robot's traffic (recordings, logs, pcap)")
    _add_common(p)
    csub = p.add_subparsers(dest="capture_command", metavar="ACTION")
    csub.required = True
    c = csub.add_parser("show", help="one line per message: time, direction, name, decoded fields")
    c.add_argument("files", nargs="+", metavar="FILE", help="capture file(s), read one after another")
    c.add_argument("--only", nargs="+", metavar="NAME", help="only these messages (names or 0xNN ids)")
    c.add_argument("--stats", action="store_true", help="counts per message, rates, gaps and malformed packets")
    c.add_argument("--json", action="store_true", help="JSON: one object per message, or the statistics")
    c.add_argument("--port", type=int, default=5551, help="the robot's UDP port in pcap files (default 5551)")
    c.add_argument("--frames", metavar="DIR", help="write the robot's camera frames here as PNG files instead")
    return parser


def _resolve(spec: str) -> Callable[[argparse.Namespace], int]:
    module_name, func_name = spec.split(":")
    module = importlib.import_module(module_name)
    return getattr(module, func_name)


def parse_command_line(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line as the subcommands read it (options given before the subcommand folded
    into its own); exits with a usage message when it is wrong."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _merge_common(parser, args)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    args = parse_command_line(argv)
    setup_logging(args.verbose, args.quiet)
    handler = _resolve(HANDLERS[args.command])
    if args.command == "run":
        # Process-wide, so set here and not by the library: the animation frame thread must not
        # wait the interpreter's default 5 ms for its turn while the event loop is busy.
        from driver.link import tune_thread_switching

        tune_thread_switching()
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        log.info("interrupted")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
