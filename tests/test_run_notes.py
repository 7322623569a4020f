"""Notes that say the same of several runs are one note (engine/rendering/run_notes.py)."""
from tracedb.engine.rendering.run_notes import merged


def test_notes_that_differ_only_in_the_run_are_one_note_where_the_first_stood():
    notes = ["window: full", "run 'a': anchor chosen: k", "run 'b': anchor chosen: k", "other",
             "run 'c': anchor chosen: k"]
    assert merged(notes) == ["window: full", "runs 'a', 'b', 'c' (3 runs): anchor chosen: k", "other"]


def test_numbers_that_differ_become_their_range_over_the_runs():
    notes = [f"run 'r{i}': 3 pass breaks at ProfilerStep#N; the largest inside is {g} us, 1,234.5 us in all"
             for i, g in enumerate(["250.0", "260.7", "1,002.5", "255.1", "251.0", "259.9"])]
    assert merged(notes) == ["runs 'r0', 'r1', 'r2', 'r3' and 2 more (6 runs): 3 pass breaks at ProfilerStep#N; the "
                             "largest inside is 250.0–1,002.5 us, 1,234.5 us in all"]


def test_a_note_of_one_run_and_notes_that_differ_in_words_stay_as_they_are():
    notes = ["run 'a': anchor chosen: k", "run 'b': anchor chosen: other", "run 'c': 2 pass breaks"]
    assert merged(notes) == notes
    assert merged(merged(notes)) == notes
