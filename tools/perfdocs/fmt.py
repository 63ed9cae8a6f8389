"""Number formatting and markdown tables."""
import math


def f_ms(seconds):
    return "–" if seconds is None else f"{1e3 * seconds:,.1f}"


def f_us(us):
    if us is None:
        return "–"
    return f"{us:,.0f}" if us >= 100000 else f"{us:,.1f}"


def f_x(ratio):
    if ratio is None or ratio <= 0 or math.isinf(ratio) or math.isnan(ratio):
        return "–"
    if ratio >= 100:
        return f"{ratio:,.0f}x"
    if ratio >= 10:
        return f"{ratio:.1f}x"
    return f"{ratio:.2f}x"


def f_pct(p, min_digits=0):
    """Percent: two significant digits below 1, one decimal below 10, none above (but at
    least min_digits decimals)."""
    if p is None:
        return "–"
    if 0 < p < 0.995:
        return f"{p:.2g} %"
    digits = max(min_digits, 1 if p < 9.95 else 0)
    return f"{p:.{digits}f} %"


def f_sci(v):
    return "–" if v is None else f"{v:.1e}"


def table(head, rows, align=None):
    """A markdown table; align: string of 'l'/'r' per column."""
    align = align or "l" * len(head)
    sep = ["---:" if a == "r" else "---" for a in align]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(sep) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def span(items):
    """'lo (label) – hi (label)' of (value, label) pairs, or one value."""
    items = [(v, lab) for v, lab in items if v is not None and v > 0]
    if not items:
        return "–"
    lo = min(items, key=lambda t: t[0])
    hi = max(items, key=lambda t: t[0])
    if f_x(lo[0]) == f_x(hi[0]):
        return f_x(lo[0])
    return f"{f_x(lo[0])} ({lo[1]}) – {f_x(hi[0])} ({hi[1]})"


def geomean(values):
    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))
