"""The Rabenseifner/Wellein overlap model: bounds and predictions against hand-computed cases."""

from __future__ import annotations

import pytest

from hybridkit.advice.model import (best_f, eps_max, eps_max_f, eps_min, model_eps,
                             predicted_speedup)


@pytest.mark.parametrize("n,m,lo,hi", [
    (8, 1, 0.875, 1.875),       # the tutorial's example: 1 - 1/8, 1 + 1 * 7/8
    (2, 1, 0.5, 1.5),
    (4, 2, 0.5, 2.5),           # 1 - 2/4, 1 + 2 * 3/4
    (16, 1, 0.9375, 1.9375),
    (1, 0, 1.0, 1.0),
])
def test_bounds(n, m, lo, hi):
    assert eps_min(n, m) == pytest.approx(lo)
    assert eps_max(n, m) == pytest.approx(hi)


@pytest.mark.parametrize("f,n,bound", [(0.0, 8, 1.0), (0.1, 8, 1.7), (0.5, 2, 1.5),
                                       (0.25, 4, 1.75)])
def test_f_bound(f, n, bound):
    assert eps_max_f(f, n) == pytest.approx(bound)  # 1 + f n (1 - 1/n) = 1 + f (n - 1)


def test_model_reaches_the_bounds_at_its_extremes():
    n, m = 8, 1
    assert model_eps(0.0, n, m) == pytest.approx(eps_min(n, m))
    f = best_f(n, m)
    assert f == pytest.approx(8 / 15)                      # m n / (n - m + m n)
    assert model_eps(f, n, m) == pytest.approx(1.875)
    for k in range(101):                                   # never outside the bounds
        e = model_eps(k / 100, n, m)
        assert eps_min(n, m) - 1e-12 <= e or k == 100
        assert e <= eps_max(n, m) + 1e-12


def test_hand_computed_prediction():
    # f = 0.2, n = 4, m = 1: comm 0.2 / 1, comp 0.8 * 4 / 3 = 1.0667 -> eps = 0.9375
    p = predicted_speedup(0.2, 4, 1, measured=1.1)
    assert p.predicted == pytest.approx(0.9375)
    assert (p.lower, p.upper, p.upper_f) == pytest.approx((0.75, 1.75, 1.6))
    assert not p.worth_it
    assert "measured 1.100" in p.describe() and "0.750 <= eps <= 1.750" in p.describe()
    # f = 0.4, n = 4, m = 1: comp 0.6 * 4/3 = 0.8, comm 0.4 -> eps = 1.25, worth it
    assert predicted_speedup(0.4, 4, 1).predicted == pytest.approx(1.25)
    assert predicted_speedup(0.4, 4, 1).worth_it


def test_prediction_is_clipped_by_the_f_bound():
    # f = 0.6, n = 2, m = 1: model min(1/0.6, 1/(2*0.4)) = 1.25; 1 + f = 1.6; eps_max 1.5
    assert predicted_speedup(0.6, 2, 1).predicted == pytest.approx(1.25)
    # f = 1.0: model 1/max(1, 0) = 1 ... within all bounds
    assert predicted_speedup(1.0, 2, 1).predicted == pytest.approx(1.0)


@pytest.mark.parametrize("call", [lambda: eps_min(0, 0), lambda: eps_max(4, 4),
                                  lambda: model_eps(1.5, 4, 1), lambda: eps_max_f(-0.1, 2)])
def test_bad_arguments(call):
    with pytest.raises(ValueError):
        call()
