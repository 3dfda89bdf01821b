#!/usr/bin/env python3
"""peer_bench.py --compare reads parlor-sessions-load's table lines as the tool prints them."""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_bench  # noqa: E402

# Two lines of parlor-sessions-load's table (the format of sessions_load.cc's per-count line).
PARLOR_LOG = """\
games  | pgbench UPDATE+INSERT (tps, p50, p99)  | SubmitAction (moves/s, p50, p99)       | ratio
1      |      2512 tps  p50   0.39 ms  p99   0.56 ms |       837 /s   p50   0.80 ms  p99   1.19 ms |  33.2 % |      2540 tps
32     |     11363 tps  p50   2.44 ms  p99   7.33 ms |      3088 /s   p50   7.07 ms  p99  16.95 ms |  26.7 % |     11786 tps
32     | move    |    219      253     86      4   92% |       1.58       0.82       7.3
"""


def peer_result(games, per_second, p99):
    return {"games": games, "moves": {"moves_per_second": per_second, "p99_ms": p99}}


class CompareTest(unittest.TestCase):
    def test_a_parlor_line_is_read_as_moves_per_second_and_p99(self):
        m = peer_bench.PARLOR_LINE.match(PARLOR_LOG.splitlines()[2])
        self.assertIsNotNone(m)
        self.assertEqual((m[1], m[2], m[4]), ("32", "3088", "16.95"))

    def test_the_per_unit_table_is_not_taken_for_a_run(self):
        self.assertIsNone(peer_bench.PARLOR_LINE.match(PARLOR_LOG.splitlines()[3]))

    def test_compare_prints_parlor_over_the_peer_for_the_counts_both_ran(self):
        with tempfile.TemporaryDirectory(prefix="peer-bench-test.") as scratch:
            peer = os.path.join(scratch, "peer.json")
            with open(peer, "w") as f:
                json.dump({"results": [peer_result(1, 200.0, 10.0),
                                       peer_result(8, 400.0, 30.0),
                                       peer_result(32, 400.0, 120.0)]}, f)
            parlor = os.path.join(scratch, "parlor-1.log")
            with open(parlor, "w") as f:
                f.write(PARLOR_LOG)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                peer_bench.compare(peer, [parlor])
        rows = [line for line in out.getvalue().splitlines() if line[:1].isdigit()]
        self.assertEqual(len(rows), 2, "8 games: Parlor has no run of it")
        self.assertIn("837 / 1.2 ms", rows[0])
        self.assertIn("4.2x the moves/s", rows[0])  # 837 / 200
        self.assertIn("7.7x the moves/s", rows[1])  # 3088 / 400
        self.assertIn("p99  7.1x lower", rows[1])   # 120 / 16.95


if __name__ == "__main__":
    unittest.main()
