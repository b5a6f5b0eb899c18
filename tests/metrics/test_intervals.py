"""gym's interval, clustering, repeats and paired estimators pinned to independent implementations on the
same numbers: scipy, statsmodels (fitted another way), hand formulas, and Inspect AI's own stderr / ci /
ci_wilson (values computed once by tools/inspect_parity.py, stored as a fixture)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from gym.metrics import intervals, paired, repeats

INSPECT = json.loads((Path(__file__).parents[1] / "fixtures" / "stats" / "inspect_parity.json").read_text())


@pytest.mark.parametrize("name", ["binary_3_of_3", "binary_7_of_10"])
def test_wilson_matches_scipy_and_inspect(name):
    case = INSPECT["plain"][name]
    values = case["values"]
    got = intervals.interval(values)
    assert got["method"] == "wilson"
    ref = stats.binomtest(int(sum(values)), len(values)).proportion_ci(method="wilson")
    assert got["ci_low"] == pytest.approx(100 * ref.low, abs=1e-3)
    assert got["ci_high"] == pytest.approx(100 * ref.high, abs=1e-3)
    assert got["ci_low"] == pytest.approx(100 * case["ci_wilson"]["lower"], abs=1e-3)
    assert got["ci_high"] == pytest.approx(100 * case["ci_wilson"]["upper"], abs=1e-3)


def test_three_of_three_is_never_a_point():
    got = intervals.interval([1.0, 1.0, 1.0])
    assert (got["value"], got["ci_high"]) == (100.0, 100.0) and got["ci_low"] == pytest.approx(43.8503, abs=1e-3)
    assert INSPECT["plain"]["binary_3_of_3"]["ci_t"] == {"lower": 1.0, "upper": 1.0}  # what a t-interval says
    zero = intervals.interval([0.0, 0.0, 0.0])
    assert zero["ci_low"] == 0.0 and zero["ci_high"] == pytest.approx(56.1497, abs=1e-3)


@pytest.mark.parametrize("name", ["per_task_means", "continuous_50"])
def test_t_interval_matches_scipy_and_inspect(name):
    case = INSPECT["plain"][name]
    values = np.array(case["values"])
    got = intervals.interval(values)
    assert got["method"] == "t"
    low, high = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    assert got["ci_low"] == pytest.approx(100 * max(0.0, low), abs=1e-3)
    assert got["ci_high"] == pytest.approx(100 * min(1.0, high), abs=1e-3)
    assert got["ci_low"] == pytest.approx(100 * max(0.0, case["ci_t"]["lower"]), abs=1e-3)
    assert stats.sem(values) == pytest.approx(case["stderr"])


def test_equal_non_binary_values_get_the_bounded_interval():
    got = intervals.interval([0.5, 0.5, 0.5])  # a t-interval would be [50, 50]
    assert got["method"] == "bounded"
    ref = stats.binomtest(1, 2).proportion_ci(method="wilson")  # Wilson at p=0.5, n=3 by the formula below
    z = stats.norm.ppf(0.975)
    centre, half = (0.5 + z * z / 6) / (1 + z * z / 3), z / (1 + z * z / 3) * math.sqrt(0.25 / 3 + z * z / 36)
    assert got["ci_low"] == pytest.approx(100 * (centre - half), abs=1e-3)
    assert got["ci_high"] == pytest.approx(100 * (centre + half), abs=1e-3) and ref.low < 0.5


def _statsmodels_cluster_se(values, labels):
    import statsmodels.api as sm

    codes = np.unique(np.asarray(labels), return_inverse=True)[1]
    fit = sm.OLS(np.asarray(values, float), np.ones(len(values))).fit(cov_type="cluster", cov_kwds={"groups": codes})
    return float(fit.bse[0])


def test_cluster_robust_interval_matches_inspect_and_statsmodels():
    case = INSPECT["clustered"]
    got = intervals.interval(case["values"], case["clusters"])
    se, groups = intervals.cluster_se(case["values"], case["clusters"])
    assert got["method"] == "cluster" and got["clusters"] == groups == 8
    assert se == pytest.approx(case["stderr"], rel=1e-9)
    assert se == pytest.approx(_statsmodels_cluster_se(case["values"], case["clusters"]), rel=1e-9)
    assert got["ci_low"] == pytest.approx(100 * max(0.0, case["ci_t"]["lower"]), abs=1e-3)
    assert got["ci_high"] == pytest.approx(100 * min(1.0, case["ci_t"]["upper"]), abs=1e-3)
    iid = np.var(case["values"], ddof=1) / len(case["values"])
    assert got["design_effect"] == pytest.approx(se**2 / iid, abs=1e-4) and got["design_effect"] > 1


def test_design_effect_on_synthetic_clusters_is_near_theory():
    """Kish: with clusters of m and intra-cluster correlation rho, deff = 1 + (m - 1) * rho."""
    rng = np.random.default_rng(1)
    m, clusters, rho = 10, 400, 0.3
    shared = rng.normal(size=clusters).repeat(m) * math.sqrt(rho)
    values = 0.5 + 0.1 * (shared + rng.normal(size=clusters * m) * math.sqrt(1 - rho))
    labels = np.arange(clusters).repeat(m)
    got = intervals.interval(values, labels)
    assert got["design_effect"] == pytest.approx(1 + (m - 1) * rho, rel=0.15)
    se, _ = intervals.cluster_se(values, labels)
    assert se == pytest.approx(_statsmodels_cluster_se(values, labels), rel=1e-9)  # statsmodels on the same data


def test_repeats_split_matches_mixed_model_and_fixed_effects():
    import pandas as pd
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(3)
    tasks, k = 60, 6
    rates = rng.beta(2, 2, size=tasks)
    task = np.arange(tasks).repeat(k)
    reward = (rng.random(tasks * k) < rates[task]).astype(float)
    within, between, _ = repeats.components(task, reward, tasks)
    frame = pd.DataFrame({"y": reward, "task": task.astype(str)})
    fixed = smf.ols("y ~ C(task)", frame).fit()
    assert within == pytest.approx(fixed.mse_resid)  # pooled within-task variance = residual mean square
    mixed = smf.mixedlm("y ~ 1", frame, groups=frame["task"]).fit(reml=True)
    assert between == pytest.approx(float(mixed.cov_re.iloc[0, 0]), rel=1e-3)  # balanced: ANOVA = REML
    split = repeats.variance_split(task, reward, tasks)
    observed_se = 100 * np.bincount(task, reward).__truediv__(k).std(ddof=1) / math.sqrt(tasks)
    assert split["se"] == pytest.approx(observed_se, abs=1e-4)  # the model reproduces the observed SE at K
    assert split["se_infinite_repeats"] < split["se_if_repeats"][str(4 * k)] < split["se_if_repeats"][str(2 * k)] < split["se"]


def test_mcnemar_matches_scipy():
    a = np.array([1] * 30 + [1] * 4 + [0] * 12 + [0] * 14, bool)
    b = np.array([1] * 30 + [0] * 4 + [1] * 12 + [0] * 14, bool)
    got = paired.mcnemar(a, b)  # 16 flips: exact
    assert (got["a_only"], got["b_only"], got["exact"]) == (4, 12, True)
    assert got["p_value"] == pytest.approx(stats.binomtest(4, 16, 0.5).pvalue, abs=1e-6)
    a2 = np.array([1] * 10 + [0] * 30 + [1] * 60, bool)
    b2 = np.array([0] * 10 + [1] * 30 + [1] * 60, bool)
    got = paired.mcnemar(a2, b2)  # 40 flips: chi-squared with continuity correction
    assert got["exact"] is False
    assert got["p_value"] == pytest.approx(stats.chi2.sf((abs(10 - 30) - 1) ** 2 / 40, 1), abs=1e-6)


def test_power_statement_matches_noncentral_t():
    sd, n = 0.3, 50
    mdd = paired.minimal_detectable(sd, n)
    dof, crit = n - 1, stats.t.ppf(0.975, n - 1)
    nc = mdd / sd * math.sqrt(n)
    power = 1 - stats.nct.cdf(crit, dof, nc) + stats.nct.cdf(-crit, dof, nc)
    assert power == pytest.approx(0.80, abs=1e-4)
    need = paired.tasks_needed(sd, 0.05)
    nc_at = 0.05 / sd * math.sqrt(need)
    assert 1 - stats.nct.cdf(stats.t.ppf(0.975, need - 1), need - 1, nc_at) >= 0.80 - 1e-3
    assert paired.tasks_needed(sd, 0.05) > paired.tasks_needed(sd, 0.10)
    assert paired.repeats_needed(within=0.2, between=0.05, tasks=20, delta=0.05) is None  # between alone too big


def test_paired_t_matches_scipy():
    rng = np.random.default_rng(5)
    d = rng.normal(0.05, 0.2, size=40)
    got = paired.paired_t(d)
    low, high = stats.t.interval(0.95, 39, loc=d.mean(), scale=stats.sem(d))
    assert (got["t_low"], got["t_high"], got["se"]) == pytest.approx((100 * low, 100 * high, 100 * stats.sem(d)), abs=1e-3)


def test_t_quantile_and_wilson_match_scipy_and_statsmodels_everywhere():
    from statsmodels.stats.proportion import proportion_confint

    for dof in [*range(1, 200), 500, 1000, 10_000]:
        assert intervals.t_critical(dof) == pytest.approx(stats.t.ppf(0.975, dof), abs=1e-6)
    for n in (1, 2, 3, 7, 30, 101, 5000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
            assert intervals.wilson(k, n) == pytest.approx((low, high), abs=1e-9)


def test_family_bootstrap_never_collapses_to_a_point():
    from gym.metrics.family import bootstrap_ci

    all_wins = bootstrap_ci([1.0] * 5)  # pairwise win rate over 5 tasks, every one won
    assert all_wins["ci_high"] == 100.0 and all_wins["ci_low"] < 100.0 and all_wins["method"] == "wilson"
    assert bootstrap_ci([0.5] * 4)["ci_high"] - bootstrap_ci([0.5] * 4)["ci_low"] > 0


def test_power_planning_meets_the_normal_approximation_sample_size_formula():
    """The planning formulas of Miller (2024, §5) in their normal-approximation form: a paired comparison
    needs T = ((z_0.975 + z_0.80)·sd/δ)² tasks, and with repeats the variance of the difference per task is
    between + within/K. gym's t-based figures sit just above the normal ones (the t tails are heavier) and
    converge to them; repeats_needed is the smallest K whose variance meets the target."""
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.80)
    for sd, delta in ((0.3, 0.05), (0.45, 0.03), (0.2, 0.02)):
        normal = (z * sd / delta) ** 2
        need = paired.tasks_needed(sd, delta)
        assert math.ceil(normal) <= need <= math.ceil(normal) + 3
    within, between, tasks, delta = 0.2, 0.01, 400, 0.04
    reps = paired.repeats_needed(within, between, tasks, delta)
    target = (delta / z) ** 2 * tasks
    assert between + within / reps <= target < between + within / (reps - 1)
