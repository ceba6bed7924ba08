"""A figure: chirper-play's values beside its peer's, its target, and the verdict on it; and how values read."""

import re
import statistics


class Figure:
    """One row pair of the table: chirper-play's values and its peer's, `peer` (mpg123 unless said; None where
    there is no peer).

    `base`, another figure, makes the verdict the ratio of this figure's median to the base's (an overhead
    over chirper-play's own plain case); `decide`, a function of the figure returning (value, verdict), decides
    instead of the target's ratio."""

    def __init__(self, key, label, unit, chirper, mpg123=None, target=None, program="chirper-play", base=None,
                 decide=None, peer="mpg123"):
        self.key, self.label, self.unit, self.program, self.peer = key, label, unit, program, peer
        self.chirper, self.mpg123 = list(chirper), list(mpg123) if mpg123 is not None else None
        self.target = target
        self.base, self.decide = base, decide
        self.verdict_value, self.verdict = None, None

    @staticmethod
    def spread(values):
        return (min(values), statistics.median(values), max(values)) if values else None

    @property
    def ratio(self):
        if not self.mpg123 or not self.chirper:
            return None
        peer = statistics.median(self.mpg123)
        return statistics.median(self.chirper) / peer if peer else None


def figure_order(key):
    """Figure keys in numeric order: 1, 2, …, 8a, 8b, 9, 10."""
    match = re.match(r"(\d+)(.*)", key)
    return (int(match.group(1)), match.group(2)) if match else (10 ** 6, key)


def fmt(value, unit):
    if value is None:
        return "–"
    if unit == "MiB":
        return f"{value:.1f}"
    if unit == "ms":
        return f"{value:.1f}" if value < 100 else f"{value:.0f}"
    if unit in ("s", "CPU s"):
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    if unit == "× realtime":
        return f"{value:.0f}"
    return f"{value:.3g}"


def median(values, unit):
    """The median of `values` as `fmt` writes it, or a dash when there are none."""
    return fmt(statistics.median(values), unit) if values else "–"


def percent(fraction):
    value = fraction * 100
    return f"{value:.1f}%" if value < 10 else f"{value:.0f}%"


def judge(figures):
    """Sets each figure's verdict: its value against its target (`≤ X` or `≥ X`), `met` or `MISSED (…)`."""
    for fig in figures:
        fig.verdict_value, fig.verdict = None, None
        base = fig.base
        if not fig.chirper or (base is not None and not base.chirper):
            fig.verdict = "no data" if fig.target else None
            continue
        if fig.decide is not None:
            fig.verdict_value, fig.verdict = fig.decide(fig)
            continue
        if base is not None:
            fig.verdict_value = statistics.median(fig.chirper) / statistics.median(base.chirper)
        else:
            fig.verdict_value = fig.ratio
        if fig.target and fig.verdict_value is not None:
            limit = float(re.search(r"[\d.]+", fig.target).group())
            if fig.target.startswith("≥"):
                ok = fig.verdict_value >= limit
                miss = f"{percent((limit - fig.verdict_value) / limit)} short"
            else:
                ok = fig.verdict_value <= limit
                miss = f"{percent(fig.verdict_value / limit - 1)} over"
            fig.verdict = "met" if ok else f"MISSED ({miss})"
