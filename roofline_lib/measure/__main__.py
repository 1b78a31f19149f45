"""``python -m roofline_lib.measure``: measure this machine's roofline and print it.

Prints the machine, the measured peaks, the triad bandwidth, the critical intensity and the
sweep as a table, with a progress bar on stderr. ``--json FILE`` saves the result,
``--plot FILE.png`` draws prediction against measurement (or, for a run that fails its own
checks, :mod:`.validity`, what it measured without a roof).
"""

from __future__ import annotations

import argparse
import sys

from .backends import BACKENDS, BackendUnavailableError


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m roofline_lib.measure",
        description="Measure this machine's roofline: peak FLOP/s, STREAM triad bandwidth and a "
        "matmul sweep over batch sizes, with the roofline's prediction for each.",
    )
    p.add_argument("--backend", choices=BACKENDS, default="auto", help="default: auto")
    p.add_argument(
        "--budget", type=float, default=20.0, metavar="SECONDS", help="time budget (default 20)"
    )
    p.add_argument("--json", metavar="FILE", help="save the result as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="draw prediction against measurement")
    p.add_argument("--dtype", help="the sweep's dtype (default: fp32 on a CPU, bf16 on a GPU)")
    p.add_argument(
        "--dim",
        type=int,
        dest="D",
        metavar="D",
        help="the sweep's D = F, X[B, D]·Y[D, D] (default 4096 on a CPU, 8192 on a GPU)",
    )
    p.add_argument("--device", help="torch device: cuda, cuda:N or cpu")
    p.add_argument("--threads", type=int, help="cap on CPU compute threads")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from .report import format_report
    from .run import measure

    try:
        result = measure(
            backend=args.backend,
            budget_s=args.budget,
            progress=not args.no_progress,
            dtype=args.dtype,
            D=args.D,
            device=args.device,
            threads=args.threads,
        )
    except (ValueError, BackendUnavailableError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(format_report(result))
    if args.json:
        result.to_json(args.json)
        print(f"saved {args.json}")
    if args.plot:
        from matplotlib.figure import Figure

        from .plot import plot_measured_roofline, plot_measurements

        fig = Figure(figsize=(7.5, 4.8), layout="constrained")
        # a run that is not a roofline (result.validity) is drawn without its roof
        draw = plot_measured_roofline if result.validity.trustworthy else plot_measurements
        draw(result, ax=fig.add_subplot())
        fig.savefig(args.plot, dpi=150)
        print(f"saved {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
