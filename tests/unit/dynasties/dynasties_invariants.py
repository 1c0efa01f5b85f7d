"""Invariants I1-I24 of the Dynasties rulebook (§4), checked event by event.

Feed ``observe(before, event, after)`` for every event of a stream, in order (``before`` is
a copy of the state before the event; None before SetupStarted). Each failure names its
invariant. I8 (secrecy), I21-I23 (legal commands, determinism) need ``view``/``decide``
and are checked by the property tests that drive this class.
"""

from __future__ import annotations

from collections import Counter

from domain.games.dynasties.cards import DECK, KING, is_coronation, lineage_of, value_of
from domain.games.dynasties.state import DynastiesState
from domain.kernel.events import Event

_SORTED_DECK = sorted(DECK)
NORMAL_TURNS = 3


def highest_untied_seat(pairs: list[tuple[int, int]]) -> int | None:
    """Written apart from the rules' own version on purpose: count, then scan downwards."""
    counts = Counter(value for _, value in pairs)
    for value in sorted(counts, reverse=True):
        if counts[value] == 1:
            return next(seat for seat, v in pairs if v == value)
    return None


class InvariantViolation(AssertionError):
    pass


class DynastiesInvariants:
    def __init__(self) -> None:
        self.previous: Event | None = None
        self.over = False
        self.expect_card_after_reshuffle = False
        self.round_start_hands: list[int] = []
        self.phase1_enquired: Counter[int] = Counter()
        self.phase1_failed: set[int] = set()
        self.reveal: list[tuple[int, int]] = []
        self.highest = 0
        self.turn_order: list[int] = []
        self.turn_done: list[int] = []
        self.turn_cards: list[tuple[int, str]] = []
        self.turns_this_round: list[int] = []
        self.formed: Counter[tuple[int, str]] = Counter()
        self.pureblood: tuple[int, int] | None = None  # (seat, amount)
        self.pureblood_payers: list[int] = []
        self.totals: list[int] = []
        self.broke_seen = False
        self.events = 0

    def fail(self, invariant: str, message: str) -> None:
        raise InvariantViolation(f"{invariant} after event #{self.events} ({self.previous_type()}): {message}")

    def previous_type(self) -> str:
        return self.previous.type if self.previous is not None else "-"

    # -- per event ---------------------------------------------------------------------

    def observe(self, before: DynastiesState | None, event: Event, after: DynastiesState) -> None:
        self.events += 1
        if self.over:
            self.fail("I19", f"{event.type} came after GameEnded")
        if self.expect_card_after_reshuffle and event.type not in ("CardDrawn", "ProspectsEnquired"):
            self.fail("I24", f"a reshuffle was followed by {event.type}, not by taking a card")
        self.expect_card_after_reshuffle = False
        if before is not None:  # the cards exist from DeckShuffled on
            self.check_state(after)
        check = getattr(self, f"on_{event.type}", None)
        if check is not None and before is not None:
            check(before, event, after)
        self.previous = event

    def check_state(self, s: DynastiesState) -> None:
        # I1 gold conservation
        gold = sum(s.treasury) + s.stakes
        if s.options.shortfall == "debt_to_legacy":
            gold += s.legacy - s.legacy_at_start
        elif s.legacy != s.legacy_at_start:
            self.fail("I1", "the Legacy changed without debt_to_legacy")
        if gold != s.seats * s.starting_gold:
            self.fail("I1", f"gold {gold} != {s.seats} x {s.starting_gold}")
        # I2 card conservation
        cards = [*s.deck, *s.graveyard, *s.tribute_zone]
        for hand in s.hands:
            cards.extend(hand)
        for family in s.families:
            cards.extend(family)
        cards.extend(card for card in s.tribute_commit if card is not None)
        if sorted(cards) != _SORTED_DECK:
            counts = Counter(cards)
            self.fail("I2", f"missing {sorted(set(DECK) - set(cards))}, doubled {[c for c, n in counts.items() if n > 1]}")
        # I3 non-negativity, integers
        for amount in [*s.treasury, s.stakes, *s.debt, s.legacy]:
            if type(amount) is not int or amount < 0:
                self.fail("I3", f"amount {amount!r} in treasury {s.treasury}, stakes {s.stakes}, debt {s.debt}")
        # I6 dynasty consistency
        if (s.current_dynasty is None) != (s.crowned_card is None):
            self.fail("I6", f"dynasty {s.current_dynasty} with crowned card {s.crowned_card}")
        if s.crowned_card is not None:
            crowned = s.crowned_card
            if not is_coronation(crowned) or lineage_of(crowned) != s.current_dynasty:
                self.fail("I6", f"{crowned} cannot crown {s.current_dynasty}")
            if crowned not in s.tribute_zone and not any(crowned in family for family in s.families):
                self.fail("I6", f"crowned card {crowned} is neither in a Family nor in the TZ")

    # -- setup and cards -----------------------------------------------------------------

    def on_GraveyardReshuffled(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        if before.deck or not before.graveyard or after.graveyard:
            self.fail("I24", f"reshuffle with deck {len(before.deck)}, graveyard {len(before.graveyard)}")
        self.expect_card_after_reshuffle = True

    # -- phase 1 -------------------------------------------------------------------------

    def on_RoundStarted(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        s = after
        if before.pending is not None:
            self.fail("I4", f"{before.pending} left pending when a round starts")
        if s.round > 1 and any(len(hand) > s.options.hand_limit for hand in s.hands):
            self.fail("I4", f"hands {[len(h) for h in s.hands]} over the limit")
        if any(s.families):
            self.fail("I5", "a Family is not empty at the start of a round")
        if len(s.tribute_zone) > 1 or (s.tribute_zone and s.tribute_zone[0] != s.crowned_card):
            self.fail("I5", f"TZ {s.tribute_zone} with crowned card {s.crowned_card}")
        if s.stakes and not s.stakes_carried:
            self.fail("I5", f"stakes {s.stakes} at round start without a carry")
        self.round_start_hands = [len(hand) for hand in s.hands]
        self.phase1_enquired = Counter()
        self.phase1_failed = set()
        self.turns_this_round = []
        self.formed = Counter()

    def on_ProspectsEnquired(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        seat, card = e.data["seat"], e.data["revealed_card"]
        if not before.deck or before.deck[0] != card:
            self.fail("I2", f"enquire revealed {card}, not the top of the deck")
        if e.data["price"] != value_of(card) or e.data["paid"] != min(e.data["price"], before.treasury[seat]):
            self.fail("R12/R15", f"price/paid {e.data} with treasury {before.treasury[seat]}")
        if before.phase == "enquire_prospects":
            self.phase1_enquired[seat] += 1

    def on_DrawFailed(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        if before.deck or before.graveyard:
            self.fail("R54", "a draw failed while cards were left")
        if before.phase == "enquire_prospects":
            self.phase1_failed.add(e.data["seat"])

    def on_PhaseStarted(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        phase = e.data["phase"]
        s = after
        if phase == "tribute" and before.phase == "enquire_prospects":
            threshold, refill = s.options.enquire_threshold, s.options.enquire_refill_to
            for seat, start in enumerate(self.round_start_hands):
                enquired = self.phase1_enquired[seat]
                failed = seat in self.phase1_failed
                if start <= threshold and not (enquired == 1 or (enquired == 0 and failed)):
                    self.fail("I7", f"seat {seat} held {start} and Enquired {enquired} times")
                if start > threshold and enquired:
                    self.fail("I7", f"seat {seat} held {start} and still Enquired")
                least = refill if start <= threshold else threshold + 1
                if not failed and len(s.hands[seat]) < least:
                    self.fail("I7", f"seat {seat} holds {len(s.hands[seat])} after phase 1")
        if phase == "conclusion":
            if not s.stakes_emptied and not {1, 2, 3} <= set(self.turns_this_round):
                self.fail("I10", f"Conclusion after Turns {self.turns_this_round}")
        if phase == "into_the_grave" and any(gold == 0 for gold in s.treasury):
            self.fail("I19", f"a seat is Broke {s.treasury} but the game goes on")

    # -- phase 2 -------------------------------------------------------------------------

    def on_TributeCommitted(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        if before.tribute_commit[e.data["seat"]] is not None:
            self.fail("I8", f"seat {e.data['seat']} committed twice")

    def on_TributesRevealed(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        self.reveal = [(row["seat"], value_of(row["card"])) for row in e.data["tributes"]]
        committed = [(seat, card) for seat, card in enumerate(before.tribute_commit) if card is not None]
        if committed != [(row["seat"], row["card"]) for row in e.data["tributes"]]:
            self.fail("I8", "the reveal differs from the commits")
        self.highest = max((value for _, value in self.reveal), default=0)
        if e.data["highest"] != self.highest:
            self.fail("I9", f"highest {e.data['highest']} != {self.highest}")

    def on_FirstPlayerChosen(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        if e.data["by"] == "tribute" and e.data["seat"] != highest_untied_seat(self.reveal):
            self.fail("I9", f"first player {e.data['seat']} for tributes {self.reveal}")
        if e.data["by"] == "anchor" and highest_untied_seat(self.reveal) is not None:
            self.fail("R20", "the anchor led although a value was untied")

    def on_StakesPaid(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        seat = e.data["seat"]
        if e.data["owed"] != self.highest or e.data["paid"] != min(self.highest, before.treasury[seat]):
            self.fail("I9", f"{e.data} with highest {self.highest}, treasury {before.treasury[seat]}")

    # -- phase 3 -------------------------------------------------------------------------

    def on_TurnStarted(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        turn, leader, order = e.data["turn"], e.data["leader"], e.data["order"]
        n = after.seats
        if turn > NORMAL_TURNS:
            if self.previous_type() != "ConclusionTied":
                self.fail("I10", f"tie-break Turn {turn} after {self.previous_type()}")
        elif turn != len([t for t in self.turns_this_round if t <= NORMAL_TURNS]) + 1:
            self.fail("I10", f"Turn {turn} after Turns {self.turns_this_round}")
        players = set(range(n))
        if e.data["tie_break"] and after.options.tie_break_participants == "tied":
            players = set(before.tied_seats)
        expected = [(leader + k) % n for k in range(n) if (leader + k) % n in players]
        if order != expected or order[0] != leader:
            self.fail("I10", f"order {order} for leader {leader} and players {sorted(players)}")
        self.turn_order, self.turn_done, self.turn_cards = list(order), [], []
        self.turns_this_round.append(turn)

    def _next_in_turn(self, seat: int) -> None:
        if len(self.turn_done) >= len(self.turn_order) or self.turn_order[len(self.turn_done)] != seat:
            self.fail("I10", f"seat {seat} acted out of order {self.turn_order} (done {self.turn_done})")
        self.turn_done.append(seat)

    def on_NoblePlaced(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        seat, card = e.data["seat"], e.data["card"]
        self._next_in_turn(seat)
        last = self.turn_cards[-1][1] if self.turn_cards else None
        activated = last is None or value_of(card) <= value_of(last)
        if e.data["activated"] != activated or e.data["compared_with"] != last:
            self.fail("I11", f"{card} after {last}: {e.data}")
        self.turn_cards.append((seat, card))

    def on_PlacementSkipped(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        self._next_in_turn(e.data["seat"])
        if before.hands[e.data["seat"]]:
            self.fail("R27", f"seat {e.data['seat']} skipped holding cards")

    def on_DynastyChanged(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        if e.data["cause"] == "coronation" and any(value_of(c) == KING for f in after.families for c in f):
            self.fail("I13", "a King survived a Coronation")

    def on_ConclaveFormed(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        seat, value = e.data["seat"], e.data["value"]
        self._formed(seat, f"conclave:{value}", before)
        if sum(1 for card in before.families[seat] if value_of(card) == value) < 3:
            self.fail("R37", f"Conclave of {value} without three of them")
        if e.data["gold_taken"] != min(value, before.stakes):
            self.fail("I15", f"took {e.data['gold_taken']} of {value} from stakes {before.stakes}")

    def on_ConclaveCardsTaken(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        cards = e.data["cards"]
        if len(cards) > after.options.conclave_max_cards or not set(cards) <= set(before.tribute_zone):
            self.fail("I15", f"took {cards} from TZ {before.tribute_zone}")

    def on_PurebloodFormed(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        seat, lineage = e.data["seat"], e.data["lineage"]
        self._formed(seat, f"pureblood:{lineage}", before)
        values = sorted((value_of(c) for c in before.families[seat] if lineage_of(c) == lineage), reverse=True)
        if len(values) < 3 or e.data["amount"] != values[1]:
            self.fail("I16", f"Pureblood amount {e.data['amount']} for values {values}")
        self.pureblood = (seat, e.data["amount"])
        n = after.seats
        self.pureblood_payers = [(seat + k) % n for k in range(1, n)]

    def on_PurebloodPaid(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        payer = e.data["from"]
        if self.pureblood is None or not self.pureblood_payers or self.pureblood_payers[0] != payer:
            self.fail("I16", f"unexpected payer {payer}")
        self.pureblood_payers.pop(0)
        seat, amount = self.pureblood  # type: ignore[misc]
        if e.data["to"] != seat or e.data["owed"] != amount or e.data["paid"] != min(amount, before.treasury[payer]):
            self.fail("I16", f"{e.data} for Pureblood {self.pureblood}, treasury {before.treasury[payer]}")

    def _formed(self, seat: int, key: str, before: DynastiesState) -> None:
        if key in before.rewarded[seat]:
            self.fail("I14", f"{key} paid twice to seat {seat}")
        self.formed[(seat, key)] += 1

    def on_TurnEnded(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        if self.turn_done != self.turn_order:
            self.fail("I10", f"Turn ended with {self.turn_done} of {self.turn_order}")
        count_removed = after.options.removed_cards_count_for_lead
        pairs = [(seat, value_of(card)) for seat, card in self.turn_cards
                 if count_removed or card in before.families[seat]]
        leader = highest_untied_seat(pairs)
        expected = before.turn_leader if leader is None else leader
        if e.data["next_leader"] != expected:
            self.fail("I12", f"next leader {e.data['next_leader']} != {expected} for {pairs}")

    # -- phase 4 -------------------------------------------------------------------------

    def on_FamiliesTallied(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        o = after.options
        self.totals = []
        for seat, family in enumerate(before.families):
            total = sum(value_of(c) + (o.coronation_bonus if is_coronation(c) else 0)
                        + (o.dynasty_bonus if lineage_of(c) == before.current_dynasty else 0) for c in family)
            if e.data["rows"][seat]["total"] != total:
                self.fail("I17", f"seat {seat} total {e.data['rows'][seat]['total']} != {total}")
            self.totals.append(total)
        for seat in range(after.seats):
            keys = {key for (owner, key), count in self.formed.items() if owner == seat}
            if keys != after.rewarded[seat] or any(count != 1 for count in self.formed.values()):
                self.fail("I14", f"rewarded {after.rewarded[seat]} vs formed {self.formed}")

    def _best(self) -> list[int]:
        best = max(self.totals)
        return [seat for seat, total in enumerate(self.totals) if total == best]

    def on_StakesWon(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        if self._best() != [e.data["seat"]]:
            self.fail("I17", f"seat {e.data['seat']} won with totals {self.totals}")
        if e.data["amount"] != before.stakes or after.stakes != 0:
            self.fail("I18", f"won {e.data['amount']} of stakes {before.stakes}")

    def on_ConclusionTied(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        if self._best() != e.data["seats"] or len(e.data["seats"]) < 2:
            self.fail("I17", f"tie {e.data['seats']} with totals {self.totals}")

    def on_StakesCarried(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        if not (e.data["amount"] == before.stakes == after.stakes):
            self.fail("I18", f"carried {e.data['amount']} of {before.stakes}, left {after.stakes}")

    def on_StakesSplit(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        amounts = [share["amount"] for share in e.data["shares"]]
        if sum(amounts) != before.stakes or after.stakes != 0 or max(amounts) - min(amounts) > 1:
            self.fail("R46", f"split {e.data['shares']} of {before.stakes}")

    def on_PlayerBroke(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        if before.treasury[e.data["seat"]] != 0:
            self.fail("I19", f"seat {e.data['seat']} Broke with {before.treasury[e.data['seat']]}")
        self.broke_seen = True

    def on_GameEnded(self, before: DynastiesState, e: Event, after: DynastiesState) -> None:
        if not self.broke_seen:
            self.fail("I19", "the game ended with no seat Broke")
        top = max(before.treasury)
        if e.data["winners"] != [seat for seat, gold in enumerate(before.treasury) if gold == top]:
            self.fail("I20", f"winners {e.data['winners']} for treasuries {before.treasury}")
        if sum(e.data["legacy_shares"]) + e.data["legacy_remainder"] != before.legacy:
            self.fail("I20", f"legacy {before.legacy} split as {e.data}")
        if before.stakes:
            self.fail("R50", f"{before.stakes} gold left in the Stakes at Game Over")
        self.over = True
