"""The performance model of overlapping hybrid modes (Rabenseifner and Wellein).

Source: R. Rabenseifner, G. Wellein, "Communication and Optimization Aspects of Parallel
Programming Models on Hybrid Architectures", Int. J. of High Performance Computing
Applications 17(1), 2003 (first at EWOMP 2002), and the Rabenseifner/Hager/Jost tutorial
"Hybrid MPI and OpenMP Parallel Programming" (section "overlapping communication and
computation"). The bounds below are the ones stated there; the closed form of eps is the
model behind them, derived here so that the bounds come out as its extremes.

Model. One process has n threads. In MASTERONLY (hybrid masteronly, no overlap) a time
step costs, normalised to 1,

    T_mo = f + (1 - f)        f = f_comm: the measured communication fraction;
                              the other n-1 threads sleep while the master communicates

In FUNNELED & RESERVED (`task` mode) m threads communicate while the other n - m compute:

    computation:   (1 - f) * n / (n - m)   (the work of n threads done by n - m)
    communication: f / m                   (m threads drive the network; a single master
                                            thread is assumed to reach 1/m of what m reach)
    T_fr = max(f / m, (1 - f) * n / (n - m))          (complete overlap)

    eps = T_mo / T_fr = min(m / f, (n - m) / (n (1 - f)))     predicted speedup

Extremes over f (the tutorial's bounds):

    f -> 0:                 eps -> 1 - m/n                (reserved threads are lost)
    f = m n / (n - m + m n): eps = 1 + m (1 - 1/n)        (both parts equally long)

so 1 - m/n <= eps <= 1 + m (1 - 1/n); with n = 8, m = 1: 0.875 <= eps <= 1.875. For a
given f the tutorial also bounds eps <= 1 + f n (1 - 1/n): with a small communication
fraction there is little to gain whatever m is. `predicted_speedup` returns the model's
eps clipped to all bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


def _check(n: int, m: int) -> None:
    if n < 1:
        raise ValueError(f"n (threads per process) must be >= 1, got {n}")
    if not 0 <= m < n:
        raise ValueError(f"m (reserved threads) must be in 0..n-1, got m={m} with n={n}")


def _check_f(f: float) -> None:
    if not 0.0 <= f <= 1.0:
        raise ValueError(f"f (communication fraction) must be in [0, 1], got {f}")


def eps_min(n: int, m: int) -> float:
    """Lower bound 1 - m/n: no communication at all, the m reserved threads idle."""
    _check(n, m)
    return 1.0 - m / n


def eps_max(n: int, m: int) -> float:
    """Upper bound 1 + m (1 - 1/n): communication and computation exactly balanced."""
    _check(n, m)
    return 1.0 + m * (1.0 - 1.0 / n)


def eps_max_f(f: float, n: int) -> float:
    """Upper bound for a measured communication fraction f: 1 + f n (1 - 1/n)."""
    _check_f(f)
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    return 1.0 + f * n * (1.0 - 1.0 / n)


def best_f(n: int, m: int) -> float:
    """The communication fraction at which the overlap gains most: m n / (n - m + m n)."""
    _check(n, m)
    return m * n / (n - m + m * n) if m else 0.0


def model_eps(f: float, n: int, m: int) -> float:
    """T_masteronly / T_funneled&reserved of the model: min(m/f, (n-m) / (n (1-f)))."""
    _check(n, m)
    _check_f(f)
    if m == 0:
        return 1.0  # nobody reserved: the same as masteronly
    comm = f / m
    comp = (1.0 - f) * n / (n - m)
    return 1.0 / max(comm, comp)


@dataclass(frozen=True)
class Prediction:
    """The model's view of one (f, n, m): bounds and predicted speedup, plus a measurement."""

    f: float
    n: int
    m: int
    lower: float
    upper: float
    upper_f: float
    predicted: float
    measured: Optional[float] = None
    observed: str = "measured"  # how `measured` came about: "simulated" for simulated runs

    @property
    def worth_it(self) -> bool:
        """Funneled & reserved is predicted to beat masteronly."""
        return self.predicted > 1.0

    def describe(self) -> str:
        text = (f"f_comm = {self.f:.3f}, n = {self.n}, m = {self.m}: "
                f"{self.lower:.3f} <= eps <= {self.upper:.3f}, eps <= {self.upper_f:.3f} "
                f"(1 + f n (1 - 1/n)); predicted eps = {self.predicted:.3f}")
        if self.measured is not None:
            text += f", {self.observed} {self.measured:.3f}"
        return text


def predicted_speedup(f: float, n: int, m: int = 1,
                      measured: Optional[float] = None) -> Prediction:
    """Bounds and predicted speedup of funneled & reserved (m of n threads) over masteronly."""
    lower, upper, upper_f = eps_min(n, m), eps_max(n, m), eps_max_f(f, n)
    eps = min(max(model_eps(f, n, m), lower), upper, upper_f)
    return Prediction(f, n, m, lower, upper, upper_f, eps, measured)
