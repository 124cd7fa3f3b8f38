#!/usr/bin/env python3
"""compare.py's verdicts (run by run.sh before the plans): what fails CI and what only a note."""
import contextlib
import io
import os
import tempfile
import unittest

import compare


class CompareTests(unittest.TestCase):
    def verdict(self, expected: str, results: str) -> tuple[int, str]:
        with tempfile.TemporaryDirectory() as directory:
            paths = []
            for name, text in (("expected.txt", expected), ("results.txt", results)):
                paths.append(os.path.join(directory, name))
                with open(paths[-1], "w") as f:
                    f.write(text)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = compare.main(*paths)
            return status, out.getvalue()

    def test_matching_results_pass(self) -> None:
        status, _ = self.verdict("# known\nm2 FAIL\nm3 WARNING\n", "PASS m1\nFAIL m2 why\nWARNING m3 w\nSUMMARY x\n")
        self.assertEqual(status, 0)

    def test_unexpected_fail_is_a_regression(self) -> None:
        status, out = self.verdict("", "FAIL m1 broke\n")
        self.assertEqual(status, 1)
        self.assertIn("regression", out)

    def test_expected_fail_that_passes_fails_the_run(self) -> None:
        status, out = self.verdict("m1 FAIL\n", "WARNING m1 w\n")
        self.assertEqual(status, 1)
        self.assertIn("unexpected pass", out)

    def test_listed_module_without_result_fails_the_run(self) -> None:
        status, out = self.verdict("m9 WARNING\n", "PASS m1\n")
        self.assertEqual(status, 1)
        self.assertIn("no result", out)

    def test_warning_differences_are_notes(self) -> None:
        status, out = self.verdict("m1 WARNING\n", "PASS m1\nWARNING m2 w\n")
        self.assertEqual(status, 0)
        self.assertEqual(out.count("conformance note"), 2)

    def test_malformed_line_is_refused(self) -> None:
        with self.assertRaises(SystemExit):
            self.verdict("m1 BROKEN\n", "PASS m1\n")


if __name__ == "__main__":
    unittest.main()
