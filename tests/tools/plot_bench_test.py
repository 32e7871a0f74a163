#!/usr/bin/env python3
"""tools/plot_bench.py on xd-bench JSON files written by `xd-bench --backend cpu` (data/), and its
usage errors (exit 2). Exits 77 (CTest: skipped) when matplotlib is missing.

    plot_bench_test.py TOOLS/plot_bench.py DATA_DIR
"""
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import matplotlib  # noqa: F401  (only whether it is there)
except ImportError:
    print("skipped: matplotlib is missing (Debian: python3-matplotlib)")
    sys.exit(77)

SCRIPT, DATA = sys.argv[1], sys.argv[2]
MEMORY = os.path.join(DATA, "bench_cpu_memory.json")  # copy, add, softmax, rms_norm at 256x256
MM = os.path.join(DATA, "bench_cpu_mm.json")  # mm f32 at 64x64x64 and 128x128x128


def plot(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class PlotBench(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_memory_rows_give_a_png(self):
        out = self.path("m.png")
        r = plot("-o", out, MEMORY)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        # mm.json has only matmul rows: without a reference they are left out, and stderr says so.
        r = plot("-o", out, MEMORY, MM)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 matmul row(s) left out: no --reference given", r.stderr)

    def test_matmul_rows_against_a_reference_give_an_svg_with_both_panels(self):
        # The vendor's figures for this test only: synthetic, in the CSV torch_reference.py writes.
        ref = self.path("torch.csv")
        with open(ref, "w") as f:
            f.write("backend,op,dtype,size,status,reps,median_ms,min_ms,gbps,gflops,copy_gbps,copy_fraction,"
                    "kernels,mode,speedup\n"
                    "torch,mm,f32,64x64x64,ok,5,1,1,0,0.5,0,0,\"aten::mm, cpu\",,0\n"
                    "torch,mm,f32,128x128x128,ok,5,1,1,0,2.0,0,0,aten::mm,,0\n")
        out = self.path("mm.svg")
        r = plot("-o", out, "--reference", ref, "--title", "cpu", MEMORY, MM)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("left out", r.stderr)
        with open(out) as f:
            svg = f.read()
        self.assertIn("<svg", svg)
        self.assertIn("fraction of vendor BLAS", svg)
        self.assertIn("fraction of copy bandwidth", svg)

    def test_bad_inputs_are_usage_errors(self):
        not_json = self.path("bad.json")
        with open(not_json, "w") as f:
            f.write("backend,op\ncpu,add\n")
        other_json = self.path("other.json")
        with open(other_json, "w") as f:
            f.write('{"cases": []}')
        bad_row = self.path("row.json")
        with open(bad_row, "w") as f:
            f.write('{"devices": [], "results": [{"backend": "cpu"}]}')
        failed_only = self.path("failed.json")
        with open(failed_only, "w") as f:
            f.write('{"devices": [], "results": [{"backend": "cpu", "op": "add", "dtype": "f32", "size": "8", '
                    '"status": "error: no kernel", "gflops": 0, "copy_fraction": 0}]}')
        out = self.path("x.png")
        cases = [
            (["-o", out, not_json], "bad.json: not JSON"),
            (["-o", out, other_json], "not an xd-bench --json file"),
            (["-o", out, bad_row], "results[0] is not an xd-bench row"),
            (["-o", out, self.path("missing.json")], "missing.json: cannot be read"),
            (["-o", out, failed_only], "nothing to plot"),
            (["-o", self.path("x.pdf"), MEMORY], "must be .png or .svg"),
            (["-o", out, "--reference", not_json, MM], "not a bench/torch_reference.py CSV"),
            ([MEMORY], "-o/--output"),
            (["-o", out], "the following arguments are required: json"),
            (["-o", out, "--bogus", MEMORY], "unrecognized arguments: --bogus"),
        ]
        for args, message in cases:
            r = plot(*args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(message, r.stderr, args)
        self.assertFalse(os.path.exists(out), "a failed run wrote a picture")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
