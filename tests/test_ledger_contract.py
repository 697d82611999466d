"""The ledger contract (tests/ledger_contract.py) run against each backend."""

from __future__ import annotations

import os

import pytest

from baton.ledger import Ledger
from baton.ledger.memory import MemoryLedger
from tests.ledger_contract import LedgerContract


class TestJsonlLedger(LedgerContract):
    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path):
        self.baton_dir = tmp_path / ".baton"

    def new_ledger(self, writer="w1", clock=None):
        kwargs = {"clock": clock} if clock else {}
        return Ledger(self.baton_dir, writer, fsync="never", **kwargs)

    def deliver(self, writer, raw):
        feed = self.baton_dir / "ledger" / f"{writer}.jsonl"
        feed.parent.mkdir(parents=True, exist_ok=True)
        with open(feed, "ab") as fh:
            fh.write(raw)

    def feed_bytes(self, writer):
        return (self.baton_dir / "ledger" / f"{writer}.jsonl").read_bytes()

    def rewrite(self, writer, raw):
        feed = self.baton_dir / "ledger" / f"{writer}.jsonl"
        tmp = feed.with_suffix(".tmp")
        tmp.write_bytes(raw)
        os.replace(tmp, feed)


class TestMemoryLedger(LedgerContract):
    @pytest.fixture(autouse=True)
    def _store(self):
        self.store = MemoryLedger("store")

    def new_ledger(self, writer="w1", clock=None):
        return self.store.for_writer(writer, clock=clock)

    def deliver(self, writer, raw):
        self.store.receive(writer, raw)

    def feed_bytes(self, writer):
        return self.store.feed_bytes(writer)

    def rewrite(self, writer, raw):
        self.store.replace(writer, raw)
