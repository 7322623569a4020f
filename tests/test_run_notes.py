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


def test_notes_of_one_run_are_never_merged_as_if_of_two():
    notes = ["run 'r0': pass 0 holds 3 of 5 anchors", "run 'r0': pass 4 holds 2 of 5 anchors",
             "run 'r1': pass 0 holds 3 of 5 anchors"]
    # each run's first note merged with the others' first, its second with their second
    assert merged(notes) == ["runs 'r0', 'r1' (2 runs): pass 0 holds 3 of 5 anchors",
                             "run 'r0': pass 4 holds 2 of 5 anchors"]
    twice = [f"run '{r}': {g} us inside" for g in ("52.0", "98.0") for r in ("a", "b")]
    assert merged(twice) == ["runs 'a', 'b' (2 runs): 52.0 us inside", "runs 'a', 'b' (2 runs): 98.0 us inside"]


def test_a_range_in_a_note_keeps_its_ends_apart():
    notes = ["run 'a': its layers are numbered 13 to 23", "run 'b': its layers are numbered 14 to 23"]
    assert merged(notes) == ["runs 'a', 'b' (2 runs): its layers are numbered 13–14 to 23"]
    # a hyphen between numbers is no minus sign: the second number is 7, not -7
    assert merged(["run 'c': ranks 3-7 late", "run 'd': ranks 3-8 late"]) == [
        "runs 'c', 'd' (2 runs): ranks 3-7–8 late"]
    # a minus sign after a space is a sign
    assert merged(["run 'a': skew -5 us", "run 'b': skew -7 us"]) == ["runs 'a', 'b' (2 runs): skew -7–-5 us"]
