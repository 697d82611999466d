"""The rule of ``baton.domain.feed_vouch``: which batons and handoffs the brief flags or withholds."""

from __future__ import annotations

import pytest

from baton.domain.feed_vouch import FeedVouch, vouch


def test_a_record_this_clones_feed_wrote_needs_no_voucher():
    assert vouch("me-1", my_writer="me-1", status=None, required=True) is None


def test_a_record_from_a_feed_whose_verdict_is_good_is_vouched_for():
    assert vouch("w-2", my_writer="me-1", status="good", required=True) is None


@pytest.mark.parametrize("status", [None, "unsigned", "unknown_key", "wrong_signer", "bad_signature"])
def test_a_record_from_any_other_feed_is_not_vouched_for_and_withheld_only_when_signatures_are_required(status):
    assert vouch("w-2", my_writer="me-1", status=status, required=False) == FeedVouch("w-2", status, False)
    assert vouch("w-2", my_writer="me-1", status=status, required=True) == FeedVouch("w-2", status, True)


def test_a_record_whose_writer_is_unknown_is_not_vouched_for():
    assert vouch(None, my_writer="me-1", status=None, required=False) == FeedVouch(None, None, False)


def test_the_line_names_the_writer_and_the_owner_as_claimed():
    line = FeedVouch("w-2", "unsigned", False).line("alice@example.com")
    assert line.startswith("> ⚠️ From an unsigned feed (writer `w-2`): its author is not verified; "
                           "`alice@example.com` is who it claims to be.")
    assert "\n" not in FeedVouch("w\n# 2", "unsigned", False).line("a\nb")


def test_the_line_of_a_mark_from_another_records_feed_names_that_records_claimed_author():
    line = FeedVouch("w-2", "unsigned", False, author="alice@example.com").line("bob@example.com")
    assert "(writer `w-2`)" in line and "`alice@example.com` is who it claims to be" in line
    assert "bob@example.com" not in line
    assert "claims to be" not in FeedVouch("w-2", "unsigned", False, author="").line("bob@example.com")
