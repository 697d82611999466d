"""The pure verdict on whether ``.baton/`` is the folder its writer id was minted in
(``baton.domain.writer_place``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from baton.domain.writer_place import (
    COPIED,
    MOVED,
    RELOCATED,
    REMOUNTED,
    SAME,
    UNRECORDED,
    Place,
    check_place,
    claimed_local,
    copied_notice,
    pattern,
    recorded_local,
    writer_finding,
)

MINTED = Place("/home/carol/proj", "carolbox", 2049, 1234)


def test_the_folder_the_id_was_minted_in_keeps_it():
    assert check_place(MINTED, Place("/home/carol/proj", "carolbox", 2049, 1234)).verdict == SAME


def test_the_same_folder_at_another_path_or_from_another_host_keeps_its_id():
    assert check_place(MINTED, Place("/home/carol/moved", "carolbox", 2049, 1234)).verdict == MOVED
    assert check_place(MINTED, Place("/workspace", "container", 2049, 1234)).verdict == MOVED


def test_a_new_device_number_under_the_same_inode_root_and_host_is_a_remount():
    assert check_place(MINTED, Place("/home/carol/proj", "carolbox", 2050, 1234)).verdict == REMOUNTED


def test_a_new_device_number_under_the_same_inode_elsewhere_is_a_copy():
    assert check_place(MINTED, Place("/home/carol/proj", "newlaptop", 2050, 1234)).verdict == COPIED


def test_another_folder_is_a_copy_wherever_it_is():
    assert check_place(MINTED, Place("/home/carol/carolcopy", "carolbox", 2049, 9999)).verdict == COPIED
    assert check_place(MINTED, Place("/home/carol/proj", "carolbox", 2049, 9999)).verdict == COPIED  # restored


def test_a_local_json_that_records_no_place_is_unrecorded():
    assert check_place(None, MINTED).verdict == UNRECORDED


@given(st.one_of(st.none(), st.integers(), st.text(), st.lists(st.integers()),
                 st.dictionaries(st.sampled_from(["root", "host", "dev", "ino"]),
                                 st.one_of(st.none(), st.booleans(), st.integers(), st.text()))))
def test_a_recorded_place_reads_back_or_reads_as_none_never_fails(raw):
    place = Place.from_json(raw)
    assert place is None or Place.from_json(place.to_json()) == place


def test_a_claim_keeps_every_override_and_says_where_the_old_id_came_from():
    local = {"writer": "carolbox-carol-aaaaaa", "minted_in": MINTED.to_json(), "detector": {"threshold": 0.9}}
    here = Place("/home/carol/carolcopy", "carolbox", 2049, 9999)
    claimed = claimed_local(local, check_place(MINTED, here), "carolbox-carol-bbbbbb")
    assert claimed == {"writer": "carolbox-carol-bbbbbb", "minted_in": here.to_json(), "detector": {"threshold": 0.9},
                       "copied_from": {"writer": "carolbox-carol-aaaaaa", "root": "/home/carol/proj",
                                       "host": "carolbox"}}


def test_recording_a_place_keeps_the_writer_and_overrides():
    assert recorded_local({"writer": "w-u-aaaaaa", "x": 1}, MINTED) == {"writer": "w-u-aaaaaa", "x": 1,
                                                                         "minted_in": MINTED.to_json()}


def test_the_notice_of_a_copy_in_a_signing_project_names_the_allowed_signers_pattern():
    said = copied_notice("carolbox-carol-aaaaaa", "carolbox-carol-bbbbbb", MINTED, signing=True)
    assert "carolbox-carol-*" in said and "allowed-signers" in said
    assert "allowed-signers" not in copied_notice("a-b-aaaaaa", "a-b-bbbbbb", MINTED, signing=False)


def test_the_signers_pattern_of_an_id_not_minted_by_baton_is_the_id_itself():
    assert pattern("carolbox-carol-0a1b2c") == "carolbox-carol-*"
    assert pattern("ci") == "ci"


def test_doctor_warns_only_for_a_copy():
    here = Place("/elsewhere", "carolbox", 1, 2)
    assert writer_finding("w", check_place(MINTED, here))[0] == "warn"
    for place in (MINTED, Place("/moved", "carolbox", 2049, 1234)):
        assert writer_finding("w", check_place(MINTED, place))[0] == "ok"
    assert writer_finding("w", check_place(None, here))[0] == "ok"


def test_local_json_records_the_place_again_only_when_it_has_none_or_the_device_changed():
    assert check_place(None, MINTED).records_place
    assert check_place(MINTED, Place("/home/carol/proj", "carolbox", 2050, 1234)).records_place  # remounted
    assert not check_place(MINTED, MINTED).records_place
    assert not check_place(MINTED, Place("/srv/proj", "carolbox", 2049, 1234)).records_place  # moved: kept as minted
    assert not check_place(MINTED, Place("/tmp/copy", "carolbox", 2049, 999)).records_place  # a copy mints anew


def test_another_folder_on_this_host_whose_original_is_gone_was_moved_across_file_systems():
    here = Place("/mnt/other/proj", "carolbox", 64, 77)
    check = check_place(MINTED, here, original_gone=True)
    assert check.verdict == RELOCATED and check.keeps_writer and check.records_place


def test_another_folder_whose_original_is_still_there_is_a_copy():
    assert check_place(MINTED, Place("/mnt/other/proj", "carolbox", 64, 77), original_gone=False).verdict == COPIED


def test_a_folder_on_another_host_is_a_copy_even_when_nothing_is_at_the_recorded_root():
    assert check_place(MINTED, Place("/mnt/other/proj", "newlaptop", 64, 77), original_gone=True).verdict == COPIED


def test_a_backup_restored_at_the_recorded_root_is_a_copy_even_when_the_original_is_gone():
    assert check_place(MINTED, Place("/home/carol/proj", "carolbox", 2049, 9999), original_gone=True).verdict == COPIED
