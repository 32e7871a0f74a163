#!/usr/bin/env python3
"""Bars of xd-bench results as fractions of what the machine can do, from one or more
`xd-bench --json` files:

  memory-bound rows  the row's GB/s as a fraction of the device's copy bandwidth measured in the
                     same run (the JSON's copy_fraction)
  matmul rows        (rows with GFLOP/s) the row's GFLOP/s as a fraction of the vendor library's
                     on the same op, dtype and size, read from the CSV bench/torch_reference.py
                     writes (--reference; its backend=torch rows); without a matching reference
                     row a matmul row is left out, and stderr says how many were

One bar per row and input file, grouped by op, dtype and size; one colour per backend (and file,
when several files are given). Failed rows (status other than "ok") are left out.

    tools/plot_bench.py -o bench.png run.json
    tools/plot_bench.py -o mm.svg --reference torch.csv mm.json int4.json

The format follows -o's extension (.png or .svg). Exit status: 0 when the picture was written,
1 when matplotlib is missing or the picture could not be written, 2 on a usage error (a bad
option, an unreadable file or one that is not xd-bench JSON, nothing to plot).
"""
import argparse
import csv
import json
import os
import sys

PROG = "plot_bench.py"


class UsageError(Exception):
    pass


def load_bench(path):
    """The rows of one xd-bench JSON file; UsageError naming the file when it is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise UsageError(f"{path}: cannot be read: {e.strerror}")
    except (ValueError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: not JSON: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list) or not isinstance(
            doc.get("devices"), list):
        raise UsageError(f"{path}: not an xd-bench --json file (no 'results' and 'devices' lists)")
    rows = []
    for i, r in enumerate(doc["results"]):
        try:
            row = {k: str(r[k]) for k in ("backend", "op", "dtype", "size", "status")}
            row["mode"] = str(r.get("mode", ""))
            row["gflops"] = float(r["gflops"])
            row["copy_fraction"] = float(r["copy_fraction"])
        except (KeyError, TypeError, ValueError) as e:
            raise UsageError(f"{path}: results[{i}] is not an xd-bench row ({type(e).__name__}: {e})")
        rows.append(row)
    return rows


def load_reference(path):
    """(op, dtype, size, mode) -> GFLOP/s of the backend=torch rows of torch_reference.py's CSV."""
    ref = {}
    try:
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            missing = {"backend", "op", "dtype", "size", "status", "gflops"} - set(reader.fieldnames or [])
            if missing:
                raise UsageError(f"{path}: not a bench/torch_reference.py CSV (no column {', '.join(sorted(missing))})")
            for r in reader:
                if r["backend"] != "torch" or r["status"] != "ok":
                    continue
                try:
                    gflops = float(r["gflops"])
                except ValueError:
                    raise UsageError(f"{path}: line {reader.line_num}: gflops '{r['gflops']}' is not a number")
                if gflops > 0:
                    ref[(r["op"], r["dtype"], r["size"], r.get("mode") or "")] = gflops
    except OSError as e:
        raise UsageError(f"{path}: cannot be read: {e.strerror}")
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: not a text CSV file: {e}")
    return ref


def bars(files, reference):
    """(memory-bound, matmul, matmul rows without a reference): each a list of
    (label, series, fraction)."""
    memory, matmul, unmatched = [], [], 0
    for path, rows in files:
        stem = os.path.splitext(os.path.basename(path))[0]
        for r in rows:
            if r["status"] != "ok":
                continue
            label = " ".join(x for x in (r["op"], r["mode"], r["dtype"], r["size"]) if x)
            series = r["backend"] if len(files) == 1 else f"{r['backend']} ({stem})"
            if r["gflops"] > 0:
                vendor = reference.get((r["op"], r["dtype"], r["size"], r["mode"]))
                if vendor is None and r["mode"] == "eager":  # torch's single-op rows have no mode
                    vendor = reference.get((r["op"], r["dtype"], r["size"], ""))
                if vendor is None:
                    unmatched += 1
                    continue
                matmul.append((label, series, r["gflops"] / vendor))
            else:
                memory.append((label, series, r["copy_fraction"]))
    return memory, matmul, unmatched


def draw_panel(ax, entries, title):
    labels = list(dict.fromkeys(label for label, _, _ in entries))
    series = list(dict.fromkeys(s for _, s, _ in entries))
    height = 0.8 / len(series)
    for si, s in enumerate(series):
        values = {label: v for label, ss, v in entries if ss == s}
        ys = [li + si * height for li, label in enumerate(labels) if label in values]
        xs = [values[label] for label in labels if label in values]
        ax.barh(ys, xs, height=height, label=s)
    ax.set_yticks([li + height * (len(series) - 1) / 2 for li in range(len(labels))])
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_xlabel(title)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")


def main(argv):
    parser = argparse.ArgumentParser(prog=PROG, description="Bars of xd-bench JSON results as fractions of copy "
                                     "bandwidth (memory-bound rows) and of the vendor BLAS (matmul rows).")
    parser.add_argument("json", nargs="+", help="xd-bench --json files")
    parser.add_argument("-o", "--output", required=True, help="the picture to write: .png or .svg")
    parser.add_argument("--reference", help="bench/torch_reference.py --csv output: the vendor library's GFLOP/s "
                        "for the matmul rows")
    parser.add_argument("--title", default="", help="a title over the picture")
    args = parser.parse_args(argv)  # exits 2 on a bad option
    try:
        ext = os.path.splitext(args.output)[1].lower()
        if ext not in (".png", ".svg"):
            raise UsageError(f"-o {args.output}: the picture must be .png or .svg")
        files = [(p, load_bench(p)) for p in args.json]
        reference = load_reference(args.reference) if args.reference else {}
        memory, matmul, unmatched = bars(files, reference)
        if unmatched:
            why = "no row of --reference matches them" if args.reference else "no --reference given"
            print(f"{PROG}: {unmatched} matmul row(s) left out: {why}", file=sys.stderr)
        if not memory and not matmul:
            raise UsageError("nothing to plot: no successful memory-bound row, and no matmul row with a reference")
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{PROG}: needs matplotlib (Debian: python3-matplotlib)", file=sys.stderr)
        return 1
    panels = [(e, t) for e, t in ((memory, "fraction of copy bandwidth"), (matmul, "fraction of vendor BLAS")) if e]
    rows = [len(set(label for label, _, _ in e)) for e, _ in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 1.2 + 0.3 * sum(rows) + 0.8 * len(panels)), squeeze=False,
                             gridspec_kw={"height_ratios": rows})
    for ax, (entries, title) in zip(axes[:, 0], panels):
        draw_panel(ax, entries, title)
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    try:
        fig.savefig(args.output, format=ext[1:])
    except OSError as e:
        print(f"{PROG}: {args.output}: cannot be written: {e.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
