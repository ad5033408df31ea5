"""The ratchet of fixtures/ratchet-torque.toml in a second formulation, independent of cspace: while
the pawl's tip rides flank k, its angle is a function of the wheel's, p = P_k(w) (the tip on the flank's
line, solved in closed form's derivatives), and the one coordinate w follows
(I_w + I_p P'^2) w'' = tau_w - c w' + tau_p P' - I_p P' P'' w'^2; the ride ends where the tip reaches the
tooth's tip (radius 10), the two fly free, and the tip lands on the next flank with a plastic impact
(the rates projected, in the kinetic metric, onto the flank's tangent). scipy's DOP853 with its own
event location, on exact geometry: no configuration space, no flattened curve.

>>> [round(float(t), 4) for kind, t, *_ in simulate(until=2.2)]
[1.1442, 1.5201, 2.1208]
"""
import math

import numpy as np
from scipy.integrate import solve_ivp

IW, IP, TW, TP, C = 1.0, 0.25, 1.0, 1.0, 0.6
PIV = np.array([8.0, 12.0])
TIP0 = np.array([0.231762745781, 8.7972727757305])
L = float(np.linalg.norm(TIP0 - PIV))
B0 = math.atan2(*(TIP0 - PIV)[::-1])
TOOTH = 2 * math.pi / 10


def flank(k: int) -> tuple[float, float]:
    """Outward unit normal angle at w = 0 and distance of flank k from the centre."""
    a = np.radians(72 + 36 * k)
    tip = 10 * np.array([math.cos(a), math.sin(a)])
    b = np.radians(72 + 36 * (k + 1))
    root = 8.5 * np.array([math.cos(b), math.sin(b)])
    d = root - tip
    n = np.array([d[1], -d[0]]) / np.linalg.norm(d)
    if n @ tip < 0:
        n = -n
    return math.atan2(n[1], n[0]), float(n @ tip)


def tip(p):
    return PIV + L * np.array([math.cos(B0 + p), math.sin(B0 + p)])


def gap(k, w, p):
    nu, d = flank(k)
    return float(np.array([math.cos(nu + w), math.sin(nu + w)]) @ tip(p)) - d


def grad(k, w, p, h=1e-6):
    return np.array([(gap(k, w + h, p) - gap(k, w - h, p)) / (2 * h), (gap(k, w, p + h) - gap(k, w, p - h)) / (2 * h)])


def ride_rhs(k: int, damping: float = C):
    nu, d = flank(k)
    A = np.hypot(*PIV); al = math.atan2(PIV[1], PIV[0])
    def f(t, y):
        w, p, dw, dp = y
        # phi = A cos(nu + w - al) + L cos(B0 + p - nu - w) - d
        s1, s2 = math.sin(nu + w - al), math.sin(B0 + p - nu - w)
        c1, c2 = math.cos(nu + w - al), math.cos(B0 + p - nu - w)
        fw, fp = -A * s1 + L * s2, -L * s2
        fww, fwp, fpp = -A * c1 - L * c2, L * c2, -L * c2
        P1 = -fw / fp
        P2 = -(fww + 2 * fwp * P1 + fpp * P1 * P1) / fp
        ddw = (TW - damping * dw + TP * P1 - IP * P1 * P2 * dw * dw) / (IW + IP * P1 * P1)
        return [dw, P1 * dw, ddw, P1 * ddw + P2 * dw * dw]
    return f


def fly(t, y, damping: float = C):
    return [y[2], y[3], (TW - damping * y[2]) / IW, TP / IP]


def simulate(until: float = 15.0, rtol: float = 1e-12, damping: float = C) -> list[tuple]:
    """Events: (kind, time, w, p) for drops (ride ends at a tooth tip) and landings."""
    t, y, k = 0.0, np.array([0.0, 0.0, 0.0, 0.0]), 0
    events = []
    while t < until:
        at_tip = lambda t, y: float(np.linalg.norm(tip(y[1]))) - 10.0
        at_tip.terminal, at_tip.direction = True, 1
        sol = solve_ivp(ride_rhs(k, damping), (t, until), y, method="DOP853", rtol=rtol, atol=rtol, events=at_tip, dense_output=True)
        t, y = sol.t[-1], sol.y[:, -1]
        if sol.status != 1:
            break
        events.append(("drop", t, y[0], y[1]))
        k = (k - 1) % 10
        lands = lambda t, y: gap(k, y[0], y[1])
        lands.terminal, lands.direction = True, -1
        sol = solve_ivp(lambda t, y: fly(t, y, damping), (t, until), y, method="DOP853", rtol=rtol, atol=rtol, events=lands, max_step=0.01)
        t, y = sol.t[-1], sol.y[:, -1]
        if sol.status != 1:
            break
        J = grad(k, y[0], y[1])
        Minv = np.array([1 / IW, 1 / IP])
        v = y[2:]
        v = v - Minv * J * (J @ v) / (J @ (Minv * J))
        y = np.concatenate([y[:2], v])
        events.append(("land", t, y[0], y[1]))
    return events


