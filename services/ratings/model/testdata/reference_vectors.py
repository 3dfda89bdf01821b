#!/usr/bin/env python3
"""Independent reference computations for the rating-model tests.

Written straight from the papers' equations (no code shared with the C++ library), in double
precision, so that the vectors the C++ tests use that are *not* taken from a published source can
be re-derived by anyone:

  python3 services/ratings/model/testdata/reference_vectors.py

Glicko-2: Mark Glickman, "Example of the Glicko-2 system" (2013), steps 1-8, Illinois algorithm.
Weng-Lin Plackett-Luce: Ruby C. Weng and Chih-Jen Lin, "A Bayesian Approximation Method for Online
Ranking", JMLR 12 (2011), Algorithm 4 (Plackett-Luce), with openskill's defaults: gamma_i =
sqrt(sigma_i^2)/c, kappa = 1e-4, beta = sigma/2.
"""
import math

SCALE = 173.7178


def glicko2(r, rd, vol, games, tau=0.5, eps=1e-6):
    """games: list of (opp_r, opp_rd, score). One rating period."""
    mu = (r - 1500) / SCALE
    phi = rd / SCALE
    if not games:
        return r, SCALE * math.sqrt(phi * phi + vol * vol), vol

    def g(p):
        return 1 / math.sqrt(1 + 3 * p * p / math.pi ** 2)

    def e(m, mj, pj):
        return 1 / (1 + math.exp(-g(pj) * (m - mj)))

    vinv = 0.0
    dsum = 0.0
    for (orr, ord_, s) in games:
        mj = (orr - 1500) / SCALE
        pj = ord_ / SCALE
        ee = e(mu, mj, pj)
        vinv += g(pj) ** 2 * ee * (1 - ee)
        dsum += g(pj) * (s - ee)
    v = 1 / vinv
    delta = v * dsum
    a = math.log(vol * vol)

    def f(x):
        ex = math.exp(x)
        return ex * (delta ** 2 - phi ** 2 - v - ex) / (2 * (phi ** 2 + v + ex) ** 2) - (x - a) / tau ** 2

    A = a
    if delta ** 2 > phi ** 2 + v:
        B = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        B = a - k * tau
    fa, fb = f(A), f(B)
    while abs(B - A) > eps:
        C = A + (A - B) * fa / (fb - fa)
        fc = f(C)
        if fc * fb <= 0:
            A, fa = B, fb
        else:
            fa = fa / 2
        B, fb = C, fc
    vol2 = math.exp(A / 2)
    phistar = math.sqrt(phi ** 2 + vol2 ** 2)
    phi2 = 1 / math.sqrt(1 / phistar ** 2 + 1 / v)
    mu2 = mu + phi2 ** 2 * dsum
    return 1500 + SCALE * mu2, SCALE * phi2, vol2


def plackett_luce(teams, ranks, beta=25 / 6, kappa=1e-4):
    """teams: list of lists of (mu, sigma); ranks: list (lower is better, equal = tie)."""
    k = len(teams)
    tmu = [sum(p[0] for p in t) for t in teams]
    tvar = [sum(p[1] ** 2 for p in t) for t in teams]
    c = math.sqrt(sum(tv + beta * beta for tv in tvar))
    ex = [math.exp(m / c) for m in tmu]
    # C_q = {i : r(i) >= r(q)}
    sumq = [sum(ex[i] for i in range(k) if ranks[i] >= ranks[q]) for q in range(k)]
    A = [sum(1 for s in range(k) if ranks[s] == ranks[q]) for q in range(k)]
    out = []
    for i in range(k):
        omega = 0.0
        delta = 0.0
        for q in range(k):
            if ranks[q] > ranks[i]:
                continue
            p = ex[i] / sumq[q]
            delta += p * (1 - p) / A[q]
            omega += ((1 if q == i else 0) - p) / A[q]
        omega *= tvar[i] / c
        gamma = math.sqrt(tvar[i]) / c
        delta *= gamma * tvar[i] / (c * c)
        team = []
        for (m, s) in teams[i]:
            w = s * s / tvar[i]
            team.append((m + w * omega, s * math.sqrt(max(1 - w * delta, kappa))))
        out.append(team)
    return out


def show(label, teams):
    print(label)
    for t, team in enumerate(teams):
        print("  team %d: %s" % (t, ", ".join("(%.10f, %.10f)" % p for p in team)))


if __name__ == "__main__":
    print("Glickman's example:", glicko2(1500, 200, 0.06,
                                        [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)]))
    print("Glicko-2 new vs new, draw:", glicko2(1500, 350, 0.06, [(1500, 350, 0.5)]))
    print("Glicko-2 1700/80 beats 1500/200:", glicko2(1700, 80, 0.06, [(1500, 200, 1)]),
          glicko2(1500, 200, 0.06, [(1700, 80, 0)]))
    print("Glicko-2 1500/200 draws 1800/50:", glicko2(1500, 200, 0.06, [(1800, 50, 0.5)]),
          glicko2(1800, 50, 0.06, [(1500, 200, 0.5)]))
    new = (25.0, 25.0 / 3)
    show("PL 2 players", plackett_luce([[new], [new]], [1, 2]))
    show("PL 3 players", plackett_luce([[new], [new], [new]], [1, 2, 3]))
    show("PL 4 players", plackett_luce([[new]] * 4, [1, 2, 3, 4]))
    show("PL 3 teams of 3,1,2", plackett_luce([[new] * 3, [new], [new] * 2], [1, 2, 3]))
    show("PL 2v2", plackett_luce([[new, new], [new, new]], [1, 2]))
    show("PL 2-player tie", plackett_luce([[new], [new]], [1, 1]))
    show("PL 3 players, first two tie", plackett_luce([[new], [new], [new]], [1, 1, 3]))
    show("PL 2v2 uneven", plackett_luce([[(30.0, 5.0), (20.0, 7.0)], [(25.0, 25.0 / 3), (28.0, 3.0)]], [2, 1]))
