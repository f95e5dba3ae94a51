"""Braff written by hand in plain Python: the baseline a user would otherwise write.

The whole game (three seasons, 2-6 players, powers, bonus cards, medals, 5-medals) with the
same decision structure as spec/braff.rules, playing every decision and chance event uniformly
at random. bench/bench_engine.py compares the rules engine against it. Not a test, and not a
reference for the rules: spec/braff.rules is.
"""

from __future__ import annotations

import random

FAMILIES = ("cat", "horse", "dog", "rabbit", "parrot")
MEMBERS = (("champion", 3, 0, None), ("clever", 2, 0, None), ("cute", 0, 0, None),
           ("goodfornothing", 0, 1, None), ("thief", 0, 0, "thief"), ("spy", 0, 0, "spy"),
           ("prankster", 0, 0, "prankster"))


def cards() -> list[tuple[str, str, int, int, str | None]]:
    out = [(f, m, s, b, p) for f in FAMILIES for (m, s, b, p) in MEMBERS]
    out.append(("owl", "joker", 0, 0, None))
    return out


class Braff:
    def __init__(self, n: int, rng: random.Random) -> None:
        self.n, self.rng = n, rng
        self.cards = cards()
        ids = list(range(len(self.cards)))
        if n <= 4:
            ids = [c for c in ids if self.cards[c][1] != "cute"]
        self.deck = ids
        self.slots = 2 if n == 2 else 1
        self.coll = [[[] for _ in range(self.slots)] for _ in range(n)]
        self.bonus: list[list[int]] = [[] for _ in range(n)]
        self.supply = {f: 15 for f in FAMILIES}
        self.five_supply = 15
        self.won = [{f: 0 for f in FAMILIES} for _ in range(n)]
        self.fives = [0] * n
        self.dealer = rng.randrange(n)
        self.steps = 0
        self.gap = False

    def choice(self, options: list) -> object:  # type: ignore[type-arg]
        self.steps += 1
        return self.rng.choice(options)

    def draw(self) -> int:
        if not self.deck:
            raise Gap()
        self.steps += 1
        i = self.rng.randrange(len(self.deck))
        return self.deck.pop(i)

    def incomplete(self, p: int) -> bool:
        return any(len(c) < 5 for c in self.coll[p])

    def fits(self, p: int, k: int) -> bool:
        return any(len(c) + k <= 5 for c in self.coll[p])

    def completes(self, p: int, k: int) -> bool:
        return any(len(c) + k == 5 for c in self.coll[p])

    def take(self, p: int, offer: list[int]) -> None:
        ks = [k for k in range(self.slots) if len(self.coll[p][k]) + len(offer) <= 5]
        k = ks[0] if len(ks) == 1 else self.choice(ks)
        before = list(self.coll[p][k])
        self.coll[p][k].extend(offer)
        powers = []
        for c in offer:
            pw = self.cards[c][4]
            if pw and pw not in powers:
                powers.append(pw)
        for pw in powers:
            if sum(self.cards[c][4] == pw for c in offer) >= 2 or any(self.cards[c][4] == pw for c in before):
                getattr(self, pw)(p, k)

    def thief(self, p: int, k: int) -> None:
        targets = [(q, j, c) for q in range(self.n) if q != p for j in range(self.slots)
                   for c in self.coll[q][j]]
        if not targets:
            return
        pick = self.choice(targets + [None])
        if pick is None:
            return
        q, j, c = pick
        self.coll[q][j].remove(c)
        if len(self.coll[p][k]) < 5:
            self.coll[p][k].append(c)
        else:
            self.deck.append(c)

    def spy(self, p: int, k: int) -> None:
        if self.choice([True, False]):
            if len(self.deck) < 5:
                raise Gap()
            seen = [self.draw() for _ in range(5)]
            while seen:
                c = self.choice(seen) if len(seen) > 1 else seen[0]
                seen.remove(c)
                self.deck.append(c)

    def prankster(self, p: int, k: int) -> None:
        options = list(self.coll[p][k]) + [None]
        c = self.choice(options)
        if c is None:
            return
        self.coll[p][k].remove(c)
        targets = [q for q in range(self.n) if q != p and self.incomplete(q)]
        if not targets:
            self.deck.insert(0, c)
            return
        q = targets[0] if len(targets) == 1 else self.choice(targets)
        js = [j for j in range(self.slots) if len(self.coll[q][j]) < 5]
        j = js[0] if len(js) == 1 else self.choice(js)
        self.coll[q][j].append(c)

    def open_players(self) -> list[int]:
        return [q for q in range(self.n) if self.incomplete(q)]

    def phase1(self) -> None:
        while self.open_players():
            if len(self.open_players()) == 1:
                p = self.open_players()[0]
                self.dealer = p
                while self.incomplete(p) and len(self.open_players()) == 1:
                    self.take(p, [self.draw()])
                continue
            if not self.incomplete(self.dealer):
                self.dealer = next(q for q in self.order(self.dealer) if self.incomplete(q))
            self.deal(self.dealer)
            if self.open_players():
                self.dealer = next(q for q in self.order((self.dealer + 1) % self.n)
                                   if self.incomplete(q))

    def order(self, p: int) -> list[int]:
        return [(p + i) % self.n for i in range(self.n)]

    def deal(self, d: int) -> None:
        offer: list[int] = []
        for size in (1, 2, 3):
            offer.append(self.draw())
            for q in self.order(d):
                if self.incomplete(q) and self.fits(q, size) and self.choice([True, False]):
                    self.take(q, offer)
                    return
            if size == 3 or self.completes(d, size):
                self.take(d, offer)
                return

    def beauty(self, p: int) -> int:
        return sum(self.cards[c][2] - self.cards[c][3] for k in self.coll[p] for c in k)

    def phase2(self) -> None:
        b = [self.beauty(p) for p in range(self.n)]
        best = max(b)
        order = self.order(self.dealer)
        firsts = [p for p in order if b[p] == best]
        if len(firsts) > 1:
            for p in firsts:
                self.bonus[p].append(self.draw())
            return
        self.bonus[firsts[0]].extend([self.draw(), self.draw()])
        second = max(x for x in b if x < best)
        for p in order:
            if b[p] == second:
                self.bonus[p].append(self.draw())

    def phase3(self, discard: list[int]) -> None:
        for p in self.order(self.dealer):
            while self.bonus[p]:
                b = self.choice(self.bonus[p] + [None])
                if b is None:
                    break
                k = self.choice(list(range(self.slots))) if self.slots == 2 else 0
                out = self.choice(self.coll[p][k])
                self.coll[p][k].remove(out)
                discard.append(out)
                self.bonus[p].remove(b)
                self.coll[p][k].append(b)
            for k in range(self.slots):
                col = self.coll[p][k]
                joker = self.choice(list(FAMILIES)) if any(self.cards[c][0] == "owl" for c in col) else None
                counts = {f: sum(1 for c in col if self.cards[c][0] == f or
                                 (self.cards[c][0] == "owl" and joker == f)) for f in FAMILIES}
                each = all(v == 1 for v in counts.values())
                for f in FAMILIES:
                    m = 1 if each else (counts[f] if counts[f] >= 2 else 0)
                    if m:
                        if self.supply[f] < m:
                            raise Gap()
                        self.supply[f] -= m
                        self.won[p][f] += m

    def play(self) -> list[int]:
        for season in range(3):
            discard: list[int] = []
            self.phase1()
            self.phase2()
            self.phase3(discard)
            if season < 2:
                for p in range(self.n):
                    for k in self.coll[p]:
                        self.deck.extend(k)
                        k.clear()
                self.deck.extend(discard)
                self.dealer = (self.dealer + 1) % self.n
        step = 7 if self.n == 2 else 5
        for p in range(self.n):
            for f in FAMILIES:
                m = self.won[p][f] // step
                if m:
                    if self.five_supply < m:
                        raise Gap()
                    self.five_supply -= m
                    self.fives[p] += m
        return [sum(self.won[p].values()) + 5 * self.fives[p] for p in range(self.n)]


class Gap(Exception):
    """The book is silent here (the same places the spec marks with gap)."""


def playout(n: int, seed: int) -> tuple[list[int] | None, int]:
    """Play one game; returns (scores or None at a gap, decisions + chance events)."""
    game = Braff(n, random.Random(seed))
    try:
        return game.play(), game.steps
    except Gap:
        return None, game.steps
